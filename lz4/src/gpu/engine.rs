//! What a GPU backend does for the batch compressor ([`Engine`]), and the engine that runs one launch
//! per chunk through the runtime's launch API ([`LaunchEngine`]: the simulator backend). CUDA and
//! WebGPU pipeline chunks through the ring engine (`ring_engine.rs`) instead.

use std::ops::Range;

use super::host_pages::{HostPages, HostPool};
use super::records_out::RecordsOut;
use super::registered::Registration;
use super::{GpuDeviceInfo, GpuError};
use crate::archive::{Record, Records};
use crate::kernel_io::{pages_of, DecodeError, Lz4Kernels, Page};
use crate::runtime::Timings;
use crate::PAGE_SIZE;

/// The outcome of one compressed chunk: its stage times (its records are in the caller's
/// [`RecordsOut`]), or why the GPU failed it.
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
    /// The backend and device in a line ([`super::driver::Driver::describe`]).
    fn describe(&self) -> String {
        self.info().describe()
    }
    /// Compresses `pages` in chunks of `batch` pages, setting each page's record in `out` (which holds
    /// one record per page); one outcome per chunk, in order. A failed chunk's records are unspecified
    /// (the caller redoes it).
    fn compress_chunks(
        &mut self,
        pages: &[Page],
        batch: usize,
        out: &mut RecordsOut<'_>,
    ) -> Vec<ChunkOutcome>;
    /// At least `pages` input pages, as bytes, that the caller fills in place before
    /// [`Engine::compress_staged`]: page-locked on CUDA, so the upload reads them directly. Kept and
    /// reused; growing it allocates.
    fn staging(&mut self, pages: usize) -> Result<&mut [u8], GpuError>;
    /// The staging pages' bytes (for the CPU redo of a failed chunk).
    fn staged(&self) -> Result<&[u8], GpuError>;
    /// [`Engine::compress_chunks`] on the first `pages` staged pages.
    fn compress_staged(
        &mut self,
        pages: usize,
        batch: usize,
        out: &mut RecordsOut<'_>,
    ) -> Vec<ChunkOutcome>;
    /// Decodes `records` into `out` (same length) in chunks of `batch` pages; one outcome per chunk.
    fn decompress_chunks(
        &mut self,
        records: &dyn Records,
        batch: usize,
        out: &mut [Page],
    ) -> Vec<DecodeOutcome>;
    /// `pages` pages of host memory from the engine's pool, page-locked where its copies need it
    /// (contents: what an earlier holder left, or zeroes).
    fn host_pages(&mut self, pages: usize) -> Result<HostPages, GpuError>;
    /// Frees the pages given back to the engine's pool (see [`Engine::host_pages`]).
    fn release_host_pages(&mut self) {}
    /// [`Engine::compress_chunks`] on pages this engine gave out: uploaded straight from them where
    /// the engine can.
    fn compress_host(
        &mut self,
        pages: &HostPages,
        batch: usize,
        out: &mut RecordsOut<'_>,
    ) -> Vec<ChunkOutcome> {
        self.compress_chunks(pages, batch, out)
    }
    /// Registers the caller's `pages` for [`Engine::compress_registered`] and
    /// [`Engine::decompress_registered`] (page-locked in place on CUDA). By default nothing is
    /// registered: the engine's launches take the pages as they are.
    ///
    /// # Safety
    ///
    /// `pages` must outlive the registration.
    unsafe fn register(&mut self, pages: &mut [Page]) -> Result<Registration, GpuError> {
        let _ = pages;
        Ok(Registration::none())
    }
    /// [`Engine::compress_chunks`] on pages `registration` registered: uploaded from where they are
    /// when this engine registered them.
    fn compress_registered(
        &mut self,
        pages: &[Page],
        registration: &Registration,
        batch: usize,
        out: &mut RecordsOut<'_>,
    ) -> Vec<ChunkOutcome> {
        let _ = registration;
        self.compress_chunks(pages, batch, out)
    }
    /// [`Engine::decompress_chunks`] into pages `registration` registered: downloaded straight into
    /// them when this engine registered them.
    fn decompress_registered(
        &mut self,
        records: &dyn Records,
        batch: usize,
        out: &mut [Page],
        registration: &Registration,
    ) -> Vec<DecodeOutcome> {
        let _ = registration;
        self.decompress_chunks(records, batch, out)
    }
    /// [`Engine::decompress_chunks`] into pages this engine gave out: downloaded straight into them
    /// where the engine can.
    fn decompress_host(
        &mut self,
        records: &dyn Records,
        batch: usize,
        out: &mut HostPages,
    ) -> Vec<DecodeOutcome> {
        self.decompress_chunks(records, batch, out)
    }
}

/// Pages in ordinary memory, for engines (and callers) whose copies need no page-locked buffer.
pub fn vec_pages(pool: &HostPool<Vec<u8>>, pages: usize) -> Result<HostPages, GpuError> {
    pool.take(pages, |bytes| Ok(vec![0u8; bytes]))
}

/// Every chunk of a call over `pages` pages failed with `error` (before anything ran).
pub fn all_failed(pages: usize, batch: usize, error: GpuError) -> Vec<ChunkOutcome> {
    chunk_ranges(pages, batch)
        .iter()
        .map(|_| Err(error.clone()))
        .collect()
}

/// Staging pages in ordinary memory, for engines whose uploads need no page-locked buffer.
#[derive(Default)]
pub struct VecStaging(Vec<u8>);

impl VecStaging {
    /// At least `pages` pages.
    pub fn get_mut(&mut self, pages: usize) -> &mut [u8] {
        if self.0.len() < pages * PAGE_SIZE {
            self.0.resize(pages * PAGE_SIZE, 0);
        }
        &mut self.0[..pages * PAGE_SIZE]
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }

    /// Runs `compress` on the first `pages` staged pages (an error for each chunk when fewer were
    /// staged).
    pub fn compress(
        &mut self,
        pages: usize,
        batch: usize,
        compress: impl FnOnce(&[Page]) -> Vec<ChunkOutcome>,
    ) -> Vec<ChunkOutcome> {
        match self.0.get(..pages * PAGE_SIZE) {
            Some(bytes) => compress(pages_of(bytes)),
            None => all_failed(pages, batch, unstaged(pages, self.0.len() / PAGE_SIZE)),
        }
    }
}

/// The error of compressing more staged pages than were staged.
pub fn unstaged(pages: usize, staged: usize) -> GpuError {
    GpuError::Config(format!(
        "compress_staged of {pages} pages, but only {staged} were staged (call staging_pages first)"
    ))
}

/// The page kernels on a runtime launcher, one launch per chunk, chunks one after another.
pub struct LaunchEngine {
    kernels: Lz4Kernels,
    staging: VecStaging,
    pool: HostPool<Vec<u8>>,
}

impl LaunchEngine {
    /// The engine on `kernels`.
    pub fn new(kernels: Lz4Kernels) -> LaunchEngine {
        LaunchEngine {
            kernels,
            staging: VecStaging::default(),
            pool: HostPool::default(),
        }
    }
}

impl Engine for LaunchEngine {
    fn info(&self) -> GpuDeviceInfo {
        let launcher = self.kernels.launcher();
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

    fn describe(&self) -> String {
        self.kernels.launcher().describe()
    }

    fn compress_chunks(
        &mut self,
        pages: &[Page],
        batch: usize,
        out: &mut RecordsOut<'_>,
    ) -> Vec<ChunkOutcome> {
        chunk_ranges(pages.len(), batch)
            .into_iter()
            .map(|range| {
                let first = range.start;
                let (records, launched) = self
                    .kernels
                    .compress(&pages[range])
                    .map_err(GpuError::from)?;
                for (i, record) in records.into_iter().enumerate() {
                    out.set_owned(first + i, record);
                }
                Ok(launched.map(|l| l.timings).unwrap_or_default())
            })
            .collect()
    }

    fn staging(&mut self, pages: usize) -> Result<&mut [u8], GpuError> {
        Ok(self.staging.get_mut(pages))
    }

    fn staged(&self) -> Result<&[u8], GpuError> {
        Ok(self.staging.bytes())
    }

    fn compress_staged(
        &mut self,
        pages: usize,
        batch: usize,
        out: &mut RecordsOut<'_>,
    ) -> Vec<ChunkOutcome> {
        let mut staging = std::mem::take(&mut self.staging);
        let outcomes = staging.compress(pages, batch, |input| {
            self.compress_chunks(input, batch, out)
        });
        self.staging = staging;
        outcomes
    }

    fn host_pages(&mut self, pages: usize) -> Result<HostPages, GpuError> {
        vec_pages(&self.pool, pages)
    }

    fn release_host_pages(&mut self) {
        self.pool.clear();
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
                self.kernels
                    .decompress(&owned, &mut out[range])
                    .map(|(r, _)| r)
                    .map_err(GpuError::from)
            })
            .collect()
    }
}
