//! The WebGPU backend: runs WGSL emitted by `warpforge-wgsl` ([`Wgsl`](warpforge_wgsl::Wgsl)) on a
//! WebGPU adapter through wgpu.
//!
//! - [`list_adapters`] lists every adapter wgpu finds on the native backends ([`AdapterSummary`]);
//!   [`find_adapter`] the first that meets a kernel's requirements.
//! - [`WebGpuDevice::new`] opens the first adapter that meets a kernel's
//!   [`Requirements`](warpforge_wgsl::Requirements) (hardware before software), with the adapter's own
//!   limits; when none does, the error names every missing limit with both numbers.
//! - [`WebGpuDevice::run`] checks the arguments against the kernel's layout, uploads the buffers and the
//!   parameter block, takes the kernel's pipeline, dispatches and copies the read-write buffers back.
//! - [`WebGpuDevice::resident_buffer`], [`WebGpuDevice::dispatch_resident`],
//!   [`WebGpuDevice::read_resident`] and [`WebGpuDevice::finish_read`]: buffers that stay on the device
//!   between launches, for a pipeline of batches (`resident.rs`).
//!
//! **Pipeline cache.** Each [`WebGpuDevice`] builds a kernel's shader module, bind group layout and
//! compute pipeline on the kernel's first launch and reuses them for every later launch on that device
//! (from any thread). Entries are keyed by the full WGSL source, the entry point, the SPIR-V words of a
//! launch from SPIR-V ([`WebGpuDevice::run_spirv`]) and the binding layout (each buffer's binding and
//! access, the parameter block's binding), compared in full, so two different kernels never share one; a build that fails is not cached. The cache lives as long as the device.
//!
//! **Timings.** [`WebGpuDevice::run`] returns [`Timings`](crate::Timings): upload and download on the host clock. Where the adapter offers
//! `wgpu::Features::TIMESTAMP_QUERY` (the device is opened with it whenever it is offered), the kernel
//! time is the GPU's own: timestamps written at the beginning and end of the compute pass, resolved and
//! read back with the outputs, times the queue's timestamp period. Otherwise, or when a reading is
//! unusable (end not after start, no period), it is the host clock around the synchronized dispatch.
//! `Timings::kernel_clock` says which clock measured it.
//!
//! Every failure is a [`WebGpuError`]: device work runs inside wgpu error scopes, so a shader that does
//! not compile is `Err(WebGpuError::Validation { .. })` with wgpu's message, never a log line followed by
//! wrong data, and a lost device is `Err(WebGpuError::DeviceLost(..))`, never a panic.
//!
//! Files: `adapters.rs` (discovery, preference order), `requirements.rs` (limits and features),
//! `device.rs` (opening a device, loss and stray errors), `arguments.rs` (launch checks), `pipeline.rs`
//! (shader and pipeline), `cache.rs` (the per-device pipeline cache), `transfer.rs` (upload and
//! read-back), `timestamps.rs` (kernel time from timestamp queries), `run.rs` (one launch), `spirv.rs`
//! (a launch from the kernel's SPIR-V instead of its WGSL, [`WebGpuDevice::run_spirv`]), `scopes.rs`
//! (error scopes), `error.rs`.

mod adapters;
mod arguments;
mod cache;
mod device;
mod error;
mod pipeline;
mod requirements;
mod resident;
mod run;
mod scopes;
mod skip;
mod spirv;
mod subgroups;
mod timestamps;
mod transfer;

pub use adapters::{list_adapters, AdapterSummary};
pub use arguments::BufferArg;
pub use device::{find_adapter, WebGpuDevice, WARPS_VAR};
pub use error::{AdapterShortfall, WebGpuError};
pub use resident::{Dispatch, KernelTime, Readback, ResidentBuffer};
pub use skip::{require_webgpu, skip_webgpu_test, webgpu_or_skip, REQUIRE_WEBGPU_VAR, WEBGPU_HINT};
pub use subgroups::SubgroupLayout;
