//! The CPU reference of the page kernels on every core, and the helpers the CPU codecs share: the
//! GPU batch API falls back to it, the `reference` codec is it.

use rayon::prelude::*;

use super::page::Page;
use super::transfer::{fill_ref, DecodeError};
use crate::archive::Record;
use crate::archive::{RecordRef, Records};
use crate::kernels::lz4::{encode_page_level, lz4_decompress_block, Lz4Level, PageEncoding};
use crate::PAGE_SIZE;

/// Compresses `pages` with the kernels' algorithm at `level` on every core: byte-identical to the
/// kernels at that level.
pub fn compress(pages: &[Page], level: Lz4Level) -> Vec<Record> {
    parallel_map(pages, |p| record_of(encode_page_level(p, level), p))
}

/// Decodes `records` into `out` (same length) on every core.
pub fn decompress(records: &[Record], out: &mut [Page]) -> Result<(), DecodeError> {
    decompress_records(&records, 0, out)
}

/// Decodes records `first..first + out.len()` of `records` into `out` on every core (rayon); a
/// [`DecodeError`]'s index counts from `first`. The first malformed page (lowest index) is reported.
pub fn decompress_records(
    records: &dyn Records,
    first: usize,
    out: &mut [Page],
) -> Result<(), DecodeError> {
    decode_all(records, first, out, |block, page| {
        lz4_decompress_block(block, page).map_err(|e| e.to_string())
    })
}

/// The record of an encoding from the reference algorithm (the kernels' format).
pub fn record_of(encoding: PageEncoding, page: &Page) -> Record {
    match encoding {
        PageEncoding::Lz4(block) => Record::Lz4(block),
        PageEncoding::Raw => Record::Raw(Box::new(*page)),
        PageEncoding::SameFilled(pattern) => Record::SameFilled(pattern),
    }
}

/// Runs `f` over `items` on every core (rayon), keeping order.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    items.par_iter().map(&f).collect()
}

/// Decodes records `first..` of `records` into `out` (as many as both have), LZ4 records with
/// `decode` (which returns the decoded length), others directly, on every core (rayon). A block that
/// does not decode to exactly one page is an error; the first malformed page (lowest index, counted
/// from `first`) is reported.
pub fn decode_all(
    records: &dyn Records,
    first: usize,
    out: &mut [Page],
    decode: impl Fn(&[u8], &mut Page) -> Result<usize, String> + Sync,
) -> Result<(), DecodeError> {
    let n = out.len().min(records.count().saturating_sub(first));
    let errors: Vec<DecodeError> = out[..n]
        .par_iter_mut()
        .enumerate()
        .filter_map(|(index, page)| {
            let block = match records.record(first + index) {
                RecordRef::Lz4(block) => block,
                simple => {
                    fill_ref(simple, page);
                    return None;
                }
            };
            let detail = match decode(block, page) {
                Ok(PAGE_SIZE) => return None,
                Ok(n) => format!("the LZ4 block decodes to {n} bytes, not a page"),
                Err(e) => e,
            };
            Some(DecodeError { index, detail })
        })
        .collect();
    // rayon's collect keeps the items' order: the first error is the lowest index.
    errors.into_iter().next().map_or(Ok(()), Err)
}
