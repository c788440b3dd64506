//! The CUDA engine's host pipeline, on any [`Driver`]: warpforge's page kernels launched from their
//! launch metadata, fed through page-locked host buffers, timed with events. Each ring slot has its
//! own three streams (H2D, kernels, D2H), so the upload of batch k+1, the kernels of batch k and the
//! download of batch k−1 overlap and no slot's work queues behind another's.
//!
//! The slot's own events order its host buffers: `meta` is read after event 5, `out` after event 11,
//! and `input` / `offsets` are rewritten only after the slot was finished (event 11, which follows
//! events 9, 7 and 1) or after every stream was drained.
//!
//! Per batch: upload the pages; compress (each page into its 4 KiB slot, plus 4 meta words); download
//! the meta words only; compute each LZ4 page's offset on the host; upload the offsets; compact the
//! blocks into one contiguous buffer; download exactly the compressed bytes.

use warpforge_ir::verify;

use super::driver::{Arg, Driver};
use super::engine::{ChunkOutcome, Engine};
use super::ring::{run_pipeline, Stages};
use super::{GpuBatchConfig, GpuDeviceInfo, GpuError};
use crate::archive::Record;
use crate::kernel_io::{decompress_through, record_from_meta, DecodeError, Page, PageMeta};
use crate::kernels::Lz4WarpDecompressKernel;
use crate::kernels::{Kernel, Lz4CompactKernel, Lz4WarpCompressKernel};
use crate::runtime::{Backend, Loaded, Timings};
use crate::PAGE_SIZE;

/// Events of one slot, recorded around each stage.
const EVENTS: usize = 12;

/// The 4 meta words of page `i` in a downloaded meta buffer.
fn meta_words(meta: &[u8], i: usize) -> [u32; 4] {
    [0, 1, 2, 3].map(|k| {
        let at = 16 * i + 4 * k;
        u32::from_le_bytes([meta[at], meta[at + 1], meta[at + 2], meta[at + 3]])
    })
}

/// One ring slot: host and device buffers for a batch, and its timing events.
struct Slot<D: Driver> {
    input: D::Host,
    d_in: D::Buffer,
    d_slots: D::Buffer,
    d_meta: D::Buffer,
    meta: D::Host,
    offsets_host: D::Host,
    d_off: D::Buffer,
    d_compact: D::Buffer,
    out: D::Host,
    ev: Vec<D::Event>,
    /// The slot's own H2D, kernel and D2H streams, so that its compaction and download never queue
    /// behind the next slot's upload or kernel.
    h2d: D::Stream,
    compute: D::Stream,
    d2h: D::Stream,
    /// Index (in the whole call) of the first page it holds, and how many it holds.
    first: usize,
    pages: usize,
    /// Byte offset of each page's block in the compacted output (LZ4 pages only).
    offsets: Vec<u32>,
}

impl<D: Driver> Slot<D> {
    fn new(driver: &D, batch: usize) -> Result<Slot<D>, GpuError> {
        let (h2d, compute, d2h) = (driver.stream()?, driver.stream()?, driver.stream()?);
        let bytes = batch * PAGE_SIZE;
        let ev = (0..EVENTS)
            .map(|_| driver.event())
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Slot {
            input: driver.alloc_host(bytes, false)?,
            d_in: driver.alloc(&compute, bytes)?,
            d_slots: driver.alloc(&compute, bytes)?,
            d_meta: driver.alloc(&compute, batch * 16)?,
            meta: driver.alloc_host(batch * 16, true)?,
            offsets_host: driver.alloc_host(batch * 4, false)?,
            d_off: driver.alloc(&compute, batch * 4)?,
            d_compact: driver.alloc(&compute, bytes)?,
            out: driver.alloc_host(bytes, true)?,
            ev,
            h2d,
            compute,
            d2h,
            first: 0,
            pages: 0,
            offsets: Vec::new(),
        })
    }
}

/// The engine seen as the ring's three stages.
struct RingStages<'a, 'p, D: Driver> {
    engine: &'a mut RingEngine<D>,
    chunks: &'a [&'p [Page]],
}

impl<D: Driver> Stages for RingStages<'_, '_, D> {
    type Output = (Vec<Record>, Timings);

    fn start(&mut self, slot: usize, chunk: usize) -> Result<(), GpuError> {
        // Every chunk but the last has the first one's length.
        self.engine.slots[slot].first = chunk * self.chunks[0].len();
        self.engine.issue_compress(slot, self.chunks[chunk])
    }

    fn compact(&mut self, slot: usize) -> Result<(), GpuError> {
        self.engine.issue_compact(slot)
    }

    fn finish(&mut self, slot: usize, chunk: usize) -> Result<Self::Output, GpuError> {
        self.engine.collect(slot, self.chunks[chunk])
    }

    fn quiesce(&mut self) {
        self.engine.quiesce();
    }
}

/// The page kernels pipelined through a ring of slots on a [`Driver`].
pub struct RingEngine<D: Driver> {
    driver: D,
    compress: Loaded,
    compact: Loaded,
    decompress: Loaded,
    slots: Vec<Slot<D>>,
    batch: usize,
    async_dma: bool,
}

impl<D: Driver> RingEngine<D> {
    /// The engine on `driver` with `config.ring_buffer_slots` ring slots of `config.batch_size` pages
    /// each (one slot without async DMA), compressing at the level of `config.algorithm`.
    pub fn new(driver: D, config: &GpuBatchConfig) -> Result<Self, GpuError> {
        let (batch, slots, async_dma) = (
            config.batch_size,
            config.ring_buffer_slots,
            config.async_dma,
        );
        let ir = |kernel: &dyn Kernel| kernel.ir_for(Backend::Cuda);
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
            .map(|_| Slot::new(&driver, batch))
            .collect::<Result<Vec<_>, _>>()?;
        driver.settle()?;
        Ok(RingEngine {
            driver,
            compress,
            compact,
            decompress,
            slots,
            batch,
            async_dma,
        })
    }

    /// Stage A: upload the pages, compress, download the meta words.
    fn issue_compress(&mut self, s: usize, pages: &[Page]) -> Result<(), GpuError> {
        let d = &self.driver;
        let slot = &mut self.slots[s];
        let n = pages.len();
        slot.pages = n;
        d.host_mut(&mut slot.input)?[..n * PAGE_SIZE].copy_from_slice(pages.as_flattened());
        d.record(&slot.ev[0], &slot.h2d)?;
        d.upload(&slot.h2d, &slot.input, n * PAGE_SIZE, &mut slot.d_in)?;
        d.record(&slot.ev[1], &slot.h2d)?;
        d.wait(&slot.compute, &slot.ev[1])?;
        d.record(&slot.ev[2], &slot.compute)?;
        d.launch(
            &slot.compute,
            &self.compress,
            "lz4_compress",
            n,
            &mut [
                Arg::In(&slot.d_in),
                Arg::Out(&mut slot.d_slots),
                Arg::Out(&mut slot.d_meta),
            ],
        )?;
        d.record(&slot.ev[3], &slot.compute)?;
        d.wait(&slot.d2h, &slot.ev[3])?;
        d.record(&slot.ev[4], &slot.d2h)?;
        d.download(&slot.d2h, &slot.d_meta, n * 16, &mut slot.meta)?;
        d.record(&slot.ev[5], &slot.d2h)
    }

    /// Stage B: wait for the meta words, upload the offsets, compact, download the compressed bytes.
    fn issue_compact(&mut self, s: usize) -> Result<(), GpuError> {
        let d = &self.driver;
        let slot = &mut self.slots[s];
        let n = slot.pages;
        d.synchronize(&slot.ev[5])?;
        let meta = d.host(&slot.meta)?;
        slot.offsets.clear();
        let mut total = 0usize;
        for i in 0..n {
            slot.offsets.push(total as u32);
            total += PageMeta::decode(meta_words(meta, i))
                .map_err(|detail| GpuError::Corrupt {
                    page: slot.first + i,
                    detail,
                })?
                .block_len();
        }
        let off = d.host_mut(&mut slot.offsets_host)?;
        for (i, o) in slot.offsets.iter().enumerate() {
            off[4 * i..4 * i + 4].copy_from_slice(&o.to_le_bytes());
        }
        d.record(&slot.ev[6], &slot.h2d)?;
        d.upload(&slot.h2d, &slot.offsets_host, n * 4, &mut slot.d_off)?;
        d.record(&slot.ev[7], &slot.h2d)?;
        d.wait(&slot.compute, &slot.ev[7])?;
        d.record(&slot.ev[8], &slot.compute)?;
        d.launch(
            &slot.compute,
            &self.compact,
            "lz4_compact",
            n,
            &mut [
                Arg::In(&slot.d_slots),
                Arg::In(&slot.d_meta),
                Arg::In(&slot.d_off),
                Arg::Out(&mut slot.d_compact),
            ],
        )?;
        d.record(&slot.ev[9], &slot.compute)?;
        d.wait(&slot.d2h, &slot.ev[9])?;
        d.record(&slot.ev[10], &slot.d2h)?;
        if total > 0 {
            d.download(&slot.d2h, &slot.d_compact, total, &mut slot.out)?;
        }
        d.record(&slot.ev[11], &slot.d2h)
    }

    /// Stage C: wait for the bytes and build the records.
    fn collect(&mut self, s: usize, pages: &[Page]) -> ChunkOutcome {
        let d = &self.driver;
        let slot = &self.slots[s];
        d.synchronize(&slot.ev[11])?;
        d.check()?;
        let meta = d.host(&slot.meta)?;
        let out = d.host(&slot.out)?;
        let records = pages
            .iter()
            .enumerate()
            .map(|(i, page)| {
                record_from_meta(meta_words(meta, i), page, |len| {
                    let at = slot.offsets[i] as usize;
                    out[at..at + len].to_vec()
                })
                .map_err(|detail| GpuError::Corrupt {
                    page: slot.first + i,
                    detail,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let ns = |a: usize| d.elapsed_ns(&slot.ev[a], &slot.ev[a + 1]);
        let timings = Timings {
            upload_ns: ns(0)? + ns(6)?,
            kernel_ns: ns(2)? + ns(8)?,
            download_ns: ns(4)? + ns(10)?,
            kernel_clock: d.clock(),
            transfer_clock: d.clock(),
        };
        Ok((records, timings))
    }

    /// After a failure: let the streams drain (errors ignored) so the slots can be reused.
    fn quiesce(&self) {
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

    fn compress_chunks(&mut self, pages: &[Page], batch: usize) -> Vec<ChunkOutcome> {
        let chunks: Vec<&[Page]> = pages.chunks(batch.clamp(1, self.batch)).collect();
        let depth = if self.async_dma { self.slots.len() } else { 1 };
        let mut stages = RingStages {
            engine: self,
            chunks: &chunks,
        };
        run_pipeline(chunks.len(), depth, &mut stages)
    }

    fn decompress_chunk(
        &mut self,
        records: &[Record],
        out: &mut [Page],
    ) -> Result<Result<(), DecodeError>, GpuError> {
        let (driver, kernel) = (&self.driver, &self.decompress);
        let (result, _) = decompress_through(records, out, |buffers, n| {
            driver.launch_host(kernel, n as usize, buffers)
        })
        .map_err(|e| GpuError::from_launch(driver.launcher().backend(), e))?;
        Ok(result)
    }
}
