//! The compress kernel's meta words, decoded in one place: 4 little-endian `u32` per page — kind
//! (0 LZ4, 1 raw, 2 same-filled), the LZ4 block's length, and the same-filled pattern's low and high
//! words. The CUDA ring reads them to place each block before it downloads the compressed bytes; every
//! backend reads them to build the records.

use crate::archive::Record;
use crate::kernel_io::Page;
use crate::PAGE_SIZE;

/// What the compress kernel says about one page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageMeta {
    /// An LZ4 block of this many bytes (less than a page) in the page's output slot.
    Lz4(usize),
    /// The page is stored as it is.
    Raw,
    /// Every 8-byte word of the page is this pattern.
    SameFilled(u64),
}

impl PageMeta {
    /// Decodes a page's 4 meta words; `Err` names a kind or length the kernel never writes.
    pub fn decode([kind, len, lo, hi]: [u32; 4]) -> Result<PageMeta, String> {
        match kind {
            0 if (len as usize) < PAGE_SIZE => Ok(PageMeta::Lz4(len as usize)),
            1 => Ok(PageMeta::Raw),
            2 => Ok(PageMeta::SameFilled(u64::from(lo) | u64::from(hi) << 32)),
            _ => Err(format!(
                "the compress kernel reported kind {kind}, length {len}"
            )),
        }
    }

    /// Bytes of compressed output the page needs downloaded (its LZ4 block; 0 otherwise).
    pub fn block_len(self) -> usize {
        match self {
            PageMeta::Lz4(len) => len,
            PageMeta::Raw | PageMeta::SameFilled(_) => 0,
        }
    }
}

/// The record that a page's 4 meta words describe; `block(len)` gives an LZ4 page's `len` bytes. `Err`
/// names a kind or length the kernel never writes.
pub fn record_from_meta(
    meta: [u32; 4],
    page: &Page,
    block: impl FnOnce(usize) -> Vec<u8>,
) -> Result<Record, String> {
    Ok(match PageMeta::decode(meta)? {
        PageMeta::Lz4(len) => Record::Lz4(block(len)),
        PageMeta::Raw => Record::Raw(Box::new(*page)),
        PageMeta::SameFilled(pattern) => Record::SameFilled(pattern),
    })
}

#[cfg(test)]
mod tests {
    use super::PageMeta;

    #[test]
    fn meta_words_decode_and_bad_ones_are_named() {
        assert_eq!(PageMeta::decode([0, 17, 0, 0]), Ok(PageMeta::Lz4(17)));
        assert_eq!(PageMeta::decode([1, 0, 0, 0]), Ok(PageMeta::Raw));
        assert_eq!(
            PageMeta::decode([2, 0, 0xdead_beef, 1]),
            Ok(PageMeta::SameFilled(0x1_dead_beef))
        );
        assert!(PageMeta::decode([0, 4096, 0, 0])
            .unwrap_err()
            .contains("kind 0, length 4096"));
        assert!(PageMeta::decode([3, 0, 0, 0]).is_err());
    }
}
