//! [`WebGpuError`]: everything that can go wrong between picking an adapter and reading results back.
//! Each variant says what failed and where (which adapter, which binding, which stage of a launch).

use std::fmt;

use warpforge_wgsl::WgslError;

/// Why an adapter cannot run a kernel: the adapter and every limit or feature it lacks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdapterShortfall {
    /// The adapter's name and backend, e.g. ``llvmpipe (LLVM 15.0.6, 256 bits) (vulkan)``.
    pub adapter: String,
    /// One line per missing limit or feature, with the adapter's value and the kernel's need, e.g.
    /// `maxComputeWorkgroupStorageSize is 32768 bytes, the kernel needs 1073741824`.
    pub missing: Vec<String>,
}

impl fmt::Display for AdapterShortfall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "adapter `{}`: {}", self.adapter, self.missing.join("; "))
    }
}

/// An error from the WebGPU backend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WebGpuError {
    /// wgpu found no adapter on any backend (no GPU driver and no software Vulkan such as lavapipe).
    NoAdapter,
    /// Adapters exist, but none offers what the kernel needs; one entry per adapter.
    Unsupported {
        /// Each adapter and what it lacks.
        adapters: Vec<AdapterShortfall>,
    },
    /// An adapter meets the requirements but refused to create a device.
    RequestDevice {
        /// The adapter's name and backend.
        adapter: String,
        /// wgpu's message.
        message: String,
    },
    /// The kernel's [`Wgsl`](warpforge_wgsl::Wgsl) layout is inconsistent (duplicate bindings, a parameter
    /// outside the parameter block, ...): a bug in whoever built it.
    Layout(String),
    /// The arguments of a launch do not match the kernel: counts, read-only/read-write kinds, byte
    /// lengths, scalar widths or the grid size.
    Arguments(String),
    /// wgpu rejected something: a shader that does not compile or validate, a pipeline or bind group that
    /// does not match the shader, or a command that breaks WebGPU's rules.
    Validation {
        /// What was being done: `shader module`, `compute pipeline`, `bind group`, `dispatch`, ...
        stage: &'static str,
        /// wgpu's message.
        message: String,
    },
    /// The device ran out of memory.
    OutOfMemory {
        /// What was being done.
        stage: &'static str,
    },
    /// wgpu or the driver failed internally (for example, the backend could not compile the shader).
    Internal {
        /// What was being done.
        stage: &'static str,
        /// wgpu's message.
        message: String,
    },
    /// The device was lost (driver reset, device destroyed); it cannot be used any more.
    DeviceLost(String),
    /// Reading results back failed: a staging buffer could not be mapped.
    Map(String),
    /// The kernel has no WGSL form (`warpforge-wgsl` refused it, e.g. a warp collective under divergence
    /// it cannot emulate).
    Emit {
        /// The kernel.
        kernel: String,
        /// Why the WGSL emitter refused it.
        error: WgslError,
    },
}

impl fmt::Display for WebGpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WebGpuError::NoAdapter => f.write_str(
                "no WebGPU adapter found on any backend (install a GPU driver, or mesa-vulkan-drivers \
                 for the lavapipe software adapter)",
            ),
            WebGpuError::Unsupported { adapters } => {
                f.write_str("no WebGPU adapter can run the kernel")?;
                for shortfall in adapters {
                    write!(f, "\n  {shortfall}")?;
                }
                Ok(())
            }
            WebGpuError::RequestDevice { adapter, message } => {
                write!(f, "adapter `{adapter}` refused to create a device: {message}")
            }
            WebGpuError::Layout(message) => write!(f, "inconsistent WGSL layout: {message}"),
            WebGpuError::Arguments(message) => write!(f, "bad launch arguments: {message}"),
            WebGpuError::Validation { stage, message } => {
                write!(f, "WebGPU validation error in {stage}: {message}")
            }
            WebGpuError::OutOfMemory { stage } => write!(f, "WebGPU device out of memory in {stage}"),
            WebGpuError::Internal { stage, message } => {
                write!(f, "WebGPU internal error in {stage}: {message}")
            }
            WebGpuError::DeviceLost(message) => write!(f, "WebGPU device lost: {message}"),
            WebGpuError::Map(message) => write!(f, "reading results back failed: {message}"),
            WebGpuError::Emit { kernel, error } => {
                write!(f, "cannot run on webgpu: kernel `{kernel}`: {error}")
            }
        }
    }
}

impl std::error::Error for WebGpuError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WebGpuError::Emit { error, .. } => Some(error),
            _ => None,
        }
    }
}
