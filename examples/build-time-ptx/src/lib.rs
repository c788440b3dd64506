//! PTX emitted by `build.rs` at build time and embedded in the library.
//!
//! ```
//! assert!(warpforge_example_build_time::VECTOR_ADD_SM80_PTX.contains(".entry vector_add("));
//! ```

#![deny(missing_docs)]

/// The `vector-add` sample kernel as PTX for sm_80, generated at build time.
pub const VECTOR_ADD_SM80_PTX: &str =
    include_str!(concat!(env!("OUT_DIR"), "/vector_add.sm_80.ptx"));
