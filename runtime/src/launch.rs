//! One launch API over every backend: [`Launcher`] (implemented by the simulator, a WebGPU device and a
//! CUDA device), [`Loaded`] (a kernel prepared for one launcher), [`Launched`] (what a launch returns:
//! the stage timings with their clocks, and the simulator's report on `sim`), [`LaunchError`].
//!
//! ```
//! use warpforge_ir::{samples, verify};
//! use warpforge_runtime::{open, Backend, BufferArg};
//!
//! let kernel = (samples::ALL[0].build)();
//! let verified = verify(&kernel).unwrap();
//! // Any backend: Backend::Sim runs everywhere; WebGpu and Cuda need a device.
//! let launcher = open(Backend::Sim, &[&verified]).unwrap();
//! let loaded = launcher.load(&verified).unwrap();
//! assert_eq!(loaded.kernel().name, kernel.name);
//! ```
//!
//! Arguments are the same on every backend: the buffer parameters in parameter order as
//! [`BufferArg`]s (little-endian elements; `ReadWrite` slices receive the buffer after the kernel), the
//! scalar parameters' bits in parameter order (`warpforge_ir::Literal::to_bits`), and a number of
//! blocks; the block shape and shared memory come from the kernel.

use std::fmt;
use std::str::FromStr;

use warpforge_ir::{Kernel, Verified};
use warpforge_wgsl::{Requirements, Wgsl};

use crate::cuda::{CudaDevice, CudaError, CudaKernel};
use crate::sim::{SimError, SimLauncher, SimReport};
use crate::webgpu::{WebGpuDevice, WebGpuError};
use crate::{BufferArg, Timings};

/// Where a kernel launches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The CPU simulator: the IR executed with warp semantics, sanitizer and counters.
    Sim,
    /// A WebGPU adapter through wgpu, from the kernel's WGSL.
    WebGpu,
    /// A CUDA GPU through the driver API, from the kernel's PTX.
    Cuda,
}

impl Backend {
    /// Every backend, in the order of the documentation.
    pub const ALL: [Backend; 3] = [Backend::Sim, Backend::WebGpu, Backend::Cuda];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Sim => "sim",
            Backend::WebGpu => "webgpu",
            Backend::Cuda => "cuda",
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Backend {
    type Err = String;

    fn from_str(s: &str) -> Result<Backend, String> {
        Backend::ALL
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| format!("unknown backend `{s}`; valid backends: sim, webgpu, cuda"))
    }
}

/// Why a launch (or opening a launcher, or loading a kernel) failed, with the backend's own error.
#[derive(Clone, Debug)]
pub enum LaunchError {
    /// From the simulator.
    Sim(SimError),
    /// From the WebGPU backend.
    WebGpu(WebGpuError),
    /// From the CUDA backend.
    Cuda(CudaError),
    /// A kernel loaded by one launcher was launched on another.
    WrongLauncher {
        /// The kernel.
        kernel: String,
        /// Where it was loaded.
        loaded: Backend,
        /// Where it was launched.
        launched: Backend,
    },
}

impl LaunchError {
    /// Whether the caller's arguments are at fault (rather than the kernel or the device).
    pub fn is_arguments(&self) -> bool {
        matches!(
            self,
            LaunchError::Sim(SimError::Arguments(_))
                | LaunchError::WebGpu(WebGpuError::Arguments(_))
                | LaunchError::Cuda(CudaError::Arguments(_))
                | LaunchError::WrongLauncher { .. }
        )
    }

    /// Whether no device of the backend could be opened.
    pub fn is_no_device(&self) -> bool {
        matches!(
            self,
            LaunchError::WebGpu(WebGpuError::NoAdapter | WebGpuError::Unsupported { .. })
                | LaunchError::Cuda(CudaError::NotAvailable(_))
        )
    }
}

impl fmt::Display for LaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaunchError::Sim(e) => e.fmt(f),
            LaunchError::WebGpu(e) => e.fmt(f),
            LaunchError::Cuda(e) => e.fmt(f),
            LaunchError::WrongLauncher {
                kernel,
                loaded,
                launched,
            } => write!(
                f,
                "kernel `{kernel}` was loaded for {loaded} and launched on {launched}"
            ),
        }
    }
}

impl std::error::Error for LaunchError {}

impl From<SimError> for LaunchError {
    fn from(e: SimError) -> Self {
        LaunchError::Sim(e)
    }
}

impl From<WebGpuError> for LaunchError {
    fn from(e: WebGpuError) -> Self {
        LaunchError::WebGpu(e)
    }
}

impl From<CudaError> for LaunchError {
    fn from(e: CudaError) -> Self {
        LaunchError::Cuda(e)
    }
}

/// A kernel prepared for one launcher: verified IR plus what the backend built from it (nothing for the
/// simulator, the WGSL for WebGPU, the loaded PTX module for CUDA).
pub struct Loaded {
    kernel: Kernel,
    pub(crate) form: Form,
}

pub(crate) enum Form {
    Ir,
    Wgsl(Box<Wgsl>),
    Cuda(Box<CudaKernel>),
}

impl Loaded {
    pub(crate) fn new(kernel: &Verified<'_>, form: Form) -> Loaded {
        Loaded {
            kernel: Kernel::clone(kernel),
            form,
        }
    }

    /// The kernel's IR.
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// The backend it was prepared for.
    pub fn backend(&self) -> Backend {
        match self.form {
            Form::Ir => Backend::Sim,
            Form::Wgsl(_) => Backend::WebGpu,
            Form::Cuda(_) => Backend::Cuda,
        }
    }

    /// The WGSL it runs as (WebGPU).
    pub fn wgsl(&self) -> Option<&Wgsl> {
        match &self.form {
            Form::Wgsl(wgsl) => Some(wgsl),
            _ => None,
        }
    }

    /// The loaded PTX module (CUDA).
    pub fn cuda(&self) -> Option<&CudaKernel> {
        match &self.form {
            Form::Cuda(kernel) => Some(kernel),
            _ => None,
        }
    }

    pub(crate) fn wrong_launcher(&self, launched: Backend) -> LaunchError {
        LaunchError::WrongLauncher {
            kernel: self.kernel.name.clone(),
            loaded: self.backend(),
            launched,
        }
    }
}

/// What a launch returns besides the output buffers (the [`BufferArg::ReadWrite`] slices): the stage
/// timings with their clocks and, on the simulator, its report (findings and counters).
#[derive(Clone, Debug, Default)]
pub struct Launched {
    /// Upload, kernel and download times, each with its clock.
    pub timings: Timings,
    /// The simulator's findings and counters (`sim` only). A launch with error-level findings still
    /// returns `Ok`: the buffers hold what the kernel wrote, and the report says what went wrong.
    pub sim: Option<SimReport>,
}

/// A backend that launches kernels: the simulator ([`SimLauncher`]), a [`WebGpuDevice`] or a
/// [`CudaDevice`]. Load a kernel once, launch it any number of times.
pub trait Launcher {
    /// Which backend.
    fn backend(&self) -> Backend;
    /// The backend and device, e.g. `webgpu on llvmpipe (vulkan)`.
    fn describe(&self) -> String;
    /// The device's own name (the adapter's, the CUDA device's, `CPU simulator`).
    fn device_name(&self) -> String;
    /// Prepares `kernel` for this launcher (emits and compiles it where the backend needs that).
    fn load(&self, kernel: &Verified<'_>) -> Result<Loaded, LaunchError>;
    /// Runs a loaded kernel over `blocks` blocks (see the module docs for the arguments).
    fn launch(
        &self,
        kernel: &Loaded,
        blocks: u32,
        buffers: &mut [BufferArg<'_>],
        scalars: &[u64],
    ) -> Result<Launched, LaunchError>;
}

/// Opens `backend` for `kernels`: the simulator with its default options, the first WebGPU adapter
/// (hardware before software) that meets every kernel's requirements, or the first supported CUDA
/// device.
pub fn open(backend: Backend, kernels: &[&Verified<'_>]) -> Result<Box<dyn Launcher>, LaunchError> {
    Ok(match backend {
        Backend::Sim => Box::new(SimLauncher::default()),
        Backend::WebGpu => {
            let mut needs = Requirements {
                workgroup_storage_bytes: 0,
                invocations_per_workgroup: 0,
                storage_buffers: 0,
                shader_int64: false,
            };
            for kernel in kernels {
                needs = joint(&needs, &emit_wgsl(kernel)?.requirements);
            }
            Box::new(WebGpuDevice::new(&needs)?)
        }
        Backend::Cuda => {
            let index = match crate::cuda::cuda_probe() {
                Ok(device) => device.index,
                Err(why) => return Err(CudaError::NotAvailable(why.clone()).into()),
            };
            Box::new(CudaDevice::new(index)?)
        }
    })
}

/// The WGSL of `kernel`, or why it has none.
pub(crate) fn emit_wgsl(kernel: &Verified<'_>) -> Result<Wgsl, WebGpuError> {
    warpforge_wgsl::emit(kernel)
        .map_err(|e| WebGpuError::Emit(format!("kernel `{}`: {e}", kernel.name)))
}

/// What a device needs to run kernels with requirements `a` and `b`.
pub fn joint(a: &Requirements, b: &Requirements) -> Requirements {
    Requirements {
        workgroup_storage_bytes: a.workgroup_storage_bytes.max(b.workgroup_storage_bytes),
        invocations_per_workgroup: a.invocations_per_workgroup.max(b.invocations_per_workgroup),
        storage_buffers: a.storage_buffers.max(b.storage_buffers),
        shader_int64: a.shader_int64 || b.shader_int64,
    }
}
