//! `warpforge-analysis`: control-flow graph, dominators, divergence (uniformity) and the hazard lints
//! (divergent barriers and warp collectives, misaligned and out-of-bounds shared access, the F081
//! shared-load→global-store pattern), over warpforge IR and over PTX text.
//!
//! The analyses land with the hazard-analyzer issue; until then the crate only anchors the workspace
//! layout.

#![deny(missing_docs)]
