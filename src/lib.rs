//! warpforge: write GPU kernels once in a typed Rust IR, emit them as PTX and WGSL, lint them, run them.
//!
//! This façade re-exports the workspace crates and owns the catalog of kernels the `warpforge` command
//! line knows by name.
//!
//! | crate | re-exported as | owns |
//! |---|---|---|
//! | `warpforge-ir` | [`ir`] | the typed IR, builder, verifier, `.wfir` text form, sample kernels |
//! | `warpforge-ptx` | [`ptx`] | IR → PTX |
//! | `warpforge-wgsl` | [`wgsl`] | IR → naga → WGSL |
//! | `warpforge-analysis` | [`analysis`] | CFG, divergence, hazard lints |
//! | `warpforge-runtime` | [`runtime`] | the WebGPU runtime, stage clocks, the CUDA driver bindings |

#![deny(missing_docs)]

pub use warpforge_analysis as analysis;
pub use warpforge_ir as ir;
pub use warpforge_ptx as ptx;
pub use warpforge_runtime as runtime;
pub use warpforge_wgsl as wgsl;

pub mod archive;
pub mod auto;
mod backend;
pub mod bench;
pub mod bench_stats;
pub mod catalog;
pub mod codec;
pub mod demo;
pub mod emit_output;
pub mod gpu;
pub mod host_bench;
pub mod kernel_io;
pub mod pipeline;

pub mod kernels;

pub use backend::Backend;

/// Bytes in a memory page.
pub const PAGE_SIZE: usize = kernels::lz4::PAGE_SIZE;

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

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
