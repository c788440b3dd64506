//! How one page is stored: the reference of the compress kernel's per-page result.

use super::{lz4_compress_block_level, lz4_compress_bound, Lz4Level, PAGE_SIZE};

/// The encoding of one page, as the compress kernel reports it (archive record kinds 0, 1, 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PageEncoding {
    /// Kind 0: one raw LZ4 block (shorter than a page) that decodes to the page.
    Lz4(Vec<u8>),
    /// Kind 1: the page does not shrink; it is stored as is.
    Raw,
    /// Kind 2: the page is this 8-byte pattern repeated (zero pages are pattern 0).
    SameFilled(u64),
}

impl PageEncoding {
    /// The archive record kind.
    pub fn kind(&self) -> u8 {
        match self {
            PageEncoding::Lz4(_) => 0,
            PageEncoding::Raw => 1,
            PageEncoding::SameFilled(_) => 2,
        }
    }
}

/// The 8-byte pattern `page` repeats, if it is same-filled.
pub fn same_filled_pattern(page: &[u8; PAGE_SIZE]) -> Option<u64> {
    let first: [u8; 8] = page[..8].try_into().expect("a page holds 8 bytes");
    page.chunks_exact(8)
        .all(|c| c == first)
        .then(|| u64::from_le_bytes(first))
}

/// The encoding the compress kernel produces for `page` at the default level: same-filled pages by
/// pattern, then the LZ4 block of the reference algorithm, or raw when that block is not shorter than
/// the page.
pub fn encode_page(page: &[u8; PAGE_SIZE]) -> PageEncoding {
    encode_page_level(page, Lz4Level::DEFAULT)
}

/// [`encode_page`] at `level`.
pub fn encode_page_level(page: &[u8; PAGE_SIZE], level: Lz4Level) -> PageEncoding {
    if let Some(pattern) = same_filled_pattern(page) {
        return PageEncoding::SameFilled(pattern);
    }
    let mut block = vec![0u8; lz4_compress_bound(PAGE_SIZE)];
    let n = lz4_compress_block_level(page, &mut block, level).expect("the bound always fits");
    if n >= PAGE_SIZE {
        PageEncoding::Raw
    } else {
        block.truncate(n);
        PageEncoding::Lz4(block)
    }
}
