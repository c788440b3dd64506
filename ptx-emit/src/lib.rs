//! `warpforge-ptx`: lowers verified warpforge IR to NVIDIA PTX text.
//!
//! This crate will own the PTX AST (printed through `Display`), register allocation per type, label
//! generation from structured control flow, launch metadata, and parsing of `ptxas -v` resource reports.
//! The emitter itself lands with the PTX issue; until then the crate only anchors the workspace layout.

#![deny(missing_docs)]
