//! `warpforge-runtime`: backends that load and launch emitted kernels (CPU, WebGPU via wgpu, CUDA via
//! cudarc), the batch compressor, device discovery and timing.
//!
//! Done: [`webgpu`], which lists adapters and runs WGSL from `warpforge-wgsl` through wgpu. The CPU and
//! CUDA backends and the batch API land with their runtime issues.

#![deny(missing_docs)]

pub mod webgpu;

/// The CUDA driver bindings the CUDA backend is built on, re-exported so dependents use the same version.
pub use cudarc;
