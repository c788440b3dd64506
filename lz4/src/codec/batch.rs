//! The `cuda` and `webgpu` backends: the archive pipeline over [`crate::gpu::GpuBatchCompressor`] on a
//! CUDA GPU or a WebGPU adapter, with its ring (buffers that stay on the device, uploads, kernels and
//! downloads in flight together) and per-batch CPU fallback, which the summary counts. The `ptx-sim`
//! backend is the same engine — ring, meta-first compaction, decompression — with the PTX simulator
//! standing in for the driver; there a batch that fails is an error, not a CPU fallback (the point is
//! to check the CUDA path).

use super::page_codec::PageCodec;
use crate::archive::{PackedRecords, Record, Records};
use crate::gpu::{GpuBatchCompressor, GpuBatchConfig, GpuError, HostPages, PageInput, PageOutput};
use crate::kernel_io::{DecodeError, Page};
use crate::kernels::lz4::Lz4Level;
use crate::runtime::sim::SimOptions;
use crate::runtime::webgpu::WebGpuDevice;
use crate::runtime::Launcher;
use crate::Algorithm;
use crate::Backend;

/// Pages per batch on a software WebGPU adapter (on this project's 2-core VM lavapipe compresses
/// about 50-150 pages a second, by level and path).
pub const SOFTWARE_BATCH_PAGES: usize = 256;

/// A CUDA device, a WebGPU adapter (or the PTX simulator standing in for a CUDA device) running the
/// LZ4 warp kernels through the batch API.
pub struct BatchCodec(GpuBatchCompressor, Backend);

impl BatchCodec {
    /// Opens CUDA device `device_index` with the default batch configuration.
    pub fn new(device_index: u32) -> Result<BatchCodec, GpuError> {
        BatchCodec::at_level(device_index, Lz4Level::DEFAULT)
    }

    /// [`BatchCodec::new`] compressing at `level`.
    pub fn at_level(device_index: u32, level: Lz4Level) -> Result<BatchCodec, GpuError> {
        Ok(BatchCodec(
            GpuBatchCompressor::new(GpuBatchConfig {
                device_index,
                algorithm: Algorithm::Lz4Level(level),
                ..GpuBatchConfig::default()
            })?,
            Backend::Cuda,
        ))
    }

    /// The archive pipeline over a compressor the caller opened (its backend, batch and ring as
    /// configured): CPU fallback as [`GpuBatchCompressor`] does it.
    pub fn with_compressor(compressor: GpuBatchCompressor) -> BatchCodec {
        let backend = compressor.device().backend;
        BatchCodec(compressor, backend)
    }

    /// The first WebGPU adapter that runs the kernels (hardware before software), compressing at
    /// `level`. On a software adapter (lavapipe, SwiftShader, WARP: the kernels run on the host's
    /// cores) a batch is [`SOFTWARE_BATCH_PAGES`] pages, so a call of the pipeline (a batch per ring
    /// slot: 768 pages) returns, and the progress bar moves, every 5-15 s there rather than every few
    /// minutes, and the ring's buffers take megabytes, not hundreds.
    pub fn webgpu_at(level: Lz4Level) -> anyhow::Result<BatchCodec> {
        let device = WebGpuDevice::new(&crate::auto::webgpu_requirements()?)
            .map_err(|e| anyhow::anyhow!("no WebGPU adapter can run the LZ4 kernels: {e}"))?;
        let default = GpuBatchConfig::default();
        let config = GpuBatchConfig {
            algorithm: Algorithm::Lz4Level(level),
            batch_size: if device.adapter().is_software {
                SOFTWARE_BATCH_PAGES
            } else {
                default.batch_size
            },
            ..default
        };
        Ok(BatchCodec(
            GpuBatchCompressor::webgpu_on(config, device)?,
            Backend::WebGpu,
        ))
    }

    /// The CUDA engine's host pipeline on the PTX simulator (the kernels' sm_80 PTX), default batch
    /// configuration.
    pub fn ptx_sim() -> Result<BatchCodec, GpuError> {
        BatchCodec::ptx_sim_with(SimOptions::default(), Lz4Level::DEFAULT)
    }

    /// [`BatchCodec::ptx_sim`] with the simulator's options (the bench turns the sanitizer off),
    /// compressing at `level`.
    pub fn ptx_sim_with(options: SimOptions, level: Lz4Level) -> Result<BatchCodec, GpuError> {
        let launcher = Launcher::PtxSim(options, crate::ptx::Sm::Sm80);
        let config = GpuBatchConfig {
            algorithm: Algorithm::Lz4Level(level),
            ..GpuBatchConfig::default()
        };
        Ok(BatchCodec(
            GpuBatchCompressor::cuda_pipeline_on(config, launcher)?,
            Backend::PtxSim,
        ))
    }

    /// The compressor, for its statistics.
    pub fn compressor(&self) -> &GpuBatchCompressor {
        &self.0
    }

    /// On ptx-sim, pages the batch API redid on the CPU are a failure of the checked path.
    fn no_fallback(&self, before: u64, what: &str) -> anyhow::Result<()> {
        let fell_back = self.0.stats().cpu_fallback_pages - before;
        if self.1 == Backend::PtxSim && fell_back > 0 {
            anyhow::bail!(
                "ptx-sim: {fell_back} page(s) of this {what} failed on the PTX simulator and were \
                 redone on the CPU (see the error above); the CUDA path is not checked by them"
            );
        }
        Ok(())
    }
}

impl PageCodec for BatchCodec {
    fn backend(&self) -> Backend {
        self.1
    }

    fn describe(&self) -> String {
        let d = self.0.device();
        match self.1 {
            Backend::PtxSim => format!("ptx-sim: the CUDA engine's host pipeline on {}", d.name),
            Backend::Cuda => format!(
                "cuda on {} (device {}, SM {}.{})",
                d.name, d.index, d.compute_capability.0, d.compute_capability.1
            ),
            // WebGPU (the adapter and how warps are lowered), or a compressor the caller opened.
            _ => self.0.describe(),
        }
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
        self.compress_from(pages)
    }

    fn decompress(
        &mut self,
        records: &[Record],
        out: &mut [Page],
    ) -> anyhow::Result<Result<(), DecodeError>> {
        self.decompress_to(&records, out)
    }

    fn cpu_fallback_pages(&self) -> u64 {
        self.0.stats().cpu_fallback_pages
    }

    fn host_pages(&mut self, pages: usize) -> Option<HostPages> {
        self.0.host_pages(pages).ok()
    }

    fn compress_host(&mut self, pages: &HostPages) -> anyhow::Result<Vec<Record>> {
        self.compress_from(pages)
    }

    fn compress_host_packed(
        &mut self,
        pages: &HostPages,
        out: &mut PackedRecords,
    ) -> anyhow::Result<()> {
        let before = self.0.stats().cpu_fallback_pages;
        self.0.compress_into(pages, out)?;
        self.no_fallback(before, "batch")
    }

    fn decompress_host(
        &mut self,
        records: &[Record],
        out: &mut HostPages,
    ) -> anyhow::Result<Result<(), DecodeError>> {
        self.decompress_to(&records, out)
    }

    fn decompress_packed(
        &mut self,
        records: &PackedRecords,
        out: &mut [Page],
    ) -> anyhow::Result<Result<(), DecodeError>> {
        self.decompress_to(records, out)
    }

    fn decompress_host_packed(
        &mut self,
        records: &PackedRecords,
        out: &mut HostPages,
    ) -> anyhow::Result<Result<(), DecodeError>> {
        self.decompress_to(records, out)
    }
}

impl BatchCodec {
    fn compress_from<P: PageInput + ?Sized>(&mut self, pages: &P) -> anyhow::Result<Vec<Record>> {
        let before = self.0.stats().cpu_fallback_pages;
        let records = self.0.compress_batch(pages)?.pages;
        self.no_fallback(before, "batch")?;
        Ok(records)
    }

    fn decompress_to<O: PageOutput + ?Sized>(
        &mut self,
        records: &dyn Records,
        out: &mut O,
    ) -> anyhow::Result<Result<(), DecodeError>> {
        let before = self.0.stats().cpu_fallback_pages;
        match self.0.decompress_into(records, out) {
            Ok(()) => {
                self.no_fallback(before, "decode")?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::ReplayTape;

    #[test]
    fn a_codec_over_the_callers_compressor_names_that_compressor() {
        let config = GpuBatchConfig::default();
        let tape = ReplayTape::new(config.algorithm.lz4_level());
        let compressor = GpuBatchCompressor::replaying(config, tape).expect("a replay compressor");
        let codec = BatchCodec::with_compressor(compressor);
        assert_eq!(codec.backend(), Backend::Sim);
        let name = codec.describe();
        assert!(name.contains("replay driver"), "{name}");
        assert!(!name.starts_with("cuda"), "{name}");
        assert_eq!(codec.batch_pages(), 3 * 4096);
    }
}
