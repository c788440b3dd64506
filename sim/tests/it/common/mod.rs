//! Helpers shared by the integration tests.

pub mod calls;
pub mod float;
pub mod int;
pub mod ptx;
