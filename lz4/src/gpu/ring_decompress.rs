//! Decompression through the ring ([`DecompressStages`]): per batch, stage A gathers the LZ4 blocks
//! straight into the slot's page-locked buffer (split across threads), uploads exactly the blocks and
//! their spans and queues the decode and the download of the decoded pages and status words; stage C
//! checks the status words and writes every page of the caller's output — decoded, raw or
//! same-filled — in one parallel pass. Nothing is zero-filled that the kernel writes, nothing the
//! kernel only writes is uploaded, and no buffer is allocated per batch.
//!
//! Into the engine's own page-locked pages ([`Dest::Host`], `decompress_batch`) or the caller's
//! registered pages ([`Dest::InPlace`]), every page goes to
//! the kernel (raw and same-filled ones as LZ4 blocks, `page_blocks.rs`) so that the decoded batch is
//! in page order and downloads straight into the caller's pages: stage C only checks status words.

use std::marker::PhantomData;
use std::ops::Range;

use rayon::prelude::*;

use super::driver::{Arg, Driver};
use super::engine::DecodeOutcome;
use super::page_blocks::device_block;
use super::ring::Stages;
use super::ring_state::{RingEngine, COPY_PART, SIMPLE, TOO_LONG};
use super::GpuError;
use crate::archive::{RecordRef, Records};
use crate::kernel_io::{fill_ref, status_error, DecodeError, Page};
use crate::kernels::lz4::{decode_status, BLOCKS_ALIGN, LZ4_MAX_PAGE_BLOCK};
use crate::PAGE_SIZE;

/// The engine seen as the ring's stages, decompressing.
pub(super) struct DecompressStages<'a, D: Driver> {
    pub engine: &'a mut RingEngine<D>,
    pub records: &'a dyn Records,
    pub ranges: &'a [Range<usize>],
    pub out: Dest<'a, D>,
}

/// Where the decoded pages go.
pub(super) enum Dest<'a, D: Driver> {
    /// The caller's pages (from the slot's download buffer).
    Pages(&'a mut [Page]),
    /// Page-locked pages the engine gave out: downloaded into directly.
    Host(&'a mut D::Host),
    /// The caller's pages, registered: downloaded into directly.
    InPlace(InPlace<'a>),
}

/// The caller's pages, held as a pointer: each batch's pages are borrowed on their own while the
/// downloads queued into earlier batches' pages are still pending (a reborrow of the whole slice per
/// batch would invalidate the pointers those downloads hold).
pub(super) struct InPlace<'a> {
    base: *mut Page,
    len: usize,
    _pages: PhantomData<&'a mut [Page]>,
}

impl<'a> InPlace<'a> {
    /// `pages`, borrowed for the whole call.
    pub fn new(pages: &'a mut [Page]) -> InPlace<'a> {
        InPlace {
            base: pages.as_mut_ptr(),
            len: pages.len(),
            _pages: PhantomData,
        }
    }

    /// Pages `range` (a batch: the ring's batches do not overlap).
    fn batch(&mut self, range: Range<usize>) -> &mut [Page] {
        assert!(
            range.start <= range.end && range.end <= self.len,
            "batch {range:?} of {} pages",
            self.len
        );
        // SAFETY: `range` lies inside the `len` pages at `base` (asserted), which come from a
        // `&'a mut [Page]` this value holds for `'a`; the slice lives no longer than this borrow of
        // `self`, and nothing else refers to those pages meanwhile (earlier batches' pending
        // downloads write other pages).
        unsafe { std::slice::from_raw_parts_mut(self.base.add(range.start), range.len()) }
    }
}

/// Where stage A downloads a batch's decoded pages when not into the slot's buffer.
enum Target<'t, D: Driver> {
    /// A page-locked buffer holding the whole call's pages.
    Host(&'t mut D::Host),
    /// The batch's own pages.
    Pages(&'t mut [Page]),
}

impl<D: Driver> Stages for DecompressStages<'_, D> {
    type Output = Result<(), DecodeError>;

    fn start(&mut self, slot: usize, chunk: usize) -> Result<(), GpuError> {
        let range = self.ranges[chunk].clone();
        let dest = match &mut self.out {
            Dest::Pages(_) => None,
            Dest::Host(host) => Some(Target::Host(&mut **host)),
            Dest::InPlace(pages) => Some(Target::Pages(pages.batch(range.clone()))),
        };
        issue_decompress(self.engine, slot, self.records, range, dest)
    }

    fn compact(&mut self, _: usize) -> Result<(), GpuError> {
        // Nothing between the decode and its download.
        Ok(())
    }

    fn finish(&mut self, slot: usize, chunk: usize) -> DecodeOutcome {
        let out = match &mut self.out {
            Dest::Pages(out) => Some(&mut out[self.ranges[chunk].clone()]),
            Dest::Host(_) | Dest::InPlace(_) => None,
        };
        write_pages(self.engine, slot, self.records, out)
    }

    fn quiesce(&mut self) {
        self.engine.quiesce();
    }
}

/// Stage A: place the blocks, gather them, upload blocks and spans, decode, download (into `dest`
/// from the batch's first page on, when given: then every page is a block).
fn issue_decompress<D: Driver>(
    engine: &mut RingEngine<D>,
    s: usize,
    records: &dyn Records,
    range: Range<usize>,
    dest: Option<Target<'_, D>>,
) -> Result<(), GpuError> {
    let every = dest.is_some();
    let d = &engine.driver;
    let slot = &mut engine.slots[s];
    let first = range.start;
    slot.first = first;
    slot.lz4_slot.clear();
    slot.cuts.clear();
    // Place every block (spans straight into the page-locked spans buffer) and cut the gather into
    // parts of about COPY_PART bytes.
    let spans = d.host_mut(&mut slot.offsets_host)?;
    let (mut blocks, mut total) = (0usize, 0usize);
    for i in range.clone() {
        let record = records.record(i);
        let too_long = matches!(record, RecordRef::Lz4(b) if b.len() > LZ4_MAX_PAGE_BLOCK as usize);
        let k = match device_block(record, every) {
            Some(block) => {
                if total >= slot.cuts.last().map_or(0, |c| c.1) + COPY_PART || slot.cuts.is_empty()
                {
                    slot.cuts.push((i - first, total));
                }
                spans[8 * blocks..8 * blocks + 4].copy_from_slice(&(total as u32).to_le_bytes());
                spans[8 * blocks + 4..8 * blocks + 8]
                    .copy_from_slice(&(block.len() as u32).to_le_bytes());
                total += block.len();
                blocks += 1;
                if too_long {
                    TOO_LONG
                } else {
                    (blocks - 1) as u32
                }
            }
            None if too_long => TOO_LONG,
            None => SIMPLE,
        };
        slot.lz4_slot.push(k);
    }
    slot.cuts.push((range.len(), total));
    slot.pages = blocks;
    if blocks == 0 {
        return Ok(());
    }
    // Gather: each part copies its blocks into its own piece of the page-locked buffer.
    let padded = total.div_ceil(BLOCKS_ALIGN).max(1) * BLOCKS_ALIGN;
    let buffer = &mut d.host_mut(&mut slot.input)?[..padded];
    let (gathered, padding) = buffer.split_at_mut(total);
    padding.fill(0);
    let mut parts = Vec::with_capacity(slot.cuts.len());
    let mut rest = gathered;
    for cut in slot.cuts.windows(2) {
        let (piece, tail) = rest.split_at_mut(cut[1].1 - cut[0].1);
        parts.push((first + cut[0].0..first + cut[1].0, piece));
        rest = tail;
    }
    parts.into_par_iter().for_each(|(pages, piece)| {
        let mut at = 0;
        for block in pages.filter_map(|i| device_block(records.record(i), every)) {
            block.write(&mut piece[at..]);
            at += block.len();
        }
    });
    d.record(&slot.ev[0], &slot.h2d)?;
    d.upload(&slot.h2d, &slot.input, 0, padded, &mut slot.d_in)?;
    d.upload(
        &slot.h2d,
        &slot.offsets_host,
        0,
        blocks * 8,
        &mut slot.d_off,
    )?;
    d.record(&slot.ev[1], &slot.h2d)?;
    d.wait(&slot.compute, &slot.ev[1])?;
    d.record(&slot.ev[2], &slot.compute)?;
    d.launch(
        &slot.compute,
        &engine.decompress,
        "lz4_decompress",
        blocks,
        &mut [
            Arg::In(&slot.d_in),
            Arg::In(&slot.d_off),
            Arg::Out(&mut slot.d_slots),
            Arg::Out(&mut slot.d_meta),
        ],
    )?;
    d.record(&slot.ev[3], &slot.compute)?;
    d.wait(&slot.d2h, &slot.ev[3])?;
    d.record(&slot.ev[4], &slot.d2h)?;
    d.download(&slot.d2h, &slot.d_meta, blocks * 4, &mut slot.meta)?;
    match dest {
        Some(Target::Host(host)) => d.download_at(
            &slot.d2h,
            &slot.d_slots,
            blocks * PAGE_SIZE,
            host,
            first * PAGE_SIZE,
        )?,
        // Every page of the batch is a block, in page order (`every`).
        Some(Target::Pages(pages)) => {
            d.download_into(&slot.d2h, &slot.d_slots, pages.as_flattened_mut())?
        }
        None => d.download(&slot.d2h, &slot.d_slots, blocks * PAGE_SIZE, &mut slot.out)?,
    }
    d.record(&slot.ev[5], &slot.d2h)
}

/// Stage C: wait for the decoded pages, name the first malformed page or write every page of `out`
/// (`None`: they were downloaded where they belong).
fn write_pages<D: Driver>(
    engine: &mut RingEngine<D>,
    s: usize,
    records: &dyn Records,
    out: Option<&mut [Page]>,
) -> DecodeOutcome {
    let d = &engine.driver;
    let slot = &engine.slots[s];
    let (status, decoded): (&[u8], &[u8]) = if slot.pages > 0 {
        d.synchronize(&slot.ev[5])?;
        d.check()?;
        (d.host(&slot.meta)?, d.host(&slot.out)?)
    } else {
        (&[], &[])
    };
    for (i, &k) in slot.lz4_slot.iter().enumerate() {
        let word = match k {
            SIMPLE => continue,
            TOO_LONG => decode_status::TOO_LONG,
            k => {
                let at = 4 * k as usize;
                u32::from_le_bytes(status[at..at + 4].try_into().expect("4 bytes"))
            }
        };
        if let Some(detail) = status_error(word) {
            return Ok(Err(DecodeError { index: i, detail }));
        }
    }
    let Some(out) = out else {
        return Ok(Ok(()));
    };
    let first = slot.first;
    out.par_iter_mut()
        .zip(slot.lz4_slot.par_iter())
        .enumerate()
        .for_each(|(i, (page, &k))| {
            if k == SIMPLE {
                fill_ref(records.record(first + i), page);
            } else {
                let at = k as usize * PAGE_SIZE;
                page.copy_from_slice(&decoded[at..at + PAGE_SIZE]);
            }
        });
    Ok(Ok(()))
}
