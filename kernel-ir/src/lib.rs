//! `warpforge-ir`: the typed kernel IR every warpforge emitter and analysis works on.
//!
//! A [`Kernel`] is a one-dimensional compute kernel: typed parameters (global buffers and scalars), a
//! block size, shared arrays, mutable locals, and a body of structured statements. Values live in an
//! [`Arena`] and are referred to by typed [`Handle`]s; pure computations are [`Expr`]essions bound by
//! [`Stmt::Let`], while everything with an effect or a convergence requirement (memory, atomics,
//! barriers, warp collectives) is a statement pinned in place.
//!
//! - Build kernels with [`builder::KernelBuilder`] (typed handles, closures for control flow).
//! - Check them with [`verify()`]; emitters take its [`Verified`] proof.
//! - Print them with `Display` and read them back with [`parse_kernel`] (the `.wfir` text form).
//! - [`samples`] holds small kernels that exercise the emitters; [`random`] generates random well-typed
//!   kernels for property tests.
//!
//! ```
//! use warpforge_ir::{samples, verify, parse_kernel};
//!
//! let kernel = samples::vector_add();
//! verify(&kernel).expect("sample kernels verify");
//! let text = kernel.to_string();
//! assert_eq!(parse_kernel(&text).unwrap().to_string(), text);
//! ```

#![deny(missing_docs)]

// The `#[kernel]` expansions name `::warpforge_ir`, which this makes valid inside this crate too.
extern crate self as warpforge_ir;

pub mod arena;
pub mod builder;
pub mod expr;
pub mod gpu;
pub mod kernel;
pub mod loc;
pub mod path;
pub mod random;
pub mod samples;
pub mod stmt;
pub mod text;
pub mod types;
pub mod typing;
pub mod verify;

#[doc(hidden)]
#[path = "macro_support.rs"]
pub mod __macro;

pub use warpforge_macros::{device, kernel};

pub use arena::{Arena, Handle};
pub use expr::{BinaryOp, CastKind, CmpOp, Expr, Special, UnaryOp};
pub use kernel::{
    Kernel, LocalId, LocalVar, Param, ParamId, ParamKind, SharedArray, SharedId, Value, ValueInfo,
};
pub use loc::{SourceLoc, SourceLocs};
pub use path::{BadPath, Segment, StmtPath};
pub use stmt::{AtomicOp, Block, Mask, MemRef, ShuffleMode, Stmt, VoteMode, WarpOp};
pub use text::{parse_kernel, ParseError};
pub use types::{Access, Literal, ScalarType};
pub use verify::{verify, Verified, VerifyError};

/// `f16` as a kernel's type argument (`k::<f16>()`): Rust has no stable `f16`, so this names the
/// builder's kind (kernel signatures may write `f16` without importing it).
#[allow(non_camel_case_types)]
pub type f16 = builder::F16;
/// `bf16` as a kernel's type argument (`k::<bf16>()`), as `f16`.
#[allow(non_camel_case_types)]
pub type bf16 = builder::BF16;

/// Lanes per warp on every backend.
pub const WARP_SIZE: u32 = 32;

/// docs/kernels.md's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/kernels.md")]
pub struct KernelsDoctests;
