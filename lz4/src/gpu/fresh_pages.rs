//! A fresh vector of zeroed pages for [`super::GpuBatchCompressor::decompress_batch`], whose first
//! writes are cheap. `vec![[0u8; PAGE_SIZE]; n]` writes every zero itself (an array element gets no
//! `calloc` specialization: perf showed `from_elem` → `extend_with` touching all 64 MiB before the
//! decoder wrote them again), so the pages are allocated zeroed instead (`alloc_zeroed`: fresh
//! `mmap` memory for a large vector, untouched until the decoder writes it). Each 4 KiB page still
//! faults on its first write (on the development VM, 64 MiB written into fresh memory took 51 ms
//! against 8 ms into reused memory), so on Linux the 2 MiB-aligned interior is marked
//! `MADV_HUGEPAGE` before anything touches it and faults in 2 MiB at a time (13 ms for the same
//! 64 MiB) wherever transparent huge pages are `always` or `madvise`; elsewhere, and where the kernel
//! declines, it is ordinary memory.

use crate::codec::Page;

/// Below this, huge pages cannot help (one 2 MiB page at most).
const HUGE: usize = 2 << 20;

/// `n` zeroed pages.
pub(super) fn zeroed_pages(n: usize) -> Vec<Page> {
    if n == 0 {
        return Vec::new();
    }
    let layout = std::alloc::Layout::array::<Page>(n).expect("a page count that fits in memory");
    // SAFETY: `layout` has a non-zero size (n > 0, a page is 4096 bytes).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<Page>();
    if ptr.is_null() {
        std::alloc::handle_alloc_error(layout);
    }
    // SAFETY: `ptr` was allocated by the global allocator with the layout of `n` pages
    // (`Layout::array::<Page>(n)`, exactly what a `Vec<Page>` of capacity `n` frees), and all `n`
    // pages are initialized: zero bytes are a valid `[u8; PAGE_SIZE]`.
    let pages = unsafe { Vec::from_raw_parts(ptr, n, n) };
    advise_huge(&pages);
    pages
}

#[cfg(target_os = "linux")]
fn advise_huge(pages: &[Page]) {
    let bytes = std::mem::size_of_val(pages);
    if bytes < 2 * HUGE {
        return;
    }
    let start = pages.as_ptr() as usize;
    let first = start.next_multiple_of(HUGE);
    let end = (start + bytes) / HUGE * HUGE;
    if end <= first {
        return;
    }
    // SAFETY: [first, end) lies inside `pages`' allocation, which this function does not free or
    // move; MADV_HUGEPAGE changes only how the kernel backs the range, never its contents (zeroes
    // read as zeroes either way), and a failure (THP off) is ignored: the memory stays as it is.
    unsafe {
        libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_: &[Page]) {}

#[cfg(test)]
mod tests {
    #[test]
    fn fresh_pages_are_zero_and_writable() {
        let mut pages = super::zeroed_pages(2048); // 8 MiB: the huge-page path
        assert_eq!(pages.len(), 2048);
        assert!(pages.iter().all(|p| p.iter().all(|&b| b == 0)));
        pages[1000][17] = 5;
        assert_eq!(pages[1000][17], 5);
        assert_eq!(super::zeroed_pages(3).len(), 3);
        assert!(super::zeroed_pages(0).is_empty());
        let mut grown = super::zeroed_pages(5);
        grown.push([1; crate::PAGE_SIZE]); // the vector owns a normal allocation
        assert_eq!(grown.len(), 6);
    }
}
