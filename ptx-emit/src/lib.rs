//! `warpforge-ptx`: lowers verified warpforge IR to NVIDIA PTX text.
//!
//! [`emit`] takes the verifier's proof ([`warpforge_ir::Verified`]) and a target ([`Sm`]) and returns
//! the PTX text together with its [`LaunchInfo`]: entry name, parameter layout, block size and shared
//! bytes. Hosts launch through [`LaunchInfo::config`], so a kernel cannot be launched with a block shape
//! it was not built for. Output is deterministic: the same kernel and target give the same bytes.
//!
//! - [`ast`]: the small PTX AST and its `Display`; [`regs`]: register classes and allocation;
//!   `lower/`: the lowering (statements and control flow, expressions, memory, warp collectives).
//! - [`parse`]: the PTX front end, PTX text → a typed AST with positions, for any PTX (nvcc's,
//!   Triton's, this crate's); [`emit_ast`] gives the [`ast`] a kernel's text is printed from.
//! - [`ptxas`]: finding NVIDIA's `ptxas`, assembling, and parsing its `-v` resource report.
//! - [`occupancy`]: blocks and warps per SM from those resources, by the CUDA occupancy rules.
//!
//! ```
//! use warpforge_ir::{samples, verify};
//! use warpforge_ptx::{emit, Sm};
//!
//! let kernel = samples::warp_reduce();
//! let ptx = emit(&verify(&kernel).unwrap(), Sm::Sm90).unwrap();
//! assert!(ptx.text.contains("shfl.sync.bfly.b32"));
//! assert_eq!(ptx.launch.config(10).unwrap().block, (128, 1, 1));
//! ```

#![deny(missing_docs)]

pub mod ast;
pub mod launch;
mod lower;
pub mod occupancy;
pub mod parse;
pub mod ptxas;
pub mod regs;

use std::fmt;

pub use launch::{LaunchConfig, LaunchError, LaunchInfo, ParamLayout};
use warpforge_ir::Verified;

/// A PTX target architecture. Each comes with the PTX ISA version that introduced it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Sm {
    /// Volta (`sm_70`, PTX ISA 6.0): the oldest target with `match.sync` and independent thread
    /// scheduling; the default.
    #[default]
    Sm70,
    /// Ampere (`sm_80`, PTX ISA 7.0).
    Sm80,
    /// Hopper (`sm_90`, PTX ISA 7.8).
    Sm90,
}

impl Sm {
    /// Every target.
    pub const ALL: [Sm; 3] = [Sm::Sm70, Sm::Sm80, Sm::Sm90];

    /// The `.target` name (`sm_90`).
    pub fn name(self) -> &'static str {
        match self {
            Sm::Sm70 => "sm_70",
            Sm::Sm80 => "sm_80",
            Sm::Sm90 => "sm_90",
        }
    }

    /// The compute capability number (70, 80, 90).
    pub fn number(self) -> u32 {
        match self {
            Sm::Sm70 => 70,
            Sm::Sm80 => 80,
            Sm::Sm90 => 90,
        }
    }

    /// The target for a compute capability number, if supported.
    pub fn from_number(n: u32) -> Option<Sm> {
        Sm::ALL.into_iter().find(|sm| sm.number() == n)
    }

    /// The PTX ISA version written in `.version`.
    pub fn ptx_isa(self) -> (u32, u32) {
        match self {
            Sm::Sm70 => (6, 0),
            Sm::Sm80 => (7, 0),
            Sm::Sm90 => (7, 8),
        }
    }
}

impl fmt::Display for Sm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Static shared memory a kernel may declare. Kernels that declare more get dynamic shared memory
/// (one `.extern .shared` array), sized at launch ([`LaunchInfo::dynamic_shared_bytes`]); the host must
/// opt in with `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` above 48 KiB.
pub const MAX_STATIC_SHARED_BYTES: u64 = 48 * 1024;

impl Sm {
    /// The most shared memory one block may use on this target (with the dynamic opt-in).
    pub fn max_shared_bytes(self) -> u64 {
        match self {
            Sm::Sm70 => 96 * 1024,
            Sm::Sm80 => 163 * 1024,
            Sm::Sm90 => 227 * 1024,
        }
    }
}

/// Emitted PTX and what a host needs to launch it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ptx {
    /// The PTX module text.
    pub text: String,
    /// The target it was emitted for.
    pub target: Sm,
    /// Entry name, parameter layout, block size, shared bytes.
    pub launch: LaunchInfo,
}

/// Why a verified kernel cannot be emitted as PTX.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmitError {
    /// The kernel declares more shared memory than a block may use on the target.
    SharedTooLarge {
        /// The kernel's name.
        kernel: String,
        /// Bytes it declares.
        bytes: u64,
        /// The target.
        target: Sm,
    },
}

impl fmt::Display for EmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmitError::SharedTooLarge { kernel, bytes, target } => write!(
                f,
                "kernel `{kernel}` declares {bytes} bytes of shared memory; a block on {target} may use at most {}",
                target.max_shared_bytes()
            ),
        }
    }
}

impl std::error::Error for EmitError {}

/// Lowers a verified kernel to the PTX AST that [`emit`] prints (its `Display` is the PTX text).
pub fn emit_ast(kernel: &Verified<'_>, target: Sm) -> Result<ast::Module, EmitError> {
    let shared = kernel.shared_bytes().unwrap_or(u64::MAX);
    if shared > target.max_shared_bytes() {
        return Err(EmitError::SharedTooLarge {
            kernel: kernel.name.clone(),
            bytes: shared,
            target,
        });
    }
    Ok(lower::lower(kernel, target))
}

/// Lowers a verified kernel to PTX for `target`.
pub fn emit(kernel: &Verified<'_>, target: Sm) -> Result<Ptx, EmitError> {
    let module = emit_ast(kernel, target)?;
    Ok(Ptx {
        text: module.to_string(),
        target,
        launch: LaunchInfo::of(kernel),
    })
}
