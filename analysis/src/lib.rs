//! `warpforge-analysis`: control-flow and uniformity facts about warpforge IR, and the hazard lints
//! built on them (divergent barriers and warp collectives, misaligned and out-of-bounds shared access,
//! the F081 shared-load→global-store pattern), over IR and over PTX text.
//!
//! Today it holds [`uniformity`]: the block-level uniformity check the WGSL back end relies on. The CFG,
//! warp-level divergence and the lints land with the hazard-analyzer issue.

#![deny(missing_docs)]

pub mod control;
pub mod divergence;
pub mod facts;
pub mod ir_front;
pub mod lint;
pub mod program;
pub mod ptx_front;
pub mod rules;
pub mod uniformity;

pub use lint::{has_errors, lint_kernel, lint_ptx, render_json, render_text};
pub use rules::{Diagnostic, Severity, RULES};
pub use uniformity::{barrier_safety, check_block_uniform_sync, BarrierSafety, DivergentSync};
