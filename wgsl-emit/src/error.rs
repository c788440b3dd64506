//! Why a kernel could not be emitted as WGSL ([`WgslError`]).

use std::fmt;

/// Why a kernel could not be emitted as WGSL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WgslError {
    /// A barrier or warp collective may be reached by only part of a workgroup. WebGPU requires
    /// workgroup-uniform barriers and warp collectives are emulated with barriers, so such a kernel would
    /// hang or compute garbage. (naga 30 records but does not enforce this rule; warpforge does.)
    DivergentSync {
        /// The kernel.
        kernel: String,
        /// Where, what, and why control is divergent there.
        detail: warpforge_analysis::DivergentSync,
    },
    /// naga rejected the module; `message` says why (with source lines where naga gives them).
    Validation {
        /// The kernel.
        kernel: String,
        /// naga's diagnostic.
        message: String,
        /// The generated WGSL (possibly empty if not even a relaxed module could be written).
        source: String,
    },
    /// The kernel uses a type WGSL does not have (`f64`): refused before lowering, naming where.
    Unsupported {
        /// The kernel.
        kernel: String,
        /// The parameter, shared array or statement (path and Rust position) that holds the type.
        place: String,
        /// The type and the capability it would need.
        what: String,
    },
    /// naga's WGSL writer failed.
    Writer {
        /// The kernel.
        kernel: String,
        /// The writer's error.
        message: String,
    },
}

impl fmt::Display for WgslError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WgslError::Validation { kernel, message, source } => {
                write!(f, "kernel `{kernel}`: naga rejected the generated WGSL:\n{message}")?;
                if !source.is_empty() {
                    write!(f, "\n--- generated WGSL ---\n{source}")?;
                }
                Ok(())
            }
            WgslError::DivergentSync { kernel, detail } => write!(
                f,
                "kernel `{kernel}`, {detail}; on WebGPU every barrier and warp collective must be reached by the whole workgroup (use one warp per block for warp-divergent code)"
            ),
            WgslError::Unsupported { kernel, place, what } => {
                write!(f, "kernel `{kernel}`, {place}: {what}")
            }
            WgslError::Writer { kernel, message } => write!(f, "kernel `{kernel}`: WGSL writer failed: {message}"),
        }
    }
}

impl std::error::Error for WgslError {}
