//! [`GpuError`]: what can go wrong on the GPU path, with CUDA errors by name.

use std::fmt;

use crate::runtime::cuda::{cu_result_name, is_sticky, CudaError};
use crate::runtime::LaunchError;

/// A GPU-path failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GpuError {
    /// No usable device (no driver, no device, unsupported device).
    NotAvailable(String),
    /// An invalid [`super::GpuBatchConfig`].
    Config(String),
    /// A CUDA driver call failed.
    Cuda {
        /// What was being done.
        call: &'static str,
        /// The `CUresult` code.
        code: u32,
    },
    /// The WebGPU backend failed.
    WebGpu(String),
    /// The simulator failed (a batch API on the simulator, for tests and checks without a GPU).
    Sim(String),
    /// A compressed page is malformed (a data error, not redone on the CPU).
    Corrupt {
        /// Index of the page in the call.
        page: usize,
        /// What is wrong.
        detail: String,
    },
    /// A failure injected by a test (see `GpuBatchCompressor::inject_faults`).
    Injected(String),
}

impl GpuError {
    /// A CUDA error from a cudarc driver error.
    pub fn cuda(call: &'static str, code: u32) -> GpuError {
        GpuError::Cuda { call, code }
    }

    /// Whether the device can no longer be used by this process (a sticky CUDA error, see
    /// [`is_sticky`](crate::runtime::cuda::is_sticky)): every later batch must go to the CPU.
    pub fn is_sticky(&self) -> bool {
        matches!(self, GpuError::Cuda { code, .. } if is_sticky(*code))
    }
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuError::NotAvailable(why) => write!(f, "no usable GPU: {why}"),
            GpuError::Config(why) => write!(f, "invalid GPU batch configuration: {why}"),
            GpuError::Cuda { call, code } => {
                write!(
                    f,
                    "CUDA {call} failed: {} ({code})",
                    cu_result_name(*code).unwrap_or("unknown CUresult")
                )
            }
            GpuError::WebGpu(why) => write!(f, "WebGPU: {why}"),
            GpuError::Sim(why) => write!(f, "simulator: {why}"),
            GpuError::Corrupt { page, detail } => write!(f, "page {page}: {detail}"),
            GpuError::Injected(why) => write!(f, "injected fault: {why}"),
        }
    }
}

impl std::error::Error for GpuError {}

impl From<CudaError> for GpuError {
    fn from(e: CudaError) -> GpuError {
        match e {
            CudaError::Driver { call, code } => GpuError::Cuda { call, code },
            other => GpuError::NotAvailable(other.to_string()),
        }
    }
}

impl GpuError {
    /// A failed launch on `backend` as the batch API reports it: the runtime's own error when there is
    /// one, else the message under the backend's variant.
    pub(crate) fn from_launch(backend: crate::runtime::Backend, e: anyhow::Error) -> GpuError {
        match e.downcast::<LaunchError>() {
            Ok(launch) => launch.into(),
            Err(other) => {
                let why = format!("{other:#}");
                match backend {
                    crate::runtime::Backend::WebGpu => GpuError::WebGpu(why),
                    crate::runtime::Backend::Sim | crate::runtime::Backend::PtxSim => {
                        GpuError::Sim(why)
                    }
                    crate::runtime::Backend::Cuda => GpuError::NotAvailable(why),
                }
            }
        }
    }
}

impl From<LaunchError> for GpuError {
    fn from(e: LaunchError) -> GpuError {
        match e {
            LaunchError::Cuda(e) => e.into(),
            LaunchError::WebGpu(e) => GpuError::WebGpu(e.to_string()),
            other => GpuError::Sim(other.to_string()),
        }
    }
}
