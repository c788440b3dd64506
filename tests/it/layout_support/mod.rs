//! Support for `layout.rs`: the module graph of a crate, PTX spelled in string literals.
pub mod modules;
pub mod ptx_literals;
