//! [`GpuError`]: what can go wrong on the GPU path, with CUDA errors by name and every other
//! component's error kept whole (its type, reachable through `source()`), never as copied text.

use crate::auto::KernelBuildError;
use crate::kernel_io::KernelIoError;
use crate::runtime::cuda::{cu_result_name, is_sticky, CudaError};
use crate::runtime::webgpu::WebGpuError;
use crate::runtime::LaunchError;

/// A GPU-path failure.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GpuError {
    /// No usable device (no driver, no device, unsupported device), in the batch API's words.
    #[error("no usable GPU: {0}")]
    NotAvailable(String),
    /// An invalid [`super::GpuBatchConfig`].
    #[error("invalid GPU batch configuration: {0}")]
    Config(String),
    /// A CUDA driver call failed.
    #[error("CUDA {call} failed: {} ({code})", cu_result_name(*code).unwrap_or("unknown CUresult"))]
    Cuda {
        /// What was being done.
        call: &'static str,
        /// The `CUresult` code.
        code: u32,
    },
    /// The CUDA backend refused before any driver call failed (no device, a kernel the device
    /// cannot run, the JIT's rejection).
    #[error("no usable GPU: {0}")]
    Device(#[source] CudaError),
    /// The WebGPU backend failed.
    #[error("WebGPU: {0}")]
    WebGpu(#[source] WebGpuError),
    /// A launch through the runtime failed (the simulators' errors; CUDA's and WebGPU's are the
    /// variants above).
    #[error("simulator: {0}")]
    Launch(#[source] LaunchError),
    /// A batch through the page kernels failed after its launch (a simulator finding, a meta word
    /// that does not describe its page).
    #[error(transparent)]
    Kernel(KernelIoError),
    /// An illegal operation on the DMA ring (a bug in the engine).
    #[error("{0}")]
    Ring(#[source] RingError),
    /// A simulated driver (the PTX simulator driven like CUDA, the replay driver) refused an
    /// operation a GPU would fault on: a copy past a buffer's end, a kernel loaded elsewhere.
    #[error("simulator: {0}")]
    Sim(String),
    /// A compressed page is malformed (a data error, not redone on the CPU).
    #[error("page {page}: {detail}")]
    Corrupt {
        /// Index of the page in the call.
        page: usize,
        /// What is wrong.
        detail: String,
    },
    /// The LZ4 kernels cannot be built for the backend (a bug in the kernels or an emitter).
    #[error(transparent)]
    Build(#[from] KernelBuildError),
    /// A failure injected by a test (see `GpuBatchCompressor::inject_faults`).
    #[error("injected fault: {0}")]
    Injected(String),
}

impl GpuError {
    /// A failed CUDA driver call.
    pub fn cuda(call: &'static str, code: u32) -> GpuError {
        GpuError::Cuda { call, code }
    }

    /// Whether no device of the backend could be opened (none, or none that runs the kernels).
    pub fn is_no_device(&self) -> bool {
        matches!(
            self,
            GpuError::NotAvailable(_)
                | GpuError::WebGpu(WebGpuError::NoAdapter | WebGpuError::Unsupported { .. })
        )
    }

    /// Whether the device can no longer be used by this process (a sticky CUDA error, see
    /// [`is_sticky`](crate::runtime::cuda::is_sticky), or a lost WebGPU device): every later batch
    /// must go to the CPU.
    pub fn is_sticky(&self) -> bool {
        match self {
            GpuError::Cuda { code, .. } => is_sticky(*code),
            GpuError::WebGpu(WebGpuError::DeviceLost(_)) => true,
            _ => false,
        }
    }
}

impl From<CudaError> for GpuError {
    fn from(e: CudaError) -> GpuError {
        match e {
            CudaError::Driver { call, code } => GpuError::Cuda { call, code },
            // the reason there is no device is the batch API's to give as it is
            CudaError::NotAvailable(why) => GpuError::NotAvailable(why),
            other => GpuError::Device(other),
        }
    }
}

impl From<LaunchError> for GpuError {
    fn from(e: LaunchError) -> GpuError {
        match e {
            LaunchError::Cuda(e) => e.into(),
            LaunchError::WebGpu(e) => GpuError::WebGpu(e),
            other => GpuError::Launch(other),
        }
    }
}

impl From<WebGpuError> for GpuError {
    fn from(e: WebGpuError) -> GpuError {
        GpuError::WebGpu(e)
    }
}

impl From<KernelIoError> for GpuError {
    fn from(e: KernelIoError) -> GpuError {
        match e {
            KernelIoError::Launch(e) => e.into(),
            other => GpuError::Kernel(other),
        }
    }
}

impl From<RingError> for GpuError {
    fn from(e: RingError) -> GpuError {
        GpuError::Ring(e)
    }
}

/// An illegal ring operation (a bug in the engine).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("DMA ring: {0}")]
pub struct RingError(pub String);
