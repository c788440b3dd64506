//! [`CudaDevice`]: one context and stream on a CUDA device, and [`CudaDevice::run`], one launch from
//! host bytes to host bytes: checks, stream-ordered uploads, the launch, downloads of the read-write
//! buffers, every stage between CUDA events.

use std::sync::Arc;

use cudarc::driver::CudaContext;
use warpforge_ir::{ParamKind, Verified};

use super::device::open_context;
use super::error::driver_err;
use super::queue::{
    self, DeviceBytes, Event, HostRegistration, KernelArg, PinnedBytes, Scalar, Stream,
};
use super::{CudaDeviceInfo, CudaError, CudaKernel};
use crate::{BufferArg, Clock, Timings};
use warpforge_sim::check_arguments;

/// A CUDA device opened for launching: its context, one stream, and its description.
pub struct CudaDevice {
    ctx: Arc<CudaContext>,
    stream: Stream,
    info: CudaDeviceInfo,
}

impl CudaDevice {
    /// Opens device `index` (SM 7.0 or newer).
    pub fn new(index: u32) -> Result<CudaDevice, CudaError> {
        let (ctx, info) = open_context(index)?;
        let stream = queue::new_stream(&ctx)?;
        Ok(CudaDevice { ctx, stream, info })
    }

    /// The context (module loading).
    pub(super) fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// A new stream, for engines that queue their own work.
    pub fn new_stream(&self) -> Result<Stream, CudaError> {
        queue::new_stream(&self.ctx)
    }

    /// A new event (timing enabled; a host waiting for it sleeps).
    pub fn new_event(&self) -> Result<Event, CudaError> {
        queue::new_event(&self.ctx)
    }

    /// `bytes` of page-locked host memory; `host_reads` when the host reads it back (then it is not
    /// write-combined).
    pub fn alloc_pinned(&self, bytes: usize, host_reads: bool) -> Result<PinnedBytes, CudaError> {
        queue::alloc_pinned(&self.ctx, bytes, host_reads)
    }

    /// Registers `len` bytes of the caller's memory at `base` (`cuMemHostRegister`): page-locked in
    /// place until the registration is dropped, so copies from and to it need no staging copy.
    /// Registering pins the memory (it takes time, and locked memory is what the whole system has
    /// least of): register a buffer that is reused, once.
    ///
    /// # Safety
    ///
    /// The bytes must be one live allocation that outlives the returned registration.
    pub unsafe fn register_host(
        &self,
        base: *mut u8,
        len: usize,
    ) -> Result<HostRegistration, CudaError> {
        // SAFETY: the caller's contract, passed on.
        unsafe { queue::register_host(&self.ctx, base, len) }
    }

    /// Waits for all work on the device.
    pub fn synchronize(&self) -> Result<(), CudaError> {
        self.ctx
            .synchronize()
            .map_err(driver_err("cuCtxSynchronize"))
    }

    /// A failure the driver recorded instead of returning (cudarc's automatic cross-stream waits).
    pub fn check(&self) -> Result<(), CudaError> {
        self.ctx
            .check_err()
            .map_err(driver_err("a queued CUDA operation"))
    }

    /// The device.
    pub fn info(&self) -> &CudaDeviceInfo {
        &self.info
    }

    /// The stream every launch of this device runs on.
    pub(super) fn stream(&self) -> &Stream {
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
        self.run_grid(kernel, buffers, scalars, [blocks, 1, 1])
    }

    /// [`CudaDevice::run`] over a grid of `[x, y, z]` blocks.
    ///
    /// # Errors
    ///
    /// As [`CudaDevice::run`]; also a grid CUDA cannot launch.
    pub fn run_grid(
        &self,
        kernel: &CudaKernel,
        buffers: &mut [BufferArg<'_>],
        scalars: &[u64],
        grid: [u32; 3],
    ) -> Result<Timings, CudaError> {
        let blocks = u32::try_from(grid.iter().map(|&d| u64::from(d)).product::<u64>())
            .map_err(|_| CudaError::Arguments(format!("a grid of {grid:?} blocks is too large")))?;
        let params = kernel
            .launch
            .params
            .iter()
            .map(|p| (p.name.as_str(), p.kind));
        check_arguments(&kernel.launch.entry, params, blocks, buffers, scalars)
            .map_err(CudaError::Arguments)?;
        let config = kernel.config_grid(grid)?;
        self.timed(buffers, |device_buffers| {
            // Scalars by width, so each argument points at exactly its parameter's bytes.
            let scalar_kinds = kernel.launch.params.iter().filter_map(|p| match p.kind {
                ParamKind::Scalar(t) => Some(t.size_bytes().unwrap_or(1)),
                ParamKind::Buffer { .. } => None,
            });
            let mut values = scalar_kinds
                .zip(scalars)
                .map(|(size, &bits)| Scalar::new(size, bits));
            let mut buffers = device_buffers.iter();
            let mut args: Vec<KernelArg<'_>> = Vec::with_capacity(kernel.launch.params.len());
            for param in &kernel.launch.params {
                args.push(match param.kind {
                    ParamKind::Buffer { .. } => {
                        KernelArg::Buffer(buffers.next().expect("checked: one per buffer"))
                    }
                    ParamKind::Scalar(_) => {
                        KernelArg::Scalar(values.next().expect("checked: one per scalar"))
                    }
                });
            }
            // SAFETY: the arguments were checked against the kernel's parameters (count, kinds,
            // widths) and are given in parameter order; each buffer pointer is a live device
            // allocation of the caller's buffer length (at least 4 bytes); the block shape and
            // dynamic shared memory come from the kernel's own launch metadata.
            unsafe {
                self.stream
                    .launch(&kernel.function, config, &mut args, "cuLaunchKernel")
            }
        })
    }

    /// Uploads `buffers`, runs `launch` on their device copies, downloads the
    /// [`BufferArg::ReadWrite`] ones, and times the three stages with CUDA events on the stream.
    pub(super) fn timed(
        &self,
        buffers: &mut [BufferArg<'_>],
        launch: impl FnOnce(&[DeviceBytes]) -> Result<(), CudaError>,
    ) -> Result<Timings, CudaError> {
        let stream = &self.stream;
        let events: Vec<Event> = (0..4).map(|_| self.new_event()).collect::<Result<_, _>>()?;
        let record = |i: usize| stream.record(&events[i]);

        record(0)?;
        // Every buffer gets at least 4 bytes, so an empty one still has an address (never read: the
        // kernel's accesses are bounded by what the caller passed, as on every backend).
        let device_buffers: Vec<DeviceBytes> = buffers
            .iter()
            .map(|b| match b.bytes() {
                [] => stream.alloc(4),
                bytes => stream.clone_to_device(bytes),
            })
            .collect::<Result<_, _>>()?;
        record(1)?;
        launch(&device_buffers)?;
        record(2)?;
        for (device, arg) in device_buffers.iter().zip(buffers.iter_mut()) {
            if let BufferArg::ReadWrite(host) = arg {
                if !host.is_empty() {
                    stream.download(device, host)?;
                }
            }
        }
        record(3)?;
        events[3].synchronize()?;
        self.check()?;
        let ns = |a: usize| events[a].elapsed_ns(&events[a + 1]);
        Ok(Timings {
            upload_ns: ns(0)?,
            kernel_ns: ns(1)?,
            download_ns: ns(2)?,
            kernel_clock: Clock::CudaEvents,
            transfer_clock: Clock::CudaEvents,
        })
    }
}
