//! What the batch API's calls take and write: [`PageInput`] (pages in any memory, [`HostPages`] of
//! the compressor's pool, or the caller's [`RegisteredPages`]) and [`PageOutput`].

use super::host_pages::HostPages;
use super::registered::{RegisteredPages, Registration};
use crate::codec::Page;

/// What [`compress_batch`](super::GpuBatchCompressor::compress_batch) takes: pages in any memory
/// (`[Page]`, `Vec<Page>`, `[Page; N]`), or [`HostPages`] and [`RegisteredPages`], which the
/// compressor that gave them out or registered them uploads without a staging copy.
pub trait PageInput {
    /// The pages.
    fn pages(&self) -> &[Page];
    /// The pages as [`HostPages`], when they are.
    fn host_pages(&self) -> Option<&HostPages> {
        None
    }
    /// The pages' registration, when they are [`RegisteredPages`].
    fn registration(&self) -> Option<&Registration> {
        None
    }
}

impl PageInput for [Page] {
    fn pages(&self) -> &[Page] {
        self
    }
}

impl PageInput for Vec<Page> {
    fn pages(&self) -> &[Page] {
        self
    }
}

impl<const N: usize> PageInput for [Page; N] {
    fn pages(&self) -> &[Page] {
        self
    }
}

impl PageInput for HostPages {
    fn pages(&self) -> &[Page] {
        self
    }

    fn host_pages(&self) -> Option<&HostPages> {
        Some(self)
    }
}

/// Where [`decompress_into`](super::GpuBatchCompressor::decompress_into) writes: pages in any memory
/// (`[Page]`, `Vec<Page>`, `[Page; N]`), or [`HostPages`] and [`RegisteredPages`], which the
/// compressor that gave them out or registered them downloads into directly.
pub trait PageOutput {
    /// The pages.
    fn pages_mut(&mut self) -> &mut [Page];
    /// The pages as [`HostPages`], when they are.
    fn host_pages_mut(&mut self) -> Option<&mut HostPages> {
        None
    }
    /// The pages' registration and the pages, when they are [`RegisteredPages`].
    fn registered_mut(&mut self) -> Option<(&Registration, &mut [Page])> {
        None
    }
}

impl PageOutput for [Page] {
    fn pages_mut(&mut self) -> &mut [Page] {
        self
    }
}

impl PageOutput for Vec<Page> {
    fn pages_mut(&mut self) -> &mut [Page] {
        self
    }
}

impl<const N: usize> PageOutput for [Page; N] {
    fn pages_mut(&mut self) -> &mut [Page] {
        self
    }
}

impl PageOutput for HostPages {
    fn pages_mut(&mut self) -> &mut [Page] {
        self
    }

    fn host_pages_mut(&mut self) -> Option<&mut HostPages> {
        Some(self)
    }
}

impl PageInput for RegisteredPages<'_> {
    fn pages(&self) -> &[Page] {
        self.pages
    }

    fn registration(&self) -> Option<&Registration> {
        Some(&self.registration)
    }
}

impl PageOutput for RegisteredPages<'_> {
    fn pages_mut(&mut self) -> &mut [Page] {
        self.pages
    }

    fn registered_mut(&mut self) -> Option<(&Registration, &mut [Page])> {
        Some((&self.registration, self.pages))
    }
}
