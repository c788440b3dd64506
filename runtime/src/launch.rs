//! One launch API over every backend: [`Launcher`] (the simulator, a WebGPU device or a CUDA device),
//! [`Loaded`] (a kernel prepared for one launcher), [`Launched`] (what a launch returns: the stage
//! timings with their clocks, and the simulator's report on `sim`), [`LaunchError`].
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

use warpforge_ir::{verify, Kernel, ParamKind, Verified};
use warpforge_ptx::{EmitError, Sm};
use warpforge_wgsl::{Requirements, Wgsl};

use crate::cuda::{CudaDevice, CudaError, CudaKernel};
use crate::sim::ptx::{PtxArg, PtxError, PtxKernel, PtxLaunch};
use crate::sim::{SimError, SimOptions, SimReport};
use crate::webgpu::{Dispatch, ResidentBuffer, WebGpuDevice, WebGpuError};
use crate::{BufferArg, Clock, Timings};

/// Where a kernel launches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The CPU simulator: the IR executed with warp semantics, sanitizer and counters.
    Sim,
    /// A WebGPU adapter through wgpu, from the kernel's WGSL.
    WebGpu,
    /// A CUDA GPU through the driver API, from the kernel's PTX.
    Cuda,
    /// The kernel's emitted PTX executed by the CPU simulator (`sim::ptx`), standing in for the
    /// CUDA driver: the PTX half checked without a GPU.
    PtxSim,
}

impl Backend {
    /// Every backend, in the order of the documentation.
    pub const ALL: [Backend; 4] = [
        Backend::Sim,
        Backend::PtxSim,
        Backend::WebGpu,
        Backend::Cuda,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Sim => "sim",
            Backend::WebGpu => "webgpu",
            Backend::Cuda => "cuda",
            Backend::PtxSim => "ptx-sim",
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
            .ok_or_else(|| {
                format!("unknown backend `{s}`; valid backends: sim, ptx-sim, webgpu, cuda")
            })
    }
}

/// Why a kernel's PTX cannot be loaded on the PTX simulator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PtxLoadError {
    /// The emitter refused the kernel for that target.
    Emit(EmitError),
    /// The simulator cannot decode the emitted PTX.
    Decode(PtxError),
}

impl fmt::Display for PtxLoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PtxLoadError::Emit(e) => e.fmt(f),
            PtxLoadError::Decode(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for PtxLoadError {}

/// Why a launch (or opening a launcher, or loading a kernel) failed, with the backend's own error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaunchError {
    /// From the simulator.
    Sim(SimError),
    /// From the WebGPU backend.
    WebGpu(WebGpuError),
    /// From the CUDA backend.
    Cuda(CudaError),
    /// The PTX simulator could not load the kernel's emitted PTX (an emitter or simulator gap).
    Ptx {
        /// The kernel.
        kernel: String,
        /// The target it was emitted for.
        sm: Sm,
        /// Why.
        error: PtxLoadError,
    },
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
            LaunchError::Ptx { kernel, sm, error } => {
                write!(
                    f,
                    "kernel `{kernel}`: its PTX for {sm} cannot run on ptx-sim: {error}"
                )
            }
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

impl std::error::Error for LaunchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            // Display shows these errors' own text, so the chain goes on with theirs.
            LaunchError::Sim(e) => e.source(),
            LaunchError::WebGpu(e) => e.source(),
            LaunchError::Cuda(e) => e.source(),
            LaunchError::Ptx { error, .. } => Some(error),
            LaunchError::WrongLauncher { .. } => None,
        }
    }
}

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
    form: Form,
    /// Whether the kernel reads the grid's shape (asked once here, not at every launch).
    grid_dims: bool,
}

enum Form {
    Ir,
    Wgsl(Box<Wgsl>),
    Cuda(Box<CudaKernel>),
    Ptx(Box<LoadedPtx>),
}

/// A kernel's emitted PTX, decoded for the PTX simulator.
struct LoadedPtx {
    kernel: PtxKernel,
    /// The PTX text it was decoded from.
    text: String,
    dynamic_shared: u32,
}

impl Loaded {
    fn new(kernel: &Verified<'_>, form: Form) -> Loaded {
        Loaded {
            kernel: Kernel::clone(kernel),
            form,
            grid_dims: kernel.uses_grid_dims(),
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
            Form::Ptx(_) => Backend::PtxSim,
        }
    }

    /// The PTX text the PTX simulator runs (`ptx-sim`).
    pub fn ptx_text(&self) -> Option<&str> {
        match &self.form {
            Form::Ptx(ptx) => Some(&ptx.text),
            _ => None,
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

    fn wrong_launcher(&self, launched: Backend) -> LaunchError {
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

impl From<Timings> for Launched {
    fn from(timings: Timings) -> Launched {
        Launched { timings, sim: None }
    }
}

/// A backend that launches kernels. Load a kernel once ([`Launcher::load`]), launch it any number of
/// times ([`Launcher::launch`]).
pub enum Launcher {
    /// The CPU simulator, with the options every launch runs with (sanitizer, counters, threads).
    Sim(SimOptions),
    /// A WebGPU device.
    WebGpu(WebGpuDevice),
    /// A CUDA device.
    Cuda(CudaDevice),
    /// The CPU simulator running each kernel's PTX for a target (see [`Backend::PtxSim`]).
    PtxSim(SimOptions, Sm),
}

impl Launcher {
    /// Which backend.
    pub fn backend(&self) -> Backend {
        match self {
            Launcher::Sim(_) => Backend::Sim,
            Launcher::WebGpu(_) => Backend::WebGpu,
            Launcher::Cuda(_) => Backend::Cuda,
            Launcher::PtxSim(..) => Backend::PtxSim,
        }
    }

    /// The device's own name: the adapter's, the CUDA device's, or `CPU simulator`.
    pub fn device_name(&self) -> String {
        match self {
            Launcher::Sim(_) => "CPU simulator".into(),
            Launcher::PtxSim(_, sm) => format!("CPU PTX simulator, {sm}"),
            Launcher::WebGpu(device) => device.adapter().name.clone(),
            Launcher::Cuda(device) => device.info().name.clone(),
        }
    }

    /// The backend and device, e.g. `webgpu on llvmpipe (LLVM 15.0.6, 256 bits) (vulkan)`.
    pub fn describe(&self) -> String {
        match self {
            Launcher::Sim(options) => {
                let sanitizer = if options.sanitize { "on" } else { "off" };
                format!("sim (CPU simulator, sanitizer {sanitizer})")
            }
            Launcher::WebGpu(device) => format!("webgpu on {}", device.adapter().label()),
            Launcher::Cuda(device) => format!("cuda on {}", device.info().label()),
            Launcher::PtxSim(options, sm) => {
                let sanitizer = if options.sanitize { "on" } else { "off" };
                format!("ptx-sim (the {sm} PTX on the CPU simulator, sanitizer {sanitizer})")
            }
        }
    }

    /// The CUDA device, for engines that build on it directly.
    pub fn cuda(&self) -> Option<&CudaDevice> {
        match self {
            Launcher::Cuda(device) => Some(device),
            _ => None,
        }
    }

    /// Prepares `kernel` for this launcher: nothing on the simulator, its WGSL for WebGPU, its PTX for
    /// the device's SM loaded as a module on CUDA, its PTX for the launcher's SM parsed and decoded on
    /// `ptx-sim`.
    pub fn load(&self, kernel: &Verified<'_>) -> Result<Loaded, LaunchError> {
        let form = match self {
            Launcher::Sim(_) => Form::Ir,
            Launcher::WebGpu(device) => {
                Form::Wgsl(Box::new(emit_wgsl_with(kernel, device.warp_lowering())?))
            }
            Launcher::Cuda(device) => Form::Cuda(Box::new(device.load(kernel)?)),
            Launcher::PtxSim(_, sm) => Form::Ptx(Box::new(load_ptx(kernel, *sm)?)),
        };
        Ok(Loaded::new(kernel, form))
    }

    /// Runs a loaded kernel over `blocks` blocks (see the module docs for the arguments). On the
    /// simulator the kernel time is the host clock around the whole launch and there is no transfer;
    /// its report is in [`Launched::sim`].
    pub fn launch(
        &self,
        kernel: &Loaded,
        blocks: u32,
        buffers: &mut [BufferArg<'_>],
        scalars: &[u64],
    ) -> Result<Launched, LaunchError> {
        self.launch_grid(kernel, [blocks, 1, 1], buffers, scalars)
    }

    /// [`Launcher::launch`] over a grid of `grid = [x, y, z]` blocks (`x·y·z` blocks, numbered x
    /// fastest: the kernel's `block_index` is linear, `block_index_x/y/z` its coordinates). A kernel
    /// that does not read the grid's shape cannot tell it from `x·y·z` blocks in one dimension, and
    /// is launched so.
    pub fn launch_grid(
        &self,
        kernel: &Loaded,
        grid: [u32; 3],
        buffers: &mut [BufferArg<'_>],
        scalars: &[u64],
    ) -> Result<Launched, LaunchError> {
        let product = grid.iter().map(|&d| u64::from(d)).product::<u64>();
        let blocks = u32::try_from(product).unwrap_or(u32::MAX);
        let grid = if kernel.grid_dims {
            grid
        } else {
            [blocks, 1, 1]
        };
        match (self, &kernel.form) {
            (Launcher::Sim(options), Form::Ir) => {
                let verified = verify(kernel.kernel()).expect("verified when it was loaded");
                let report = crate::sim::run_grid(&verified, grid, buffers, scalars, options)?;
                let timings = Timings {
                    kernel_ns: report.elapsed_ns,
                    kernel_clock: Clock::HostClock,
                    transfer_clock: Clock::HostClock,
                    ..Timings::default()
                };
                Ok(Launched {
                    timings,
                    sim: Some(report),
                })
            }
            (Launcher::WebGpu(device), Form::Wgsl(wgsl)) => {
                let bits = block_order(kernel.kernel(), wgsl, scalars);
                Ok(device.run_grid(wgsl, grid, buffers, &bits)?.into())
            }
            (Launcher::Cuda(device), Form::Cuda(loaded)) => {
                Ok(device.run_grid(loaded, buffers, scalars, grid)?.into())
            }
            (Launcher::PtxSim(options, _), Form::Ptx(ptx)) => {
                let ir = kernel.kernel();
                let params = ir.params.iter().map(|(_, p)| (p.name.as_str(), p.kind));
                warpforge_sim::check_arguments(&ir.name, params, blocks, buffers, scalars)
                    .map_err(SimError::Arguments)?;
                let mut next_scalar = scalars.iter();
                let args: Vec<PtxArg> = (ir.params.iter())
                    .map(|(_, p)| match p.kind {
                        ParamKind::Buffer { .. } => PtxArg::Buffer,
                        ParamKind::Scalar(_) => {
                            PtxArg::Scalar(next_scalar.next().copied().unwrap_or(0))
                        }
                    })
                    .collect();
                let launch = PtxLaunch {
                    grid,
                    block: ir.block_dims(),
                    dynamic_shared: ptx.dynamic_shared,
                };
                let report = crate::sim::ptx::run(&ptx.kernel, &launch, &args, buffers, options)?;
                let timings = Timings {
                    kernel_ns: report.elapsed_ns,
                    kernel_clock: Clock::HostClock,
                    transfer_clock: Clock::HostClock,
                    ..Timings::default()
                };
                Ok(Launched {
                    timings,
                    sim: Some(report),
                })
            }
            _ => Err(kernel.wrong_launcher(self.backend())),
        }
    }

    /// One launch of `kernel` over `blocks` blocks on buffers that stay on the device (its buffer
    /// parameters in order) with `scalars` (as for [`Launcher::launch`]), submitted without waiting:
    /// WebGPU only (see `webgpu::ResidentBuffer`). No buffer crosses to or from the host.
    /// `WebGpuDevice::finish_dispatch` waits for it and gives the kernel's time.
    ///
    /// # Errors
    ///
    /// [`LaunchError::WrongLauncher`] on any other launcher or for a kernel loaded for another one;
    /// the device's errors.
    pub fn submit_resident(
        &self,
        kernel: &Loaded,
        blocks: u32,
        buffers: &[&ResidentBuffer],
        scalars: &[u64],
    ) -> Result<Dispatch, LaunchError> {
        match (self, &kernel.form) {
            (Launcher::WebGpu(device), Form::Wgsl(wgsl)) => {
                let bits = block_order(kernel.kernel(), wgsl, scalars);
                Ok(device.submit_resident(wgsl, blocks, buffers, &bits)?)
            }
            _ => Err(kernel.wrong_launcher(self.backend())),
        }
    }
}

/// The scalars (given in parameter order) in the order of the WGSL parameter block's members, matched
/// by name; a scalar the WGSL does not use is not in the block. A wrong count is left for the launch's
/// own check to name.
fn block_order(kernel: &Kernel, wgsl: &Wgsl, scalars: &[u64]) -> Vec<u64> {
    let names: Vec<&str> = (kernel.params.iter())
        .filter(|(_, p)| matches!(p.kind, ParamKind::Scalar(_)))
        .map(|(_, p)| p.name.as_str())
        .collect();
    if names.len() != scalars.len() {
        return scalars.to_vec();
    }
    (wgsl.params.members.iter())
        .map(|m| {
            names
                .iter()
                .position(|n| *n == m.name)
                .map_or(0, |i| scalars[i])
        })
        .collect()
}

/// Opens `backend` for `kernels`: the simulator with its default options (`ptx-sim`: for the
/// default target, sm_70), the first WebGPU adapter (hardware before software) that meets every
/// kernel's requirements, or the first supported CUDA device.
pub fn open(backend: Backend, kernels: &[&Verified<'_>]) -> Result<Launcher, LaunchError> {
    Ok(match backend {
        Backend::Sim => Launcher::Sim(SimOptions::default()),
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
            Launcher::WebGpu(WebGpuDevice::new(&needs)?)
        }
        Backend::PtxSim => Launcher::PtxSim(SimOptions::default(), Sm::default()),
        Backend::Cuda => {
            let index = match crate::cuda::cuda_probe() {
                Ok(device) => device.index,
                Err(why) => return Err(CudaError::NotAvailable(why.clone()).into()),
            };
            Launcher::Cuda(CudaDevice::new(index)?)
        }
    })
}

/// `kernel`'s PTX for `sm`, parsed and decoded for the PTX simulator.
fn load_ptx(kernel: &Verified<'_>, sm: Sm) -> Result<LoadedPtx, LaunchError> {
    let fail = |error: PtxLoadError| LaunchError::Ptx {
        kernel: kernel.name.clone(),
        sm,
        error,
    };
    let ptx = warpforge_ptx::emit(kernel, sm).map_err(|e| fail(PtxLoadError::Emit(e)))?;
    let decoded = PtxKernel::load(&ptx.text, &ptx.launch.entry)
        .map_err(|e: PtxError| fail(PtxLoadError::Decode(e)))?;
    Ok(LoadedPtx {
        kernel: decoded,
        text: ptx.text,
        dynamic_shared: ptx.launch.dynamic_shared_bytes,
    })
}

/// The WGSL of `kernel` (warps emulated: what every adapter runs), or why it has none.
pub(crate) fn emit_wgsl(kernel: &Verified<'_>) -> Result<Wgsl, WebGpuError> {
    emit_wgsl_with(kernel, warpforge_wgsl::WarpLowering::Emulated)
}

/// The WGSL of `kernel` with its warp collectives lowered as `warps` says.
fn emit_wgsl_with(
    kernel: &Verified<'_>,
    warps: warpforge_wgsl::WarpLowering,
) -> Result<Wgsl, WebGpuError> {
    warpforge_wgsl::emit_with(kernel, warps).map_err(|error| WebGpuError::Emit {
        kernel: kernel.name.clone(),
        error,
    })
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
