//! One buffer argument of a launch ([`Buffer`]).

use warpforge::ir::{Access, ScalarType};
use warpforge::runtime::BufferArg;

/// One buffer argument, in parameter order.
#[derive(Clone, Debug)]
pub(super) struct Buffer {
    pub(super) name: String,
    pub(super) elem: ScalarType,
    pub(super) access: Access,
    pub(super) bytes: Vec<u8>,
}

impl Buffer {
    pub(super) fn arg(&mut self) -> BufferArg<'_> {
        match self.access {
            Access::ReadOnly => BufferArg::ReadOnly(&self.bytes),
            Access::ReadWrite => BufferArg::ReadWrite(&mut self.bytes),
        }
    }
}
