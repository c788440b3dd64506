//! Helpers shared by the integration tests.

pub mod float;
pub mod int;
