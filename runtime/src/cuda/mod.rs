//! The CUDA backend on cudarc (driver API, loaded at run time: nothing CUDA-specific is needed to build):
//! warpforge's PTX loaded as a module and launched from its launch metadata.
//!
//! - [`cuda_devices`] describes every device from its attributes ([`CudaDeviceInfo`]: name, memory,
//!   L2, compute capability, multiprocessors, opt-in shared memory); [`cuda_probe`] finds the first
//!   supported one (SM 7.0+) once per process and says why there is none; [`measure_h2d_gbps`] times
//!   pinned host-to-device copies with events.
//! - [`CudaKernel::load`] emits a verified kernel as PTX for the device's SM, refuses it when its shared
//!   memory exceeds what the device allows a block, loads it (a rejection is [`CudaError::Jit`] with the
//!   driver's JIT error log), and opts it in to its dynamic shared memory above 48 KiB;
//!   [`CudaKernel::config`] gives the launch configuration from the kernel's [`LaunchInfo`].
//! - [`CudaDevice::run`] launches a kernel from host bytes to host bytes on the device's stream:
//!   stream-ordered uploads, the launch, downloads of the read-write buffers, each stage between CUDA
//!   events ([`Clock::CudaEvents`](crate::Clock::CudaEvents)).
//! - [`CudaDevice::run_ptx`] launches one entry of anybody's PTX (a user's file) in any 3-D shape, its
//!   parameters given as buffers and scalars in order ([`PtxValue`], [`PtxShape`]).
//! - Every driver failure is a [`CudaError`] naming the call and the `CUresult` by name
//!   ([`cu_result_name`]); [`is_sticky`] says which leave the context unusable.
//!
//! - Engines that pipeline many launches (the LZ4 batch API's DMA ring, its `DeviceCodec`) queue
//!   their own work: [`CudaDevice::new_stream`], [`Stream`] (device memory, copies,
//!   [`Stream::launch`], the one `cuLaunchKernel` of warpforge), [`Event`], [`PinnedBytes`],
//!   [`HostRegistration`] (a caller's memory page-locked in place: [`CudaDevice::register_host`])
//!   (`queue.rs`). Nothing outside this crate calls cudarc.
//!
//! Files: `device.rs` (discovery), `module.rs` (PTX load), `queue.rs` (streams, events, memory, the
//! launch), `run.rs` (one launch from host bytes), `ptx_file.rs` (a PTX file's entry),
//! `error.rs`,
//! `names.rs` (`CUresult` names).
//!
//! [`LaunchInfo`]: warpforge_ptx::LaunchInfo

use std::io::Write;

mod device;
mod error;
mod module;
mod names;
mod ptx_file;
mod queue;
mod run;

pub use device::{
    cuda_devices, cuda_probe, device_info, driver_device_count, measure_h2d_gbps, open_context,
    CudaDeviceInfo,
};
pub use error::{driver_err, CudaError};
pub use module::CudaKernel;
pub use names::{cu_result_name, is_sticky};
pub use ptx_file::{PtxShape, PtxValue};
pub use queue::{DeviceBytes, Event, HostRegistration, KernelArg, PinnedBytes, Scalar, Stream};
pub use run::CudaDevice;

/// Environment variable that makes a missing CUDA device a test failure instead of a skip (set it on a
/// GPU machine).
pub const REQUIRE_CUDA_VAR: &str = "WARPFORGE_REQUIRE_CUDA";

/// The first supported CUDA device for a test, or `None` after printing a loud skip line naming `test`
/// and why (past libtest's capture, on a line `scripts/test.sh` counts; a failure instead when
/// `WARPFORGE_REQUIRE_CUDA=1`). Not part of the product API.
#[doc(hidden)]
pub fn cuda_or_skip(test: &str) -> Option<&'static CudaDeviceInfo> {
    match cuda_probe() {
        Ok(device) => Some(device),
        Err(why) => {
            assert!(
                std::env::var(REQUIRE_CUDA_VAR).as_deref() != Ok("1"),
                "{test}: {REQUIRE_CUDA_VAR}=1 but there is no usable CUDA device: {why}"
            );
            let _ = writeln!(
                std::io::stderr(),
                "\n*** SKIPPED {test}: no usable CUDA device ({why}); it runs on a machine with an \
                 NVIDIA GPU of SM 7.0+ and its driver (scripts/gpu-check.sh) ***\n"
            );
            None
        }
    }
}
