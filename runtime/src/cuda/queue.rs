//! Work queued on a CUDA device: [`Stream`]s, [`Event`]s with timing, device memory
//! ([`DeviceBytes`]), page-locked host memory ([`PinnedBytes`]) and [`Stream::launch`], the one place
//! any kernel is launched (`cuLaunchKernel`). [`CudaDevice::run`](super::CudaDevice::run) and
//! [`CudaDevice::run_ptx`](super::CudaDevice::run_ptx) use them for one launch; engines that
//! pipeline many (the LZ4 batch API's DMA ring, `DeviceCodec`) queue with them directly.

use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaEvent, CudaFunction, CudaSlice, CudaStream, LaunchConfig,
    PinnedHostSlice, PushKernelArg,
};

use super::error::driver_err;
use super::CudaError;

/// Bytes of device memory (cudarc's allocation: a caller's own `CudaSlice<u8>` is one).
pub type DeviceBytes = CudaSlice<u8>;

/// A stream: copies and launches queued on it run in order (a clone is the same stream).
#[derive(Clone)]
pub struct Stream(Arc<CudaStream>);

/// An event recorded on a stream: a point to wait for and a timestamp (blocking sync: a host that
/// waits for it sleeps rather than spins).
pub struct Event(CudaEvent);

/// Page-locked host memory: copies from and to it are asynchronous.
pub struct PinnedBytes(PinnedHostSlice<u8>, *mut u8);

// SAFETY: the pointer is the address of the `PinnedHostSlice`'s own allocation (which is `Send` and
// `Sync`), kept only so the memory can be addressed without a fallible event wait.
unsafe impl Send for PinnedBytes {}
// SAFETY: as above.
unsafe impl Sync for PinnedBytes {}

/// Caller memory page-locked in place (`cuMemHostRegister`) until dropped (`cuMemHostUnregister`):
/// copies from and to it are asynchronous, with no staging copy. See
/// [`CudaDevice::register_host`](super::CudaDevice::register_host).
pub struct HostRegistration {
    ctx: Arc<CudaContext>,
    base: *mut u8,
}

// SAFETY: the registration is an address range and the context that registered it (which is `Send`
// and `Sync`); the pointer is never dereferenced here, only handed back to the driver on drop.
unsafe impl Send for HostRegistration {}
// SAFETY: as above; no method reads or writes through the pointer.
unsafe impl Sync for HostRegistration {}

impl Drop for HostRegistration {
    fn drop(&mut self) {
        // The engines that copy from and to the memory wait for their copies before they return,
        // and drain their streams when a call fails or unwinds. An error recorded earlier (which
        // `bind_to_thread` would return instead of binding) is put back for `CudaDevice::check`.
        let unregister = bind(&self.ctx).and_then(|()| {
            // SAFETY: `base` was registered on this context by `register_host` and not since
            // unregistered (this is the registration's only owner).
            unsafe { sys::cuMemHostUnregister(self.base.cast()) }.result()
        });
        self.ctx.record_err(unregister);
    }
}

/// Binds `ctx` to the calling thread even when it holds a recorded error (`bind_to_thread` returns
/// that error instead): the error is taken first and recorded again after.
fn bind(ctx: &Arc<CudaContext>) -> Result<(), cudarc::driver::DriverError> {
    let stale = ctx.check_err();
    let bound = ctx.bind_to_thread();
    ctx.record_err(stale);
    bound
}

/// Registers `len` bytes at `base` with `ctx` (see [`HostRegistration`]).
///
/// # Safety
///
/// The bytes must be one live allocation that outlives the returned registration.
pub(super) unsafe fn register_host(
    ctx: &Arc<CudaContext>,
    base: *mut u8,
    len: usize,
) -> Result<HostRegistration, CudaError> {
    if len == 0 || base.is_null() {
        return Err(CudaError::Arguments(format!(
            "registering {len} bytes at {base:p}: nothing to register"
        )));
    }
    bind(ctx).map_err(driver_err("cuCtxSetCurrent"))?;
    // SAFETY: the caller's contract: `len` bytes at `base` are one live allocation; flags 0 register
    // it for this context, as copies from and to it need.
    unsafe { sys::cuMemHostRegister_v2(base.cast(), len, 0) }
        .result()
        .map_err(driver_err("cuMemHostRegister"))?;
    Ok(HostRegistration {
        ctx: ctx.clone(),
        base,
    })
}

/// One kernel argument, in parameter order.
pub enum KernelArg<'a> {
    /// A device buffer's address.
    Buffer(&'a DeviceBytes),
    /// A device buffer's address, for a buffer the kernel writes.
    BufferMut(&'a mut DeviceBytes),
    /// A scalar at its parameter's width.
    Scalar(Scalar),
}

/// A scalar argument at its parameter's width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// 1 byte.
    B1(u8),
    /// 2 bytes.
    B2(u16),
    /// 4 bytes.
    B4(u32),
    /// 8 bytes.
    B8(u64),
}

impl Scalar {
    /// The low `size` bytes of `bits` (8 for any size other than 1, 2 and 4).
    pub fn new(size: u32, bits: u64) -> Scalar {
        match size {
            1 => Scalar::B1(bits as u8),
            2 => Scalar::B2(bits as u16),
            4 => Scalar::B4(bits as u32),
            _ => Scalar::B8(bits),
        }
    }
}

/// A new stream on `ctx`.
pub(super) fn new_stream(ctx: &Arc<CudaContext>) -> Result<Stream, CudaError> {
    ctx.new_stream()
        .map(Stream)
        .map_err(driver_err("cuStreamCreate"))
}

/// A new event on `ctx`, timing enabled, blocking sync.
pub(super) fn new_event(ctx: &Arc<CudaContext>) -> Result<Event, CudaError> {
    ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC))
        .map(Event)
        .map_err(driver_err("cuEventCreate"))
}

/// `bytes` of page-locked host memory on `ctx`; `host_reads` when the host reads it (then it is not
/// write-combined).
pub(super) fn alloc_pinned(
    ctx: &Arc<CudaContext>,
    bytes: usize,
    host_reads: bool,
) -> Result<PinnedBytes, CudaError> {
    // SAFETY: the memory is handed out as bytes, and every byte value is a valid `u8`; the callers
    // write what they read back (copies or the host), as page-locked memory starts unspecified.
    let host = unsafe {
        if host_reads {
            ctx.alloc_pinned_with_flags::<u8>(bytes, 0)
        } else {
            ctx.alloc_pinned::<u8>(bytes)
        }
    };
    let mut host = host.map_err(driver_err("cuMemHostAlloc"))?;
    let ptr = host
        .as_mut_ptr()
        .map_err(driver_err("cuEventSynchronize"))?;
    Ok(PinnedBytes(host, ptr))
}

impl Stream {
    /// `bytes` of zeroed device memory, allocated in stream order.
    pub fn alloc(&self, bytes: usize) -> Result<DeviceBytes, CudaError> {
        self.0
            .alloc_zeros::<u8>(bytes)
            .map_err(driver_err("cuMemAlloc"))
    }

    /// A device copy of `src`.
    pub fn clone_to_device(&self, src: &[u8]) -> Result<DeviceBytes, CudaError> {
        self.0
            .clone_htod(src)
            .map_err(driver_err("cuMemcpyHtoDAsync"))
    }

    /// Copies `src` to the start of `dst` (asynchronous when `src` is page-locked).
    pub fn upload(&self, src: &[u8], dst: &mut DeviceBytes) -> Result<(), CudaError> {
        self.0
            .memcpy_htod(src, dst)
            .map_err(driver_err("cuMemcpyHtoDAsync"))
    }

    /// A host copy of `src`, after the work queued before it.
    pub fn clone_to_host(&self, src: &DeviceBytes) -> Result<Vec<u8>, CudaError> {
        self.0.clone_dtoh(src).map_err(driver_err("cuMemcpyDtoH"))
    }

    /// Copies the first `dst.len()` bytes of `src` to `dst`.
    pub fn download(&self, src: &DeviceBytes, dst: &mut [u8]) -> Result<(), CudaError> {
        let len = dst.len();
        self.0
            .memcpy_dtoh(&src.slice(..len), dst)
            .map_err(driver_err("cuMemcpyDtoHAsync"))
    }

    /// Records `event` at this point of the stream.
    pub fn record(&self, event: &Event) -> Result<(), CudaError> {
        event.0.record(&self.0).map_err(driver_err("cuEventRecord"))
    }

    /// Makes the work queued after this call wait for `event`.
    pub fn wait(&self, event: &Event) -> Result<(), CudaError> {
        self.0
            .wait(&event.0)
            .map_err(driver_err("cuStreamWaitEvent"))
    }

    /// Waits for everything queued so far.
    pub fn synchronize(&self) -> Result<(), CudaError> {
        self.0
            .synchronize()
            .map_err(driver_err("cuStreamSynchronize"))
    }

    /// Launches `function` over `config` with `args`: the one `cuLaunchKernel` of warpforge. A
    /// failure is [`CudaError::Driver`] naming `call` (`cuLaunchKernel(lz4_compress)`).
    ///
    /// # Safety
    ///
    /// `args` must be the kernel's parameters in order, each at its parameter's width, every buffer
    /// a live allocation at least as large as the kernel's accesses through it, and `config` a shape
    /// the kernel was built for: the driver cannot check any of it.
    pub unsafe fn launch(
        &self,
        function: &CudaFunction,
        config: LaunchConfig,
        args: &mut [KernelArg<'_>],
        call: &'static str,
    ) -> Result<(), CudaError> {
        let mut launch = self.0.launch_builder(function);
        for arg in args.iter_mut() {
            match arg {
                KernelArg::Buffer(b) => launch.arg(*b),
                KernelArg::BufferMut(b) => launch.arg(&mut **b),
                KernelArg::Scalar(Scalar::B1(v)) => launch.arg(&*v),
                KernelArg::Scalar(Scalar::B2(v)) => launch.arg(&*v),
                KernelArg::Scalar(Scalar::B4(v)) => launch.arg(&*v),
                KernelArg::Scalar(Scalar::B8(v)) => launch.arg(&*v),
            };
        }
        // SAFETY: the caller's contract above.
        unsafe { launch.launch(config) }.map_err(driver_err(call))?;
        Ok(())
    }
}

impl Event {
    /// Waits (sleeping) until the work before the event's record has run.
    pub fn synchronize(&self) -> Result<(), CudaError> {
        self.0
            .synchronize()
            .map_err(driver_err("cuEventSynchronize"))
    }

    /// Nanoseconds from this event to `to` (both recorded and reached).
    pub fn elapsed_ns(&self, to: &Event) -> Result<u64, CudaError> {
        let ms = self
            .0
            .elapsed_ms(&to.0)
            .map_err(driver_err("cuEventElapsedTime"))?;
        Ok((f64::from(ms) * 1e6) as u64)
    }
}

impl PinnedBytes {
    /// The bytes (after the copies into them that were queued have run: the caller orders that with
    /// events).
    pub fn as_slice(&self) -> Result<&[u8], CudaError> {
        self.0.as_slice().map_err(driver_err("cuEventSynchronize"))
    }

    /// The bytes, writable.
    pub fn as_mut_slice(&mut self) -> Result<&mut [u8], CudaError> {
        self.0
            .as_mut_slice()
            .map_err(driver_err("cuEventSynchronize"))
    }

    /// The address of the first byte (no wait: the caller orders its accesses with the copies').
    pub fn as_ptr(&self) -> *mut u8 {
        self.1
    }

    /// Bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
