//! [`BufferArg`]: the bytes of one buffer argument of a launch, the same on every backend.

use warpforge_ir::Access;

/// The bytes of one buffer argument: little-endian elements, as on the CPU. A launch takes the kernel's
/// buffer parameters in parameter order (which is also their WGSL binding order).
#[derive(Debug)]
pub enum BufferArg<'a> {
    /// Input only: never copied back. For `read` buffers.
    ReadOnly(&'a [u8]),
    /// Overwritten with the buffer's contents after the kernel ran. For `read_write` buffers.
    ReadWrite(&'a mut [u8]),
}

impl BufferArg<'_> {
    /// The argument's bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            BufferArg::ReadOnly(bytes) => bytes,
            BufferArg::ReadWrite(bytes) => bytes,
        }
    }

    /// The access mode this argument is for.
    pub fn access(&self) -> Access {
        match self {
            BufferArg::ReadOnly(_) => Access::ReadOnly,
            BufferArg::ReadWrite(_) => Access::ReadWrite,
        }
    }
}
