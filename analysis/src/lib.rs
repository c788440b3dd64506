//! `warpforge-analysis`: control-flow and uniformity facts about warpforge IR, and the hazard lints
//! built on them (divergent barriers and warp collectives, misaligned and out-of-bounds shared access,
//! the F081 shared-load→global-store pattern), over IR and over PTX text.
//!
//! Today it holds [`uniformity`]: the block-level uniformity check the WGSL back end relies on. The CFG,
//! warp-level divergence and the lints land with the hazard-analyzer issue.

#![deny(missing_docs)]

pub mod uniformity;

pub use uniformity::{barrier_safety, check_block_uniform_sync, BarrierSafety, DivergentSync};
