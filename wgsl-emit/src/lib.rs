//! `warpforge-wgsl`: lowers verified warpforge IR to a `naga::Module`, validates it with naga and writes
//! WGSL through naga's own WGSL back end.
//!
//! The lowering (including how a 32-lane warp is emulated on any subgroup size) lands with the WGSL issue;
//! until then the crate only anchors the workspace layout.

#![deny(missing_docs)]
