//! The WebGPU backend: runs WGSL emitted by `warpforge-wgsl` ([`Wgsl`](warpforge_wgsl::Wgsl)) on a
//! WebGPU adapter through wgpu.
//!
//! - [`list_adapters`] lists every adapter wgpu finds, on every backend ([`AdapterSummary`]).
//! - [`WebGpuDevice::new`] opens the first adapter that meets a kernel's
//!   [`Requirements`](warpforge_wgsl::Requirements) (hardware before software), with the adapter's own
//!   limits; when none does, the error names every missing limit with both numbers.
//! - [`WebGpuDevice::run`] checks the arguments against the kernel's layout, uploads the buffers and the
//!   parameter block, compiles, dispatches and copies the read-write buffers back.
//!
//! Every failure is a [`WebGpuError`]: device work runs inside wgpu error scopes, so a shader that does
//! not compile is `Err(WebGpuError::Validation { .. })` with wgpu's message, never a log line followed by
//! wrong data, and a lost device is `Err(WebGpuError::DeviceLost(..))`, never a panic.
//!
//! Files: `adapters.rs` (discovery, preference order), `requirements.rs` (limits and features),
//! `device.rs` (opening a device, loss and stray errors), `arguments.rs` (launch checks), `pipeline.rs`
//! (shader and pipeline), `transfer.rs` (upload and read-back), `run.rs` (one launch), `scopes.rs`
//! (error scopes), `error.rs`.

mod adapters;
mod arguments;
mod device;
mod error;
mod pipeline;
mod requirements;
mod run;
mod scopes;
mod transfer;

pub use adapters::{list_adapters, AdapterSummary};
pub use arguments::BufferArg;
pub use device::WebGpuDevice;
pub use error::{AdapterShortfall, WebGpuError};
pub use run::LaunchTimings;

/// Environment variable that makes a missing WebGPU adapter a test failure instead of a skip.
pub const REQUIRE_WEBGPU_VAR: &str = "WARPFORGE_REQUIRE_WEBGPU";

/// Whether tests must have a WebGPU adapter: `WARPFORGE_REQUIRE_WEBGPU=1` (CI sets it).
pub fn require_webgpu() -> bool {
    std::env::var(REQUIRE_WEBGPU_VAR).is_ok_and(|value| value == "1")
}
