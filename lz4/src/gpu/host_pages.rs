//! [`HostPages`]: pages in host memory that a [`GpuBatchCompressor`](super::GpuBatchCompressor)
//! hands out and takes back. On CUDA the memory is page-locked, so
//! [`compress_batch`](super::GpuBatchCompressor::compress_batch) uploads straight from it (no staging
//! copy) and [`decompress_batch`](super::GpuBatchCompressor::decompress_batch) downloads straight into
//! it; on every backend a dropped `HostPages` returns its memory to the compressor's pool, so the next
//! call reuses memory that is already mapped instead of faulting in fresh pages (which is what a new
//! `Vec` of pages costs: 14–130 ms for 64 MiB on the development VM).

use std::any::Any;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use crate::codec::Page;
use crate::PAGE_SIZE;

use super::driver::HostMemory;
use super::GpuError;

/// Free buffers a pool keeps at most; a buffer returned beyond them is freed.
const KEEP: usize = 4;

/// A unique id for each pool (each engine has one), so a buffer is only ever used directly by the
/// engine whose driver allocated it.
fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// A buffer of a pool, type-erased for [`HostPages`].
trait PoolBuffer: Send + Sync {
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    /// The address of the buffer's first byte.
    fn base(&self) -> *const u8;
    /// The same, to write through.
    fn base_mut(&mut self) -> *mut u8;
    /// Bytes the buffer holds.
    fn bytes(&self) -> usize;
    /// Gives the buffer back to its pool (or frees it when the pool is gone or full).
    fn release(self: Box<Self>);
}

/// One host buffer of type `H` (a driver's page-locked memory, or a vector) and its capacity.
pub(super) struct Pooled<H> {
    pub host: H,
    pages: usize,
    pool: Weak<Mutex<Vec<Pooled<H>>>>,
}

impl<H: HostMemory + Send + Sync + 'static> PoolBuffer for Pooled<H> {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn base(&self) -> *const u8 {
        self.host.base()
    }

    fn base_mut(&mut self) -> *mut u8 {
        self.host.base_mut()
    }

    fn bytes(&self) -> usize {
        self.host.bytes()
    }

    fn release(self: Box<Self>) {
        if let Some(pool) = self.pool.upgrade() {
            let mut free = pool.lock().unwrap_or_else(|e| e.into_inner());
            if free.len() < KEEP {
                free.push(*self);
            }
        }
    }
}

/// The pool of an engine: free buffers of type `H`.
pub(super) struct HostPool<H> {
    id: u64,
    free: Arc<Mutex<Vec<Pooled<H>>>>,
}

impl<H: HostMemory + Send + Sync + 'static> Default for HostPool<H> {
    fn default() -> Self {
        HostPool {
            id: next_id(),
            free: Arc::default(),
        }
    }
}

impl<H: HostMemory + Send + Sync + 'static> HostPool<H> {
    /// `pages` pages from the smallest free buffer that holds them, or from a new buffer of
    /// `alloc(bytes)`.
    pub fn take(
        &self,
        pages: usize,
        alloc: impl FnOnce(usize) -> Result<H, GpuError>,
    ) -> Result<HostPages, GpuError> {
        if pages == 0 {
            return Ok(HostPages::empty());
        }
        let bytes = pages
            .checked_mul(PAGE_SIZE)
            .filter(|&b| b <= isize::MAX as usize)
            .ok_or_else(|| {
                GpuError::Config(format!("{pages} host pages do not fit in an address space"))
            })?;
        let reused = {
            let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
            let best = free
                .iter()
                .enumerate()
                .filter(|(_, b)| b.pages >= pages)
                .min_by_key(|(_, b)| b.pages)
                .map(|(i, _)| i);
            best.map(|i| free.swap_remove(i))
        };
        let buffer = match reused {
            Some(buffer) => buffer,
            None => Pooled {
                host: alloc(bytes)?,
                pages,
                pool: Arc::downgrade(&self.free),
            },
        };
        if buffer.host.bytes() < bytes || buffer.host.base().is_null() {
            return Err(GpuError::Config(format!(
                "a host buffer of {} bytes for {pages} pages",
                buffer.host.bytes()
            )));
        }
        Ok(HostPages {
            len: pages,
            buffer: Some(Box::new(buffer)),
            pool: self.id,
        })
    }

    /// The pool's id: no other pool (and so no other engine) has it.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Frees the buffers given back and not taken again (those still held return as usual).
    pub fn clear(&self) {
        self.free.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// The buffer behind `pages` when this pool gave it out.
    pub fn host<'p>(&self, pages: &'p HostPages) -> Option<&'p H> {
        let buffer = pages.buffer.as_ref()?;
        (pages.pool == self.id)
            .then(|| buffer.as_any().downcast_ref::<Pooled<H>>())
            .flatten()
            .map(|b| &b.host)
    }

    /// The buffer behind `pages`, to write, when this pool gave it out.
    pub fn host_mut<'p>(&self, pages: &'p mut HostPages) -> Option<&'p mut H> {
        let buffer = pages.buffer.as_mut()?;
        (pages.pool == self.id)
            .then(|| buffer.as_any_mut().downcast_mut::<Pooled<H>>())
            .flatten()
            .map(|b| &mut b.host)
    }
}

/// Pages in host memory that a [`GpuBatchCompressor`](super::GpuBatchCompressor) gave out
/// ([`host_pages`](super::GpuBatchCompressor::host_pages),
/// [`decompress_batch`](super::GpuBatchCompressor::decompress_batch)): a slice of pages to read and
/// write (`Deref<Target = [[u8; PAGE_SIZE]]>`), owned, `Send`. On CUDA they are page-locked: the
/// compressor that gave them out uploads from and downloads into them directly. Dropping them returns
/// the memory to that compressor's pool (up to four buffers are kept; the rest is freed), so a
/// streaming caller's next call reuses it. [`HostPages::to_vec`] copies the pages into a `Vec`.
pub struct HostPages {
    /// Pages handed out (the buffer may hold more).
    len: usize,
    /// `None` only for zero pages.
    buffer: Option<Box<dyn PoolBuffer>>,
    pool: u64,
}

impl HostPages {
    fn empty() -> HostPages {
        HostPages {
            len: 0,
            buffer: None,
            pool: 0,
        }
    }

    /// The pages.
    pub fn as_slice(&self) -> &[Page] {
        self
    }

    /// A copy of the pages in an ordinary vector.
    pub fn to_vec(&self) -> Vec<Page> {
        self.as_slice().to_vec()
    }
}

impl std::ops::Deref for HostPages {
    type Target = [Page];

    fn deref(&self) -> &[Page] {
        let Some(buffer) = &self.buffer else {
            return &[];
        };
        // The engine's drivers get the buffer itself (`HostPool::host_mut`): it must still hold the
        // pages (checked when taken; this keeps the unsafe code below from trusting them).
        assert!(
            buffer.bytes() >= self.len * PAGE_SIZE,
            "a host buffer shrank"
        );
        // SAFETY: the buffer this handle owns holds at least `len` pages (just checked; a page is
        // 4096 bytes of alignment 1) at a non-null base derived without a reference to its bytes,
        // every byte is initialized (zeroed or written when allocated), and `&self` rules out a
        // `&mut` to them for the slice's lifetime.
        unsafe { std::slice::from_raw_parts(buffer.base().cast::<Page>(), self.len) }
    }
}

impl std::ops::DerefMut for HostPages {
    fn deref_mut(&mut self) -> &mut [Page] {
        let len = self.len;
        let Some(buffer) = &mut self.buffer else {
            return &mut [];
        };
        assert!(buffer.bytes() >= len * PAGE_SIZE, "a host buffer shrank");
        // SAFETY: as in `deref`; `&mut self` makes this the only reference to the pages.
        unsafe { std::slice::from_raw_parts_mut(buffer.base_mut().cast::<Page>(), len) }
    }
}

impl Drop for HostPages {
    fn drop(&mut self) {
        if let Some(buffer) = self.buffer.take() {
            buffer.release();
        }
    }
}

impl fmt::Debug for HostPages {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HostPages({} pages)", self.len)
    }
}

impl PartialEq for HostPages {
    fn eq(&self, other: &HostPages) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl PartialEq<[Page]> for HostPages {
    fn eq(&self, other: &[Page]) -> bool {
        self.as_slice() == other
    }
}

impl PartialEq<Vec<Page>> for HostPages {
    fn eq(&self, other: &Vec<Page>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl PartialEq<HostPages> for Vec<Page> {
    fn eq(&self, other: &HostPages) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<'a> PartialEq<&'a [Page]> for HostPages {
    fn eq(&self, other: &&'a [Page]) -> bool {
        self.as_slice() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool() -> HostPool<Vec<u8>> {
        HostPool::default()
    }

    fn take(pool: &HostPool<Vec<u8>>, pages: usize) -> HostPages {
        pool.take(pages, |bytes| Ok(vec![0u8; bytes]))
            .expect("memory")
    }

    #[test]
    fn a_dropped_buffer_is_reused_by_the_next_take_that_fits() {
        let pool = pool();
        let mut a = take(&pool, 8);
        a[7][4095] = 9;
        let addr = a.as_ptr();
        drop(a);
        let b = take(&pool, 4); // fits in the freed 8-page buffer
        assert_eq!(b.as_ptr(), addr);
        assert_eq!(b.len(), 4);
        let c = take(&pool, 16); // nothing free fits: a new buffer
        assert_ne!(c.as_ptr(), addr);
        assert_eq!(c.len(), 16);
        assert!(pool.host(&c).is_some());
        assert!(
            HostPool::<Vec<u8>>::default().host(&c).is_none(),
            "another pool's buffer"
        );
    }

    #[test]
    fn a_page_count_beyond_the_address_space_is_an_error() {
        let pool = pool();
        for pages in [usize::MAX / PAGE_SIZE + 2, usize::MAX] {
            let got = pool.take(pages, |_| panic!("nothing is allocated"));
            assert!(matches!(got, Err(GpuError::Config(_))), "{pages}: {got:?}");
        }
    }

    #[test]
    fn the_pool_keeps_a_bounded_number_of_buffers() {
        let pool = pool();
        let all: Vec<_> = (0..KEEP + 3).map(|_| take(&pool, 1)).collect();
        drop(all);
        assert_eq!(pool.free.lock().unwrap().len(), KEEP);
        let held = take(&pool, 1);
        pool.clear();
        assert!(pool.free.lock().unwrap().is_empty());
        drop(held); // given back after the clear: kept again
        assert_eq!(pool.free.lock().unwrap().len(), 1);
    }

    #[test]
    fn host_pages_compare_and_copy_as_pages() {
        let pool = pool();
        let mut p = take(&pool, 2);
        p[0] = [1; PAGE_SIZE];
        p[1] = [2; PAGE_SIZE];
        let v = vec![[1u8; PAGE_SIZE], [2u8; PAGE_SIZE]];
        assert_eq!(p, v);
        assert_eq!(p.to_vec(), v);
        assert!(take(&pool, 0).is_empty());
        // Outliving its pool: freed on drop, not returned.
        drop(pool);
        drop(p);
    }
}
