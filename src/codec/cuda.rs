//! The `cuda` backend: the archive pipeline over [`crate::gpu::GpuBatchCompressor`] on a CUDA GPU, with
//! its async-DMA ring and per-batch CPU fallback.

use super::{Backend, DecodeError, Page, PageCodec};
use crate::archive::Record;
use crate::gpu::{GpuBatchCompressor, GpuBatchConfig, GpuError};

/// A CUDA device running the LZ4 warp kernels.
pub struct CudaCodec(GpuBatchCompressor);

impl CudaCodec {
    /// Opens CUDA device `device_index` with the default batch configuration.
    pub fn new(device_index: u32) -> Result<CudaCodec, GpuError> {
        Ok(CudaCodec(GpuBatchCompressor::new(GpuBatchConfig {
            device_index,
            ..GpuBatchConfig::default()
        })?))
    }

    /// The compressor, for its statistics.
    pub fn compressor(&self) -> &GpuBatchCompressor {
        &self.0
    }
}

impl PageCodec for CudaCodec {
    fn backend(&self) -> Backend {
        Backend::Cuda
    }

    fn describe(&self) -> String {
        let d = self.0.device();
        format!(
            "cuda on {} (device {}, SM {}.{})",
            d.name, d.index, d.compute_capability.0, d.compute_capability.1
        )
    }

    /// A full ring: every slot gets a batch per call, so uploads, kernels and downloads overlap.
    fn batch_pages(&self) -> usize {
        let config = self.0.config();
        let slots = if config.async_dma {
            config.ring_buffer_slots
        } else {
            1
        };
        slots * config.batch_size
    }

    fn compress(&mut self, pages: &[Page]) -> anyhow::Result<Vec<Record>> {
        Ok(self.0.compress_batch(pages)?.pages)
    }

    fn decompress(
        &mut self,
        records: &[Record],
        out: &mut [Page],
    ) -> anyhow::Result<Result<(), DecodeError>> {
        match self.0.decompress_batch(records) {
            Ok(pages) => {
                out.copy_from_slice(&pages);
                Ok(Ok(()))
            }
            Err(GpuError::Corrupt { page, detail }) => Ok(Err(DecodeError {
                index: page,
                detail,
            })),
            Err(e) => Err(e.into()),
        }
    }
}
