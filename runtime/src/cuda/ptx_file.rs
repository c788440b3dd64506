//! [`CudaDevice::run_ptx`]: one entry of anybody's PTX module (nvcc's, NVRTC's, Triton's) launched on
//! the device in any 3-D shape, its parameters given in order as buffers (their device addresses) and
//! scalars of the declared widths; the buffers come back after the kernel, every stage between CUDA
//! events. `warpforge run FILE.ptx --backend cuda` runs on it, and `--check sim` compares it with the
//! PTX simulator.

use cudarc::driver::LaunchConfig;

use super::module::load_entry;
use super::queue::{KernelArg, Scalar};
use super::{CudaDevice, CudaError};
use crate::{BufferArg, Timings};

/// One PTX parameter's value, in parameter order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PtxValue {
    /// The next buffer's device address (a 64-bit parameter).
    Buffer,
    /// A scalar of the parameter's width.
    Scalar {
        /// The value's bits (the low `bytes` bytes are passed).
        bits: u64,
        /// The parameter's width in bytes: 1, 2, 4 or 8.
        bytes: u32,
    },
}

/// A launch's shape: blocks in the grid and threads in a block (x, y, z), and the dynamic shared
/// memory in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtxShape {
    /// Blocks in x, y and z.
    pub grid: [u32; 3],
    /// Threads per block in x, y and z.
    pub block: [u32; 3],
    /// Dynamic shared memory per block in bytes (for `.extern .shared` arrays).
    pub dynamic_shared: u32,
}

impl CudaDevice {
    /// Loads `ptx` (the driver compiles it for this device), launches `entry` with `values` in
    /// parameter order (each [`PtxValue::Buffer`] takes the next of `buffers`), and copies every
    /// buffer back: the PTX does not say which ones the kernel writes, so [`BufferArg::ReadOnly`]
    /// buffers are uploaded only and [`BufferArg::ReadWrite`] ones come back.
    ///
    /// # Errors
    ///
    /// [`CudaError::Arguments`] before anything touches the device when the values name more or fewer
    /// buffers than given or a scalar has no PTX width; [`CudaError::Jit`] with the driver's log when
    /// it rejects the PTX; [`CudaError::Driver`] naming the call otherwise (the launch's shape is the
    /// driver's to refuse: `CUDA_ERROR_INVALID_VALUE`).
    pub fn run_ptx(
        &self,
        ptx: &str,
        entry: &str,
        shape: &PtxShape,
        values: &[PtxValue],
        buffers: &mut [BufferArg<'_>],
    ) -> Result<Timings, CudaError> {
        let wanted = values.iter().filter(|v| **v == PtxValue::Buffer).count();
        if wanted != buffers.len() {
            return Err(CudaError::Arguments(format!(
                "entry `{entry}`: {wanted} buffer parameters, {} buffers given",
                buffers.len()
            )));
        }
        if let Some(PtxValue::Scalar { bytes, .. }) = values
            .iter()
            .find(|v| matches!(v, PtxValue::Scalar { bytes, .. } if ![1, 2, 4, 8].contains(bytes)))
        {
            return Err(CudaError::Arguments(format!(
                "entry `{entry}`: a scalar of {bytes} bytes (PTX scalars are 1, 2, 4 or 8)"
            )));
        }
        let function = load_entry(self.context(), ptx, entry, shape.dynamic_shared)?;
        let scalars: Vec<Scalar> = values
            .iter()
            .filter_map(|v| match *v {
                PtxValue::Scalar { bits, bytes } => Some(Scalar::new(bytes, bits)),
                PtxValue::Buffer => None,
            })
            .collect();
        let config = LaunchConfig {
            grid_dim: (shape.grid[0], shape.grid[1], shape.grid[2]),
            block_dim: (shape.block[0], shape.block[1], shape.block[2]),
            shared_mem_bytes: shape.dynamic_shared,
        };
        self.timed(buffers, |device_buffers| {
            let (mut buffer, mut scalar) = (device_buffers.iter(), scalars.iter());
            let mut args: Vec<KernelArg<'_>> = values
                .iter()
                .map(|value| match value {
                    PtxValue::Buffer => KernelArg::Buffer(buffer.next().expect("counted above")),
                    PtxValue::Scalar { .. } => {
                        KernelArg::Scalar(*scalar.next().expect("one per value"))
                    }
                })
                .collect();
            // SAFETY: one argument per PTX parameter in parameter order, as the caller declared
            // them (a buffer's device address for each 64-bit pointer parameter, each scalar at its
            // parameter's width); each address is a live allocation of the caller's buffer length
            // (at least 4 bytes). What the PTX does with them is the kernel's: an access outside a
            // buffer is a CUDA error (700), reported, not undefined host behaviour.
            unsafe {
                self.stream()
                    .launch(&function, config, &mut args, "cuLaunchKernel")
            }
        })
    }
}
