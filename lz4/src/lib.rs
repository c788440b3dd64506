//! `warpforge-lz4`: LZ4 compression of 4 KiB memory pages on the GPU (zram-style), checked byte for
//! byte — the product built on warpforge's kernel toolkit.
//!
//! - [`kernels`]: the LZ4 kernels written in warpforge's IR with their CPU references
//!   ([`kernels::lz4`]), and every production kernel behind one [`kernels::Kernel`] trait (launch
//!   shape, PTX, WGSL, barrier safety).
//! - [`codec`]: page codecs behind [`codec::PageCodec`] (the CPU reference, lz4_flex, the kernels on
//!   any runtime backend, the CUDA engine); [`Backend`] names them, [`auto`] picks one.
//! - [`gpu`]: the GPU batch API (`GpuBatchConfig`, `GpuBatchCompressor`, `BatchResult`) and
//!   `DeviceCodec` for pages already on the device.
//! - [`archive`]: the `.wfpa` archive; [`pipeline`]: files through a codec in batches;
//!   [`kernel_io`]: the page kernels' launch shape and meta words.
//!
//! The `warpforge` crate re-exports all of it under the same paths (`warpforge::gpu`, …).

#![deny(missing_docs)]

// The workspace crates under the names the product's modules use (`crate::runtime::…`).
pub(crate) use warpforge_ptx as ptx;
pub(crate) use warpforge_runtime as runtime;
pub(crate) use warpforge_wgsl as wgsl;

pub mod archive;
pub mod auto;
mod backend;
pub mod codec;
pub mod gpu;
pub mod kernel_io;
pub mod kernels;
pub mod pipeline;
mod writeback;

pub use backend::Backend;

/// Bytes in a memory page.
pub use kernels::lz4::PAGE_SIZE;

/// A compressed page, as stored in a `.wfpa` archive and returned by the GPU batch API.
pub type CompressedPage = archive::Record;

/// A compression algorithm of the GPU batch API.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// LZ4 block format, one block per page (with raw and same-filled pages stored as such), at the
    /// default level ([`kernels::lz4::Lz4Level::DEFAULT`]).
    #[default]
    Lz4,
    /// The same format at another level: `Lz4Level::FAST` costs the kernel less, `Lz4Level::HIGH`
    /// finds a little more (docs/lz4.md). Blocks of every level decode the same way.
    Lz4Level(kernels::lz4::Lz4Level),
}

impl Algorithm {
    /// The LZ4 level this algorithm compresses at.
    pub fn lz4_level(self) -> kernels::lz4::Lz4Level {
        match self {
            Algorithm::Lz4 => kernels::lz4::Lz4Level::DEFAULT,
            Algorithm::Lz4Level(level) => level,
        }
    }
}
