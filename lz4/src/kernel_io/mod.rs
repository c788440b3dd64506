//! What every backend of the LZ4 warp kernels does around them, defined once: the buffers of a compress
//! and of a decompress launch, the compress kernel's meta words read as records ([`meta`]), the LZ4
//! blocks of a batch gathered for the decompress kernel (raw and same-filled pages filled directly),
//! its per-block status words turned into pages or a [`DecodeError`] that says which page and why, and
//! the kernels loaded on any runtime launcher ([`Lz4Kernels`]). The codecs and the GPU batch API build
//! on this module; it depends on neither.

mod error;
mod lz4_kernels;
pub mod meta;
mod page;
pub mod reference;
mod transfer;

pub use error::KernelIoError;
pub use lz4_kernels::Lz4Kernels;
pub use meta::{record_from_meta, PageMeta};
pub use page::{pages_of, pages_of_mut, Page};
pub use transfer::*;
