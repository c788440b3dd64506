//! `warpforge-runtime`: launching any verified kernel, one API over three backends. Nothing in it is
//! specific to a kernel (the LZ4 pipeline lives in the `warpforge` façade, built on this API).
//!
//! - [`Launcher`] ([`launch`]): load a kernel once, launch it over a number of blocks with the same
//!   arguments on every backend ([`BufferArg`]s and scalar bits in parameter order); every launch
//!   returns [`Launched`]: the stage [`Timings`] tagged with their [`Clock`], and on `sim` the
//!   simulator's report. [`open`] opens a backend by name ([`Backend`]).
//! - [`sim`]: the CPU simulator, its own crate (`warpforge-sim`, re-exported here) — verified IR executed with warp semantics, a sanitizer (memcheck,
//!   synccheck, racecheck) and execution counters. The definition every other backend is checked
//!   against. [`sim::ptx`] executes PTX on the same machinery (`ptx-sim`: the emitted PTX of a
//!   kernel, or any PTX module), so the CUDA half is checked without a GPU.
//! - [`webgpu`]: lists adapters and runs WGSL from `warpforge-wgsl` through wgpu, with each kernel's
//!   shader module and pipeline built once per device, and kernel times from GPU timestamp queries
//!   where the adapter offers them.
//! - [`cuda`]: lists CUDA devices with their attributes and runs PTX from `warpforge-ptx` through the
//!   driver API (cudarc, loaded at run time): module load with the JIT log, launch configuration with
//!   the dynamic shared memory opt-in, stream-ordered copies, event timing, `CUresult` names.

#![deny(missing_docs)]

mod clock;
pub mod cuda;
pub mod launch;
pub mod webgpu;

pub use clock::{Clock, Timings};
pub use launch::{open, Backend, LaunchError, Launched, Launcher, Loaded, PtxLoadError};
/// The CPU simulator (`warpforge-sim`), re-exported: the `sim` and `ptx-sim` backends launch through it.
pub use warpforge_sim as sim;
pub use warpforge_sim::BufferArg;

/// The CUDA driver bindings the CUDA backend is built on, re-exported so that engines built on
/// [`cuda`] (the façade's DMA ring) use the same version.
pub use cudarc;
