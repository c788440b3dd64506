//! `warpforge-ptx`: lowers verified warpforge IR to NVIDIA PTX text.
//!
//! [`emit`] takes the verifier's proof ([`warpforge_ir::Verified`]) and a target ([`Sm`]) and returns
//! the PTX text together with its [`LaunchInfo`]: entry name, parameter layout, block size and shared
//! bytes. Hosts launch through [`LaunchInfo::config`], so a kernel cannot be launched with a block shape
//! it was not built for. Output is deterministic: the same kernel and target give the same bytes.
//!
//! - [`ast`]: the small PTX AST and its `Display`; [`regs`]: register classes and allocation;
//!   `lower/`: the lowering (statements and control flow, expressions, memory, warp collectives).
//! - [`isa`]: PTX as data: opcodes, modifiers, special registers and `WARP_SZ`, shared by the parser,
//!   the emitter, the simulator and the linter.
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
pub mod isa;
pub mod launch;
mod lower;
pub mod occupancy;
pub mod parse;
pub mod ptxas;
pub mod regs;
mod target;

use std::fmt;

pub use launch::{LaunchConfig, LaunchError, LaunchInfo, ParamLayout};
pub use target::{Sm, MAX_STATIC_SHARED_BYTES};
use warpforge_ir::Verified;

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
