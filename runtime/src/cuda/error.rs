//! [`CudaError`]: what can go wrong on the CUDA backend, with driver errors by `CUresult` name.

use std::fmt;

use cudarc::driver::DriverError;

use super::names::{cu_result_name, is_sticky};

/// A CUDA-backend failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CudaError {
    /// No usable device: no driver library, no device of that index, or a device older than SM 7.0.
    NotAvailable(String),
    /// A driver call failed.
    Driver {
        /// The call, e.g. `cuLaunchKernel(lz4_compress_pages)`.
        call: &'static str,
        /// The `CUresult` code.
        code: u32,
    },
    /// The driver's JIT rejected a PTX module.
    Jit {
        /// The kernel's entry point.
        entry: String,
        /// The `CUresult` of `cuModuleLoadData`.
        code: u32,
        /// The JIT error log (empty when the driver gave none).
        log: String,
    },
    /// The kernel cannot run on this device (it needs more shared memory than the device allows, or
    /// the emitter cannot target it).
    Unsupported(String),
    /// The launch's arguments do not match the kernel (checked before anything touches the device).
    Arguments(String),
}

impl CudaError {
    /// A failed driver call.
    pub fn driver(call: &'static str, code: u32) -> CudaError {
        CudaError::Driver { call, code }
    }

    /// Whether the context can no longer be used by this process (a sticky `CUresult`, see
    /// [`is_sticky`](super::is_sticky)).
    pub fn is_sticky(&self) -> bool {
        matches!(self, CudaError::Driver { code, .. } if is_sticky(*code))
    }
}

/// Maps a cudarc driver error to [`CudaError::Driver`] naming `call`.
pub fn driver_err(call: &'static str) -> impl Fn(DriverError) -> CudaError {
    move |e| CudaError::driver(call, e.0 as u32)
}

/// `NAME (code)`, or `unknown CUresult (code)`.
pub(crate) fn code_name(code: u32) -> String {
    format!(
        "{} ({code})",
        cu_result_name(code).unwrap_or("unknown CUresult")
    )
}

impl fmt::Display for CudaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CudaError::NotAvailable(why) => write!(f, "no usable CUDA device: {why}"),
            CudaError::Driver { call, code } => {
                write!(f, "CUDA {call} failed: {}", code_name(*code))
            }
            CudaError::Jit { entry, code, log } => write!(
                f,
                "the driver rejected the PTX of `{entry}`: cuModuleLoadData failed: {}; JIT error log: {}",
                code_name(*code),
                if log.is_empty() { "(empty)" } else { log }
            ),
            CudaError::Unsupported(why) => write!(f, "{why}"),
            CudaError::Arguments(why) => write!(f, "bad launch arguments: {why}"),
        }
    }
}

impl std::error::Error for CudaError {}
