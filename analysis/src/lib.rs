//! `warpforge-analysis`: control-flow and uniformity facts about warpforge IR, and the hazard lints
//! built on them (divergent barriers and warp collectives, misaligned and out-of-bounds shared access,
//! the F081 shared-load→global-store pattern), over IR and over PTX text.
//!
//! - [`program`], [`ir_front`], [`ptx_front`]: the analysis program (basic blocks on a petgraph CFG)
//!   built from verified IR or from PTX text from anywhere.
//! - [`control`]: post-dominators and control dependence; [`divergence`]: block- and warp-scope
//!   divergence with cause chains; [`facts`]: value ranges, alignment and shared-array bases.
//! - [`rules`] and [`lint`]: the hazard rules (B001, W001, W002, F081, A001, S001, R001, N001), their
//!   text and JSON rendering ([`lint_kernel`], [`lint_ptx`]); [`sarif`]: SARIF 2.1.0 for code-scanning
//!   tools. R001 (shared-memory races between warps) simulates every thread of a block (`race/`).
//! - [`uniformity`]: the block-uniformity check the WGSL back end and `Kernel::analyze_barrier_safety`
//!   rely on.

#![deny(missing_docs)]

mod assumptions;
mod by_reaching;
pub mod control;
mod diagnostic;
pub mod divergence;
mod exits;
pub mod facts;
mod grouping;
pub mod ir_front;
pub mod lint;
pub mod program;
pub mod ptx_front;
mod race;
mod reaching;
mod refine;
mod rule;
pub mod rules;
pub mod sarif;
mod settled;
pub mod uniformity;
mod warp_affine;
mod webs;

pub use lint::{
    has_errors, lint_kernel, lint_ptx, lint_ptx_assuming, lint_ptx_with, render_json,
    render_json_all, render_text, PtxAssumptions, PtxError,
};
pub use rule::{Rule, Severity};
pub use rules::Diagnostic;
pub use sarif::render_sarif;
pub use uniformity::{barrier_safety, check_block_uniform_sync, BarrierSafety, DivergentSync};
