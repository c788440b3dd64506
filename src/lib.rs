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
//! | `warpforge-lz4` | [`lz4`], and its modules at the top ([`gpu`], [`codec`], [`archive`], [`kernels`], …) | the LZ4 page codecs, the GPU batch API, the `.wfpa` archive |

#![deny(missing_docs)]

pub use warpforge_analysis as analysis;
pub use warpforge_ir as ir;
pub use warpforge_ptx as ptx;
pub use warpforge_runtime as runtime;
pub use warpforge_wgsl as wgsl;

pub use warpforge_lz4 as lz4;
pub use warpforge_lz4::{
    archive, auto, codec, gpu, kernel_io, kernels, pipeline, Algorithm, Backend, CompressedPage,
    PAGE_SIZE,
};

pub mod catalog;
mod sample;

pub use sample::{sample_pages, SAMPLE_ARCHIVE};

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The example of `docs/host-pipeline.md`, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../docs/host-pipeline.md")]
pub struct HostPipelineDocDoctests;

/// The examples of `docs/gpu.md`, compiled as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../docs/gpu.md")]
pub struct GpuDocDoctests;
