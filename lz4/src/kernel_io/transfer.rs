//! The host side of a page-kernel launch: the buffers of a compress and of a decompress launch,
//! records filled directly (raw, same-filled pages), the LZ4 blocks of a batch gathered for the
//! decompress kernel and its status words turned into pages or a [`DecodeError`].

use super::meta::record_from_meta;
use super::page::Page;
use super::KernelIoError;
use crate::archive::{Record, RecordRef};
use crate::kernels::lz4::{compress_scratch_bytes, decode_status, Lz4Level, BLOCKS_ALIGN};
use crate::runtime::BufferArg;
use crate::PAGE_SIZE;

/// A page that could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// Index of the page within the batch.
    pub index: usize,
    /// What was wrong.
    pub detail: String,
}

/// Fills `out` from a non-LZ4 record; `false` for an LZ4 record.
pub fn fill_simple(record: &Record, out: &mut Page) -> bool {
    match record {
        Record::Raw(page) => out.copy_from_slice(&page[..]),
        Record::SameFilled(pattern) => {
            for chunk in out.chunks_exact_mut(8) {
                chunk.copy_from_slice(&pattern.to_le_bytes());
            }
        }
        Record::Lz4(_) => return false,
    }
    true
}

/// Fills `out` from a non-LZ4 record; `false` for an LZ4 record ([`fill_simple`] on a borrowed
/// record).
pub fn fill_ref(record: RecordRef<'_>, out: &mut Page) -> bool {
    match record {
        RecordRef::Raw(page) => out.copy_from_slice(page),
        RecordRef::SameFilled(pattern) => {
            for chunk in out.chunks_exact_mut(8) {
                chunk.copy_from_slice(&pattern.to_le_bytes());
            }
        }
        RecordRef::Lz4(_) => return false,
    }
    true
}

fn word(bytes: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().expect("4 bytes"))
}

/// One batch through the compress kernel at `level` (one warp per page): builds its buffers (pages in,
/// 4 KiB output slots and 16-byte meta words out, the kernel's scratch), calls `launch(buffers, pages)`
/// and reads the records. `launch`'s result rides along.
pub fn compress_through<T: Default>(
    pages: &[Page],
    level: Lz4Level,
    launch: impl FnOnce(&mut [BufferArg<'_>], u32) -> Result<T, KernelIoError>,
) -> Result<(Vec<Record>, T), KernelIoError> {
    if pages.is_empty() {
        return Ok((Vec::new(), T::default()));
    }
    let input: Vec<u8> = pages.as_flattened().to_vec();
    let mut output = vec![0u8; pages.len() * PAGE_SIZE];
    let mut meta = vec![0u8; pages.len() * 16];
    let mut scratch = vec![0u8; compress_scratch_bytes(level, pages.len())];
    let mut buffers = [
        BufferArg::ReadOnly(&input),
        BufferArg::ReadWrite(&mut output),
        BufferArg::ReadWrite(&mut meta),
        BufferArg::ReadWrite(&mut scratch),
    ];
    let extra = launch(&mut buffers, pages.len() as u32)?;
    let records = pages
        .iter()
        .enumerate()
        .map(|(i, page)| {
            let words = [0, 1, 2, 3].map(|k| word(&meta, 4 * i + k));
            record_from_meta(words, page, |len| {
                output[i * PAGE_SIZE..i * PAGE_SIZE + len].to_vec()
            })
            .map_err(|detail| KernelIoError::Meta { page: i, detail })
        })
        .collect::<Result<Vec<Record>, KernelIoError>>()?;
    Ok((records, extra))
}

/// One batch through the decompress kernel: fills raw and same-filled pages directly, gathers the LZ4
/// blocks, calls `launch(buffers, blocks)` (blocks and spans in, pages and status words out) when
/// there is any, and scatters the pages or names the first malformed block.
pub fn decompress_through<T: Default>(
    records: &[Record],
    out: &mut [Page],
    launch: impl FnOnce(&mut [BufferArg<'_>], u32) -> Result<T, KernelIoError>,
) -> Result<(Result<(), DecodeError>, T), KernelIoError> {
    let blocks = gather_lz4(records, out);
    if blocks.pages.is_empty() {
        return Ok((Ok(()), T::default()));
    }
    let spans: Vec<u8> = blocks.spans.iter().flat_map(|w| w.to_le_bytes()).collect();
    let n = blocks.pages.len();
    let mut decoded = vec![0u8; n * PAGE_SIZE];
    let mut status = vec![0u8; n * 4];
    let mut buffers = [
        BufferArg::ReadOnly(&blocks.data),
        BufferArg::ReadOnly(&spans),
        BufferArg::ReadWrite(&mut decoded),
        BufferArg::ReadWrite(&mut status),
    ];
    let extra = launch(&mut buffers, n as u32)?;
    Ok((
        scatter_decoded(&blocks, |k| word(&status, k), &decoded, out),
        extra,
    ))
}

/// The LZ4 blocks of a batch, as the decompress kernel takes them.
pub struct Lz4Blocks {
    /// Index in the batch of each block's page.
    pub pages: Vec<usize>,
    /// The blocks back to back, zero-padded to a multiple of [`BLOCKS_ALIGN`] bytes (at least one
    /// group, so the buffer is never empty): the kernel reads it in aligned 16-byte groups.
    pub data: Vec<u8>,
    /// (offset, length) in `data` of each block.
    pub spans: Vec<u32>,
}

/// Fills the non-LZ4 pages of `out` and gathers the LZ4 blocks.
pub fn gather_lz4(records: &[Record], out: &mut [Page]) -> Lz4Blocks {
    let mut blocks = Lz4Blocks {
        pages: Vec::new(),
        data: Vec::new(),
        spans: Vec::new(),
    };
    for (i, (record, page)) in records.iter().zip(out.iter_mut()).enumerate() {
        if let Record::Lz4(block) = record {
            blocks.pages.push(i);
            blocks
                .spans
                .extend_from_slice(&[blocks.data.len() as u32, block.len() as u32]);
            blocks.data.extend_from_slice(block);
        } else {
            fill_simple(record, page);
        }
    }
    pad_blocks(&mut blocks.data);
    blocks
}

/// Zero-pads the decompress kernel's `blocks` buffer to a whole number of 16-byte groups (at least
/// one).
pub fn pad_blocks(data: &mut Vec<u8>) {
    let len = data.len().div_ceil(BLOCKS_ALIGN).max(1) * BLOCKS_ALIGN;
    data.resize(len, 0);
}

/// What a decompress kernel status word says is wrong with its block (code in the low byte, where
/// decoding stopped above it); `None` when the block decoded to one page.
pub fn status_error(status: u32) -> Option<String> {
    let reason = match status & 0xff {
        decode_status::OK => return None,
        decode_status::TRUNCATED => "a length or the literals run past the end of the block",
        decode_status::BAD_OFFSET => "a match offset is 0 or points before the page",
        decode_status::OVERFLOW => "the block decodes to more than a page",
        decode_status::TOO_LONG => "the block is longer than any block of one page",
        decode_status::OVERRUN => {
            "the block's output would overwrite its own unread bytes, which no block of one page \
             does (the CPU decoder names the error)"
        }
        _ => "the block ends with a match or decodes to less than a page",
    };
    Some(format!(
        "malformed LZ4 block at byte {}: {reason}",
        status >> 8
    ))
}

/// Copies each decoded page to `out`, or names the first malformed block (`status(k)` is block k's
/// status word: code in the low byte, where decoding stopped above it).
pub fn scatter_decoded(
    blocks: &Lz4Blocks,
    status: impl Fn(usize) -> u32,
    decoded: &[u8],
    out: &mut [Page],
) -> Result<(), DecodeError> {
    for (k, &i) in blocks.pages.iter().enumerate() {
        if let Some(detail) = status_error(status(k)) {
            return Err(DecodeError { index: i, detail });
        }
        out[i].copy_from_slice(&decoded[k * PAGE_SIZE..(k + 1) * PAGE_SIZE]);
    }
    Ok(())
}
