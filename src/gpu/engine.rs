//! What a GPU backend does for the batch compressor ([`Engine`]), and the engine of every backend that
//! runs one launch per chunk through the runtime's launch API ([`LaunchEngine`]: WebGPU, the
//! simulator). The CUDA engine (`cuda.rs`) pipelines chunks through its DMA ring instead.

use super::{GpuDeviceInfo, GpuError};
use crate::archive::Record;
use crate::kernel_io::{DecodeError, Lz4Kernels, Page};
use crate::runtime::Timings;

/// The outcome of one chunk: its records and stage times, or why the GPU failed it.
pub type ChunkOutcome = Result<(Vec<Record>, Timings), GpuError>;

/// A GPU backend.
pub trait Engine {
    /// The device.
    fn info(&self) -> GpuDeviceInfo;
    /// Compresses `pages` in chunks of `batch` pages; one outcome per chunk, in order.
    fn compress_chunks(&mut self, pages: &[Page], batch: usize) -> Vec<ChunkOutcome>;
    /// Decodes one chunk (a device failure is `Err`; a malformed page is `Ok(Err(..))`).
    fn decompress_chunk(
        &mut self,
        records: &[Record],
        out: &mut [Page],
    ) -> Result<Result<(), DecodeError>, GpuError>;
}

/// The page kernels on a runtime launcher, one launch per chunk, chunks one after another.
pub struct LaunchEngine(pub Lz4Kernels);

/// A launch failure of `kernels` as the batch API reports it.
fn gpu_error(kernels: &Lz4Kernels, e: anyhow::Error) -> GpuError {
    GpuError::from_launch(kernels.launcher().backend(), e)
}

impl Engine for LaunchEngine {
    fn info(&self) -> GpuDeviceInfo {
        let launcher = self.0.launcher();
        GpuDeviceInfo {
            index: 0,
            name: launcher.device_name(),
            // WebGPU reports no device memory or cache size (max_buffer_size is a per-buffer limit).
            total_memory: 0,
            l2_cache_size: 0,
            compute_capability: (0, 0),
            backend: launcher.backend().into(),
        }
    }

    fn compress_chunks(&mut self, pages: &[Page], batch: usize) -> Vec<ChunkOutcome> {
        pages
            .chunks(batch.max(1))
            .map(|chunk| {
                let (records, launched) =
                    self.0.compress(chunk).map_err(|e| gpu_error(&self.0, e))?;
                Ok((records, launched.map(|l| l.timings).unwrap_or_default()))
            })
            .collect()
    }

    fn decompress_chunk(
        &mut self,
        records: &[Record],
        out: &mut [Page],
    ) -> Result<Result<(), DecodeError>, GpuError> {
        self.0
            .decompress(records, out)
            .map(|(r, _)| r)
            .map_err(|e| gpu_error(&self.0, e))
    }
}
