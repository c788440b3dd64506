//! [`CudaDevice::run_ptx`]: one entry of anybody's PTX module (nvcc's, NVRTC's, Triton's) launched on
//! the device in any 3-D shape, its parameters given in order as buffers (their device addresses) and
//! scalars of the declared widths; the buffers come back after the kernel, every stage between CUDA
//! events. `warpforge run FILE.ptx --backend cuda` runs on it, and `--check sim` compares it with the
//! PTX simulator.

use cudarc::driver::{sys, CudaEvent, CudaSlice, PushKernelArg};
use cudarc::nvrtc::Ptx;

use super::error::driver_err;
use super::module::jit_error_log;
use super::run::Scalar;
use super::{CudaDevice, CudaError};
use crate::{BufferArg, Clock, Timings};

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
        let ctx = self.context();
        let module = ctx
            .load_module(Ptx::from_src(ptx.to_owned()))
            .map_err(|e| CudaError::Jit {
                entry: entry.to_owned(),
                code: e.0 as u32,
                log: jit_error_log(ctx, ptx).unwrap_or_default(),
            })?;
        let function = module
            .load_function(entry)
            .map_err(driver_err("cuModuleGetFunction"))?;
        if shape.dynamic_shared > 48 << 10 {
            function
                .set_attribute(
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    i32::try_from(shape.dynamic_shared).unwrap_or(i32::MAX),
                )
                .map_err(driver_err("cuFuncSetAttribute(max dynamic shared)"))?;
        }
        let stream = self.stream();
        let event = || {
            ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC))
                .map_err(driver_err("cuEventCreate"))
        };
        let events: Vec<CudaEvent> = (0..4).map(|_| event()).collect::<Result<_, _>>()?;
        let record = |i: usize| {
            events[i]
                .record(stream)
                .map_err(driver_err("cuEventRecord"))
        };
        record(0)?;
        // At least 4 bytes each, so that an empty buffer still has an address.
        let device_buffers: Vec<CudaSlice<u8>> = buffers
            .iter()
            .map(|b| match b.bytes() {
                [] => stream
                    .alloc_zeros::<u8>(4)
                    .map_err(driver_err("cuMemAlloc")),
                bytes => stream
                    .clone_htod(bytes)
                    .map_err(driver_err("cuMemcpyHtoDAsync")),
            })
            .collect::<Result<_, _>>()?;
        record(1)?;
        let scalars: Vec<Scalar> = values
            .iter()
            .filter_map(|v| match *v {
                PtxValue::Scalar { bits, bytes } => Some(Scalar::new(bytes, bits)),
                PtxValue::Buffer => None,
            })
            .collect();
        let mut launch = stream.launch_builder(&function);
        let (mut buffer, mut scalar) = (device_buffers.iter(), scalars.iter());
        for value in values {
            match value {
                PtxValue::Buffer => {
                    launch.arg(buffer.next().expect("counted above"));
                }
                PtxValue::Scalar { .. } => scalar.next().expect("one per value").push(&mut launch),
            }
        }
        let config = cudarc::driver::LaunchConfig {
            grid_dim: (shape.grid[0], shape.grid[1], shape.grid[2]),
            block_dim: (shape.block[0], shape.block[1], shape.block[2]),
            shared_mem_bytes: shape.dynamic_shared,
        };
        // SAFETY: one argument per PTX parameter in parameter order, as the caller declared them (a
        // buffer's device address for each 64-bit pointer parameter, each scalar at its parameter's
        // width); each address is a live allocation of the caller's buffer length (at least 4
        // bytes). What the PTX does with them is the kernel's: an access outside a buffer is a CUDA
        // error (700), reported, not undefined host behaviour.
        unsafe { launch.launch(config) }.map_err(driver_err("cuLaunchKernel"))?;
        record(2)?;
        for (device, arg) in device_buffers.iter().zip(buffers.iter_mut()) {
            if let BufferArg::ReadWrite(host) = arg {
                if !host.is_empty() {
                    let len = host.len();
                    stream
                        .memcpy_dtoh(&device.slice(..len), &mut host[..])
                        .map_err(driver_err("cuMemcpyDtoHAsync"))?;
                }
            }
        }
        record(3)?;
        events[3]
            .synchronize()
            .map_err(driver_err("cuEventSynchronize"))?;
        ctx.check_err()
            .map_err(driver_err("a queued CUDA operation"))?;
        let ns = |a: usize| -> Result<u64, CudaError> {
            let ms = events[a]
                .elapsed_ms(&events[a + 1])
                .map_err(driver_err("cuEventElapsedTime"))?;
            Ok((f64::from(ms) * 1e6) as u64)
        };
        Ok(Timings {
            upload_ns: ns(0)?,
            kernel_ns: ns(1)?,
            download_ns: ns(2)?,
            kernel_clock: Clock::CudaEvents,
            transfer_clock: Clock::CudaEvents,
        })
    }
}
