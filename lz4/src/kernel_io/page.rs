//! A page in memory ([`Page`]) and whole pages viewed in a byte buffer.

use crate::PAGE_SIZE;

/// A page in memory.
pub type Page = [u8; PAGE_SIZE];

/// The whole pages at the start of `bytes` (a trailing partial page is left out).
pub fn pages_of(bytes: &[u8]) -> &[Page] {
    let n = bytes.len() / PAGE_SIZE;
    // SAFETY: `Page` is `[u8; PAGE_SIZE]`, with the alignment of `u8`; the first `n * PAGE_SIZE`
    // bytes of `bytes` are `n` such arrays, borrowed for as long as `bytes` is.
    unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<Page>(), n) }
}

/// The whole pages at the start of `bytes`, to write (a trailing partial page is left out).
pub fn pages_of_mut(bytes: &mut [u8]) -> &mut [Page] {
    let n = bytes.len() / PAGE_SIZE;
    // SAFETY: as in `pages_of`; the borrow is unique because `bytes` is.
    unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<Page>(), n) }
}
