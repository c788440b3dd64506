//! [`CudaDevice`]: one context and stream on a CUDA device, and [`CudaDevice::run`], one launch from
//! host bytes to host bytes: checks, stream-ordered uploads, the launch, downloads of the read-write
//! buffers, every stage between CUDA events.

use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaEvent, CudaSlice, CudaStream, PushKernelArg};
use warpforge_ir::{ParamKind, Verified};

use super::device::open_context;
use super::error::driver_err;
use super::{CudaDeviceInfo, CudaError, CudaKernel};
use crate::{BufferArg, Clock, Timings};
use warpforge_sim::check_arguments;

/// A CUDA device opened for launching: its context, one stream, and its description.
pub struct CudaDevice {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    info: CudaDeviceInfo,
}

impl CudaDevice {
    /// Opens device `index` (SM 7.0 or newer).
    pub fn new(index: u32) -> Result<CudaDevice, CudaError> {
        let (ctx, info) = open_context(index)?;
        let stream = ctx.new_stream().map_err(driver_err("cuStreamCreate"))?;
        Ok(CudaDevice { ctx, stream, info })
    }

    /// The context, for engines that manage their own streams and buffers.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The device.
    pub fn info(&self) -> &CudaDeviceInfo {
        &self.info
    }

    /// The stream every launch of this device runs on.
    pub(super) fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Emits `kernel` as PTX for this device's SM and loads it.
    pub fn load(&self, kernel: &Verified<'_>) -> Result<CudaKernel, CudaError> {
        CudaKernel::load(&self.ctx, &self.info, kernel, self.info.sm())
    }

    /// Runs `kernel` with `buffers` and `scalars` over `blocks` blocks ([`crate::Launcher::launch`]
    /// takes the same arguments for every backend). `buffers` are the buffer parameters in parameter order
    /// ([`BufferArg::ReadWrite`] for `read_write` ones), `scalars` the scalar parameters' bits in
    /// parameter order. When it returns `Ok`, every `ReadWrite` slice holds the buffer after the kernel.
    /// All three stages are timed with CUDA events on the device's stream; host buffers are pageable,
    /// so the transfer times include the driver's staging copies.
    ///
    /// # Errors
    ///
    /// [`CudaError::Arguments`] before anything touches the device when the arguments do not match;
    /// [`CudaError::Driver`] naming the call when the driver fails (a kernel fault such as
    /// `CUDA_ERROR_ILLEGAL_ADDRESS (700)` is sticky: the context is unusable afterwards).
    pub fn run(
        &self,
        kernel: &CudaKernel,
        buffers: &mut [BufferArg<'_>],
        scalars: &[u64],
        blocks: u32,
    ) -> Result<Timings, CudaError> {
        let params = kernel
            .launch
            .params
            .iter()
            .map(|p| (p.name.as_str(), p.kind));
        check_arguments(&kernel.launch.entry, params, blocks, buffers, scalars)
            .map_err(CudaError::Arguments)?;
        let config = kernel.config(u64::from(blocks))?;
        self.timed(buffers, |device_buffers| {
            // Scalars by width, so each argument points at exactly its parameter's bytes.
            let scalar_kinds = kernel.launch.params.iter().filter_map(|p| match p.kind {
                ParamKind::Scalar(t) => Some(t.size_bytes().unwrap_or(1)),
                ParamKind::Buffer { .. } => None,
            });
            let values: Vec<Scalar> = scalar_kinds
                .zip(scalars)
                .map(|(size, &bits)| Scalar::new(size, bits))
                .collect();
            let mut launch = self.stream.launch_builder(&kernel.function);
            let (mut next_buffer, mut next_scalar) = (0, 0);
            for param in &kernel.launch.params {
                match param.kind {
                    ParamKind::Buffer { .. } => {
                        launch.arg(&device_buffers[next_buffer]);
                        next_buffer += 1;
                    }
                    ParamKind::Scalar(_) => {
                        values[next_scalar].push(&mut launch);
                        next_scalar += 1;
                    }
                }
            }
            // SAFETY: the arguments were checked against the kernel's parameters (count, kinds,
            // widths) and are pushed in parameter order; each buffer pointer is a live device
            // allocation of the caller's buffer length (at least 4 bytes); the block shape and
            // dynamic shared memory come from the kernel's own launch metadata.
            unsafe { launch.launch(config) }.map_err(driver_err("cuLaunchKernel"))?;
            Ok(())
        })
    }

    /// Uploads `buffers`, runs `launch` on their device copies, downloads the
    /// [`BufferArg::ReadWrite`] ones, and times the three stages with CUDA events on the stream.
    pub(super) fn timed(
        &self,
        buffers: &mut [BufferArg<'_>],
        launch: impl FnOnce(&[CudaSlice<u8>]) -> Result<(), CudaError>,
    ) -> Result<Timings, CudaError> {
        let stream = &self.stream;
        let event = || {
            self.ctx
                .new_event(Some(sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC))
                .map_err(driver_err("cuEventCreate"))
        };
        let events: Vec<CudaEvent> = (0..4).map(|_| event()).collect::<Result<_, _>>()?;
        let record = |i: usize| {
            events[i]
                .record(stream)
                .map_err(driver_err("cuEventRecord"))
        };

        record(0)?;
        // Every buffer gets at least 4 bytes, so an empty one still has an address (never read: the
        // kernel's accesses are bounded by what the caller passed, as on every backend).
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
        launch(&device_buffers)?;
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
        // cudarc records some failures (in its automatic cross-stream waits) instead of returning them.
        self.ctx
            .check_err()
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

/// A scalar argument at its parameter's width.
pub(super) enum Scalar {
    B1(u8),
    B2(u16),
    B4(u32),
    B8(u64),
}

impl Scalar {
    pub(super) fn new(size: u32, bits: u64) -> Scalar {
        match size {
            1 => Scalar::B1(bits as u8),
            2 => Scalar::B2(bits as u16),
            4 => Scalar::B4(bits as u32),
            _ => Scalar::B8(bits),
        }
    }

    pub(super) fn push<'a>(&'a self, launch: &mut cudarc::driver::LaunchArgs<'a>) {
        match self {
            Scalar::B1(v) => launch.arg(v),
            Scalar::B2(v) => launch.arg(v),
            Scalar::B4(v) => launch.arg(v),
            Scalar::B8(v) => launch.arg(v),
        };
    }
}
