//! `warpforge-runtime`: backends that load and launch emitted kernels (CPU, WebGPU via wgpu, CUDA via
//! cudarc), the batch compressor, device discovery and timing.
//!
//! The backends land with the runtime issues; until then the crate only anchors the workspace layout.

#![deny(missing_docs)]
