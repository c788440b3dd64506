//! [`RegisteredPages`]: the caller's own pages registered with a compressor's device
//! ([`GpuBatchCompressor::register`](super::GpuBatchCompressor::register)). On CUDA they are
//! page-locked in place (`cuMemHostRegister`), so `compress_batch` / `compress_into` upload straight
//! from them and `decompress_into` downloads straight into them, with no staging copy and no copy out
//! of a download buffer. Registering pins the memory and takes time: it pays off for a buffer of pages
//! that is reused call after call (a zram-like store's own page pool), not for one call.

use std::any::Any;
use std::fmt;

use crate::codec::Page;

/// A registration held by [`RegisteredPages`]: which engine made it, and what undoes it when dropped
/// (CUDA's `cuMemHostUnregister`; nothing on backends whose copies read any memory).
pub struct Registration {
    engine: u64,
    _held: Option<Box<dyn Any + Send + Sync>>,
}

impl Registration {
    /// A registration by engine `engine` (an id no other engine has); `held` is dropped with it.
    pub(super) fn new(engine: u64, held: impl Any + Send + Sync) -> Registration {
        Registration {
            engine,
            _held: Some(Box::new(held)),
        }
    }

    /// Nothing registered (an engine whose copies need no registration, or no pages).
    pub(super) fn none() -> Registration {
        Registration {
            engine: 0,
            _held: None,
        }
    }

    /// Whether engine `engine` made this registration (then its copies may use the pages in place).
    pub(super) fn is_by(&self, engine: u64) -> bool {
        self.engine != 0 && self.engine == engine
    }
}

/// The caller's pages, registered with a compressor's device until dropped. `Deref` to the pages:
/// read and write them as usual between calls. Pass them to
/// [`compress_batch`](super::GpuBatchCompressor::compress_batch),
/// [`compress_into`](super::GpuBatchCompressor::compress_into) or
/// [`decompress_into`](super::GpuBatchCompressor::decompress_into) of the compressor that registered
/// them; another compressor takes them as ordinary memory.
///
/// Dropping them unregisters the memory. Leaking them (`std::mem::forget`) leaves the memory pinned
/// until the process exits.
pub struct RegisteredPages<'a> {
    // Dropped first: the memory is unregistered while it is still borrowed.
    pub(super) registration: Registration,
    pub(super) pages: &'a mut [Page],
}

impl<'a> RegisteredPages<'a> {
    pub(super) fn new(pages: &'a mut [Page], registration: Registration) -> RegisteredPages<'a> {
        RegisteredPages {
            registration,
            pages,
        }
    }

    /// Whether the compressor's copies read and write the pages where they are: on CUDA (page-locked
    /// in place), WebGPU (written to and read back from the device without the ring's own host
    /// buffers) and the pipeline's CPU stand-ins. `false` on the simulator backend, whose launches
    /// take host bytes anyway, and for no pages.
    pub fn in_place(&self) -> bool {
        self.registration.engine != 0
    }
}

impl std::ops::Deref for RegisteredPages<'_> {
    type Target = [Page];

    fn deref(&self) -> &[Page] {
        self.pages
    }
}

impl std::ops::DerefMut for RegisteredPages<'_> {
    fn deref_mut(&mut self) -> &mut [Page] {
        self.pages
    }
}

impl fmt::Debug for RegisteredPages<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "RegisteredPages({} pages{})",
            self.pages.len(),
            if self.in_place() { ", in place" } else { "" }
        )
    }
}

#[cfg(test)]
#[path = "registered_tests.rs"]
mod tests;
