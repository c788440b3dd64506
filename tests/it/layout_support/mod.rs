//! Support for `layout.rs`: the module graph of a crate.
pub mod modules;
