//! `warpforge-runtime`: launching emitted kernels and timing them.
//!
//! - [`sim`]: the CPU simulator — verified IR executed with warp semantics, a sanitizer
//!   (memcheck, synccheck, racecheck) and execution counters. The definition every other backend is
//!   checked against.
//! - [`webgpu`]: lists adapters and runs WGSL from `warpforge-wgsl` through wgpu, with each kernel's
//!   shader module and pipeline built once per device, and kernel times from GPU timestamp queries
//!   where the adapter offers them.
//! - [`cudarc`]: the CUDA driver bindings, re-exported so that the façade's CUDA engine
//!   (`warpforge::gpu`) builds on the same version.
//! - [`Clock`]: which clock measured a stage time.

#![deny(missing_docs)]

mod buffer_arg;
mod clock;
pub mod sim;
pub mod webgpu;

pub use buffer_arg::BufferArg;
pub use clock::Clock;

/// The CUDA driver bindings the CUDA backend is built on, re-exported so dependents use the same version.
pub use cudarc;
