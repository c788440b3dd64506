//! Compression through the ring ([`CompressStages`]): per batch, stage A uploads the pages and
//! compresses them, stage B downloads the meta words, places each block and compacts, stage C
//! appends the compressed bytes to the caller's [`PackedRecords`] in one copy and points each page's
//! record into them (no per-page allocation: a batch costs a handful of copies into buffers that
//! already exist, or grow once), or builds owned records straight from them ([`RecordsOut`]).

use std::ops::Range;

use super::driver::{Arg, Driver};
use super::engine::ChunkOutcome;
use super::records_out::RecordsOut;
use super::ring::Stages;
use super::ring_state::{parallel_copy, RingEngine};
use super::GpuError;
use crate::kernel_io::{Page, PageMeta};
use crate::runtime::Timings;
use crate::PAGE_SIZE;

/// The 4 meta words of page `i` in a downloaded meta buffer.
fn meta_words(meta: &[u8], i: usize) -> [u32; 4] {
    [0, 1, 2, 3].map(|k| {
        let at = 16 * i + 4 * k;
        u32::from_le_bytes([meta[at], meta[at + 1], meta[at + 2], meta[at + 3]])
    })
}

/// Where a compress call's uploads read its pages from.
pub(super) enum Source<'a, D: Driver> {
    /// Ordinary memory: copied into the slot's page-locked buffer (split across threads) first.
    Copy,
    /// The engine's page-locked buffer the pages are in, from its first page on (no staging copy).
    Host(&'a D::Host),
    /// The pages where they are: the caller registered them, or the driver's uploads read their
    /// source before returning (no staging copy).
    InPlace,
}

/// The engine seen as the ring's three stages, compressing.
pub(super) struct CompressStages<'a, 'o, D: Driver> {
    pub engine: &'a mut RingEngine<D>,
    pub pages: &'a [Page],
    /// Where the uploads read `pages` from.
    pub source: Source<'a, D>,
    pub ranges: &'a [Range<usize>],
    pub out: &'a mut RecordsOut<'o>,
}

impl<D: Driver> Stages for CompressStages<'_, '_, D> {
    type Output = Timings;

    fn start(&mut self, slot: usize, chunk: usize) -> Result<(), GpuError> {
        let range = self.ranges[chunk].clone();
        self.engine.slots[slot].first = range.start;
        issue_compress(self.engine, slot, &self.pages[range], &self.source)
    }

    fn compact(&mut self, slot: usize) -> Result<(), GpuError> {
        issue_compact(self.engine, slot)
    }

    fn finish(&mut self, slot: usize, chunk: usize) -> ChunkOutcome {
        collect(
            self.engine,
            slot,
            &self.pages[self.ranges[chunk].clone()],
            self.out,
        )
    }

    fn quiesce(&mut self) {
        self.engine.quiesce();
    }
}

/// Stage A: stage the pages in page-locked memory (split across threads) unless they are in some
/// already, upload, compress, download the meta words.
fn issue_compress<D: Driver>(
    engine: &mut RingEngine<D>,
    s: usize,
    pages: &[Page],
    source: &Source<'_, D>,
) -> Result<(), GpuError> {
    let d = &engine.driver;
    let slot = &mut engine.slots[s];
    let n = pages.len();
    slot.pages = n;
    d.record(&slot.ev[0], &slot.h2d)?;
    match source {
        Source::Host(host) => d.upload(
            &slot.h2d,
            host,
            slot.first * PAGE_SIZE,
            n * PAGE_SIZE,
            &mut slot.d_in,
        )?,
        // The pages stay borrowed, unwritten, until the call returns, after every chunk's events
        // were synchronized (or the streams drained after a failure).
        Source::InPlace => d.upload_from(&slot.h2d, pages.as_flattened(), &mut slot.d_in)?,
        Source::Copy => {
            parallel_copy(
                &mut d.host_mut(&mut slot.input)?[..n * PAGE_SIZE],
                pages.as_flattened(),
            );
            d.upload(&slot.h2d, &slot.input, 0, n * PAGE_SIZE, &mut slot.d_in)?;
        }
    }
    d.record(&slot.ev[1], &slot.h2d)?;
    d.wait(&slot.compute, &slot.ev[1])?;
    d.record(&slot.ev[2], &slot.compute)?;
    d.launch(
        &slot.compute,
        &engine.compress,
        "lz4_compress",
        n,
        &mut [
            Arg::In(&slot.d_in),
            Arg::Out(&mut slot.d_slots),
            Arg::Out(&mut slot.d_meta),
            Arg::Scratch(&mut slot.d_scratch),
        ],
    )?;
    d.record(&slot.ev[3], &slot.compute)?;
    d.wait(&slot.d2h, &slot.ev[3])?;
    d.record(&slot.ev[4], &slot.d2h)?;
    d.download(&slot.d2h, &slot.d_meta, n * 16, &mut slot.meta)?;
    d.record(&slot.ev[5], &slot.d2h)
}

/// Stage B: wait for the meta words, upload the offsets, compact, download the compressed bytes.
fn issue_compact<D: Driver>(engine: &mut RingEngine<D>, s: usize) -> Result<(), GpuError> {
    let d = &engine.driver;
    let slot = &mut engine.slots[s];
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
    slot.total = total;
    let off = d.host_mut(&mut slot.offsets_host)?;
    for (word, o) in off.chunks_exact_mut(4).zip(&slot.offsets) {
        word.copy_from_slice(&o.to_le_bytes());
    }
    d.record(&slot.ev[6], &slot.h2d)?;
    d.upload(&slot.h2d, &slot.offsets_host, 0, n * 4, &mut slot.d_off)?;
    d.record(&slot.ev[7], &slot.h2d)?;
    d.wait(&slot.compute, &slot.ev[7])?;
    d.record(&slot.ev[8], &slot.compute)?;
    d.launch(
        &slot.compute,
        &engine.compact,
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

/// Stage C: wait for the bytes and set the batch's records in `out`.
fn collect<D: Driver>(
    engine: &mut RingEngine<D>,
    s: usize,
    pages: &[Page],
    out: &mut RecordsOut<'_>,
) -> ChunkOutcome {
    let d = &engine.driver;
    let slot = &mut engine.slots[s];
    d.synchronize(&slot.ev[11])?;
    d.check()?;
    let meta = d.host(&slot.meta)?;
    slot.metas.clear();
    for i in 0..pages.len() {
        let decoded =
            PageMeta::decode(meta_words(meta, i)).map_err(|detail| GpuError::Corrupt {
                page: slot.first + i,
                detail,
            })?;
        slot.metas.push(decoded);
    }
    let compacted = &d.host(&slot.out)?[..slot.total];
    out.set_chunk(slot.first, pages, &slot.metas, compacted, &slot.offsets);
    let ns = |a: usize| d.elapsed_ns(&slot.ev[a], &slot.ev[a + 1]);
    Ok(Timings {
        upload_ns: ns(0)? + ns(6)?,
        kernel_ns: ns(2)? + ns(8)?,
        download_ns: ns(4)? + ns(10)?,
        kernel_clock: d.clock(),
        transfer_clock: d.transfer_clock(),
    })
}
