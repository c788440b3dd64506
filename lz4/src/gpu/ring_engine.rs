//! The CUDA engine's host pipeline, on any [`Driver`]: warpforge's page kernels launched from their
//! launch metadata, fed through page-locked host buffers, timed with events. Both directions run
//! through the same ring of slots ([`super::ring::run_pipeline`]); each slot has its own three
//! streams (H2D, kernels, D2H), so the upload of batch k+1, the kernels of batch k and the download of
//! batch k−1 overlap and no slot's work queues behind another's. Every host and device buffer, stream
//! and event is allocated once, when the engine is built, and reused by every batch of either
//! direction; nothing the kernels only write is zero-filled or uploaded.
//!
//! Compression (`ring_compress.rs`): upload the pages; compress (each page into its 4 KiB slot, plus 4
//! meta words); download the meta words only; compute each LZ4 page's offset on the host; upload the
//! offsets; compact the blocks into one contiguous buffer; download exactly the compressed bytes and
//! append them, in one copy, to the caller's `PackedRecords` (or build owned records from them:
//! [`RecordsOut`]).
//!
//! Decompression (`ring_decompress.rs`): gather the batch's LZ4 blocks straight into the slot's
//! page-locked buffer (split across threads), upload blocks and spans, decode, download the decoded
//! pages and status words, and write every page of the caller's output (decoded, raw or same-filled)
//! in one parallel pass.
//!
//! The slot's own events order its host buffers: a host buffer is read only after the event that
//! follows its download, and rewritten only after the slot was finished or every stream was drained.

use warpforge_ir::verify;

use super::driver::{Driver, HostMemory};
use super::engine::{all_failed, chunk_ranges, unstaged, ChunkOutcome, DecodeOutcome, Engine};
use super::host_pages::{HostPages, HostPool};
use super::records_out::RecordsOut;
use super::registered::Registration;
use super::ring::run_pipeline;
use super::ring_compress::{CompressStages, Source};
use super::ring_decompress::{DecompressStages, Dest, InPlace};
use super::ring_state::{RingEngine, Slot};
use super::{GpuBatchConfig, GpuDeviceInfo, GpuError};
use crate::archive::Records;
use crate::kernel_io::{pages_of, Page};
use crate::kernels::Lz4WarpDecompressKernel;
use crate::kernels::{Kernel, Lz4CompactKernel, Lz4WarpCompressKernel};
use crate::PAGE_SIZE;

impl<D: Driver> RingEngine<D> {
    /// The engine on `driver` with `config.ring_buffer_slots` ring slots of `config.batch_size` pages
    /// each (one slot without async DMA), compressing at the level of `config.algorithm`.
    pub fn new(driver: D, config: &GpuBatchConfig) -> Result<Self, GpuError> {
        let (batch, slots, async_dma) = (
            config.batch_size,
            config.ring_buffer_slots,
            config.async_dma,
        );
        let backend = driver.backend();
        let ir = |kernel: &dyn Kernel| kernel.ir_for(backend);
        let level = config.algorithm.lz4_level();
        let (compress, compact, decompress) = (
            ir(&Lz4WarpCompressKernel::at_level(0, level)),
            ir(&Lz4CompactKernel::new(0)),
            ir(&Lz4WarpDecompressKernel::new(0)),
        );
        let verified = |k| verify(k).expect("the repository's kernels verify");
        let compress = driver.load(&verified(&compress))?;
        let compact = driver.load(&verified(&compact))?;
        let decompress = driver.load(&verified(&decompress))?;
        // Without async DMA the ring has one slot: allocate only that one.
        let depth = if async_dma { slots.max(1) } else { 1 };
        let slots = (0..depth)
            .map(|_| Slot::new(&driver, batch, level))
            .collect::<Result<Vec<_>, _>>()?;
        driver.settle()?;
        Ok(RingEngine {
            driver,
            compress,
            compact,
            decompress,
            slots,
            staging: None,
            staging_pages: 0,
            pool: HostPool::default(),
            batch,
            async_dma,
        })
    }

    /// Ring depth for a call.
    fn depth(&self) -> usize {
        if self.async_dma {
            self.slots.len()
        } else {
            1
        }
    }

    /// Compresses `pages` through the ring; `staged` is the page-locked buffer they are in (uploaded
    /// from directly), if they are.
    fn run_compress(
        &mut self,
        pages: &[Page],
        source: Source<'_, D>,
        batch: usize,
        out: &mut RecordsOut<'_>,
    ) -> Vec<ChunkOutcome> {
        self.driver.begin();
        let ranges = chunk_ranges(pages.len(), batch.clamp(1, self.batch));
        let depth = self.depth();
        let mut stages = CompressStages {
            engine: self,
            pages,
            source,
            ranges: &ranges,
            out,
        };
        run_pipeline(ranges.len(), depth, &mut stages)
    }

    /// Decodes `records` through the ring into `out` (`pages` pages).
    fn run_decompress(
        &mut self,
        records: &dyn Records,
        batch: usize,
        pages: usize,
        out: Dest<'_, D>,
    ) -> Vec<DecodeOutcome> {
        self.driver.begin();
        let ranges = chunk_ranges(pages, batch.clamp(1, self.batch));
        let depth = self.depth();
        let mut stages = DecompressStages {
            engine: self,
            records,
            ranges: &ranges,
            out,
        };
        run_pipeline(ranges.len(), depth, &mut stages)
    }

    /// Where a compress call uploads pages in ordinary memory from: where they are when the driver's
    /// uploads read their source before returning (WebGPU), else a copy in a slot's page-locked
    /// buffer.
    fn ordinary_source<'s>(&self) -> Source<'s, D> {
        match self.driver.uploads_read_when_queued() {
            true => Source::InPlace,
            false => Source::Copy,
        }
    }

    /// After a failure: let the streams drain (errors ignored) so the slots can be reused.
    pub(super) fn quiesce(&self) {
        // A stale recorded error makes the drains below return early without waiting: take it first
        // (it belongs to this failure).
        let _ = self.driver.check();
        for slot in &self.slots {
            for stream in [&slot.h2d, &slot.compute, &slot.d2h] {
                self.driver.drain(stream);
            }
        }
        // Errors recorded on the way belong to this failure.
        let _ = self.driver.check();
    }
}

impl<D: Driver> Engine for RingEngine<D> {
    fn info(&self) -> GpuDeviceInfo {
        self.driver.info()
    }

    fn describe(&self) -> String {
        self.driver.describe()
    }

    fn compress_chunks(
        &mut self,
        pages: &[Page],
        batch: usize,
        out: &mut RecordsOut<'_>,
    ) -> Vec<ChunkOutcome> {
        let source = self.ordinary_source();
        self.run_compress(pages, source, batch, out)
    }

    fn staging(&mut self, pages: usize) -> Result<&mut [u8], GpuError> {
        if pages == 0 {
            // Nothing to allocate (a zero-byte page-locked allocation is an error on CUDA).
            return Ok(&mut []);
        }
        if self.staging.is_none() || self.staging_pages < pages {
            // Free the old buffer before allocating the larger one.
            self.staging = None;
            self.staging_pages = 0;
            self.staging = Some(self.driver.alloc_host(pages * PAGE_SIZE, true)?);
            self.staging_pages = pages;
        }
        match &mut self.staging {
            Some(host) => Ok(&mut self.driver.host_mut(host)?[..pages * PAGE_SIZE]),
            None => Err(unstaged(pages, 0)),
        }
    }

    fn staged(&self) -> Result<&[u8], GpuError> {
        match &self.staging {
            Some(host) => Ok(&self.driver.host(host)?[..self.staging_pages * PAGE_SIZE]),
            None => Ok(&[]),
        }
    }

    fn compress_staged(
        &mut self,
        pages: usize,
        batch: usize,
        out: &mut RecordsOut<'_>,
    ) -> Vec<ChunkOutcome> {
        let Some(staging) = self.staging.take() else {
            return all_failed(pages, batch, unstaged(pages, 0));
        };
        let outcomes = match self.driver.host(&staging) {
            Ok(bytes) if pages <= self.staging_pages => {
                let input = pages_of(&bytes[..pages * PAGE_SIZE]);
                self.run_compress(input, Source::Host(&staging), batch, out)
            }
            Ok(_) => all_failed(pages, batch, unstaged(pages, self.staging_pages)),
            Err(e) => all_failed(pages, batch, e),
        };
        self.staging = Some(staging);
        outcomes
    }

    fn host_pages(&mut self, pages: usize) -> Result<HostPages, GpuError> {
        let driver = &self.driver;
        self.pool.take(pages, |bytes| {
            let mut host = driver.alloc_host(bytes, true)?;
            // Page-locked memory starts unspecified: zeroed once, when allocated (reuse keeps what
            // the last holder wrote).
            let len = bytes.min(host.bytes());
            // SAFETY: `base_mut` addresses the new buffer's `host.bytes()` bytes, which nothing
            // else refers to yet (no copy has been queued on it).
            unsafe { std::ptr::write_bytes(host.base_mut(), 0, len) };
            Ok(host)
        })
    }

    fn release_host_pages(&mut self) {
        self.pool.clear();
    }

    fn compress_host(
        &mut self,
        pages: &HostPages,
        batch: usize,
        out: &mut RecordsOut<'_>,
    ) -> Vec<ChunkOutcome> {
        // Pages of another engine's pool are ordinary memory here (staged by a copy unless the
        // driver's uploads read their source when queued).
        let source = match self.pool.host(pages) {
            Some(host) => Source::Host(host),
            None => self.ordinary_source(),
        };
        // The caller may reuse or free its pages once this returns: after a failed chunk the ring
        // drains every upload from them first.
        self.run_compress(pages, source, batch, out)
    }

    fn decompress_chunks(
        &mut self,
        records: &dyn Records,
        batch: usize,
        out: &mut [Page],
    ) -> Vec<DecodeOutcome> {
        let pages = out.len();
        self.run_decompress(records, batch, pages, Dest::Pages(out))
    }

    unsafe fn register(&mut self, pages: &mut [Page]) -> Result<Registration, GpuError> {
        let bytes = pages.as_flattened_mut();
        if bytes.is_empty() {
            return Ok(Registration::none());
        }
        // SAFETY: `bytes` is one live allocation (a slice), which outlives the registration (this
        // method's contract).
        let held = unsafe { self.driver.register(bytes.as_mut_ptr(), bytes.len()) }?;
        Ok(Registration::new(self.pool.id(), held))
    }

    fn compress_registered(
        &mut self,
        pages: &[Page],
        registration: &Registration,
        batch: usize,
        out: &mut RecordsOut<'_>,
    ) -> Vec<ChunkOutcome> {
        if !registration.is_by(self.pool.id()) {
            // Registered by another engine: ordinary memory here.
            return self.compress_chunks(pages, batch, out);
        }
        // The caller may write its pages once this returns: after a failed chunk the ring drains
        // every upload from them first.
        self.run_compress(pages, Source::InPlace, batch, out)
    }

    fn decompress_registered(
        &mut self,
        records: &dyn Records,
        batch: usize,
        out: &mut [Page],
        registration: &Registration,
    ) -> Vec<DecodeOutcome> {
        if !registration.is_by(self.pool.id()) {
            return self.decompress_chunks(records, batch, out);
        }
        let pages = out.len();
        // A failed chunk is redone on the CPU into the same pages: the ring drains every download
        // into them first.
        self.run_decompress(records, batch, pages, Dest::InPlace(InPlace::new(out)))
    }

    fn decompress_host(
        &mut self,
        records: &dyn Records,
        batch: usize,
        out: &mut HostPages,
    ) -> Vec<DecodeOutcome> {
        let pages = out.len();
        let pool = &self.pool;
        let Some(host) = pool.host_mut(out) else {
            // Another engine's pages: ordinary memory here.
            return self.decompress_chunks(records, batch, out);
        };
        // A failed chunk is redone on the CPU into the same pages: the ring drains every download
        // into them first.
        self.run_decompress(records, batch, pages, Dest::Host(host))
    }
}
