//! PTX emitted by `build.rs` at build time, from a kernel written as a Rust function
//! (`#[warpforge_ir::kernel]`), and embedded in the library.
//!
//! ```
//! let ptx = warpforge_example_build_time::VECTOR_ADD_SM80_PTX;
//! assert!(ptx.contains(".entry vector_add("));
//! // Its statements point back at build.rs's lines.
//! assert!(ptx.contains(".file") && ptx.contains("build.rs") && ptx.contains(".loc"));
//! ```

#![deny(missing_docs)]

/// The `vector-add` kernel as PTX for sm_80, generated at build time (with `.file`/`.loc` lines).
pub const VECTOR_ADD_SM80_PTX: &str =
    include_str!(concat!(env!("OUT_DIR"), "/vector_add.sm_80.ptx"));
