//! What a GPU backend does for the batch compressor ([`Engine`]), and the engine of every backend that
//! runs one launch per chunk through the runtime's launch API ([`LaunchEngine`]: WebGPU, the
//! simulator). The CUDA engine (`ring_engine.rs`) pipelines chunks through its DMA ring instead.

use std::ops::Range;

use super::{GpuDeviceInfo, GpuError};
use crate::archive::{PackedRecords, Record, Records};
use crate::kernel_io::{DecodeError, Lz4Kernels, Page};
use crate::runtime::Timings;

/// The outcome of one compressed chunk: its stage times (its records are in the caller's
/// [`PackedRecords`]), or why the GPU failed it.
pub type ChunkOutcome = Result<Timings, GpuError>;

/// The outcome of one decoded chunk: a device failure is `Err`; a malformed page is `Ok(Err(..))`
/// with its index in the chunk.
pub type DecodeOutcome = Result<Result<(), DecodeError>, GpuError>;

/// The chunks of `pages` items, `batch` at a time.
pub fn chunk_ranges(pages: usize, batch: usize) -> Vec<Range<usize>> {
    let batch = batch.max(1);
    (0..pages.div_ceil(batch))
        .map(|k| k * batch..((k + 1) * batch).min(pages))
        .collect()
}

/// A GPU backend.
pub trait Engine {
    /// The device.
    fn info(&self) -> GpuDeviceInfo;
    /// Compresses `pages` in chunks of `batch` pages, setting each page's record in `out` (which holds
    /// one record per page); one outcome per chunk, in order. A failed chunk's records are unspecified
    /// (the caller redoes it).
    fn compress_chunks(
        &mut self,
        pages: &[Page],
        batch: usize,
        out: &mut PackedRecords,
    ) -> Vec<ChunkOutcome>;
    /// Decodes `records` into `out` (same length) in chunks of `batch` pages; one outcome per chunk.
    fn decompress_chunks(
        &mut self,
        records: &dyn Records,
        batch: usize,
        out: &mut [Page],
    ) -> Vec<DecodeOutcome>;
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

    fn compress_chunks(
        &mut self,
        pages: &[Page],
        batch: usize,
        out: &mut PackedRecords,
    ) -> Vec<ChunkOutcome> {
        chunk_ranges(pages.len(), batch)
            .into_iter()
            .map(|range| {
                let first = range.start;
                let (records, launched) = self
                    .0
                    .compress(&pages[range])
                    .map_err(|e| gpu_error(&self.0, e))?;
                for (i, record) in records.iter().enumerate() {
                    out.set(first + i, record.view());
                }
                Ok(launched.map(|l| l.timings).unwrap_or_default())
            })
            .collect()
    }

    fn decompress_chunks(
        &mut self,
        records: &dyn Records,
        batch: usize,
        out: &mut [Page],
    ) -> Vec<DecodeOutcome> {
        chunk_ranges(out.len(), batch)
            .into_iter()
            .map(|range| {
                // The runtime's launch API takes owned records (these backends are not the hot path).
                let owned: Vec<Record> = range
                    .clone()
                    .map(|i| records.record(i).to_record())
                    .collect();
                self.0
                    .decompress(&owned, &mut out[range])
                    .map(|(r, _)| r)
                    .map_err(|e| gpu_error(&self.0, e))
            })
            .collect()
    }
}
