//! [`Driver`] on a CUDA GPU through cudarc: streams, events with timing (blocking sync, so the host
//! sleeps while it waits), device memory, pinned host memory handed to cudarc as plain slices (the
//! copies stay asynchronous: the driver sees pinned pages; cudarc tracks none of it, the ring's events
//! order it), launches from the kernels' launch metadata.

use std::sync::Arc;

use warpforge_ir::Verified;

use super::driver::{Arg, Driver};
use super::{GpuDeviceInfo, GpuError};
use crate::kernels::blocks_for;
use crate::runtime::cuda::CudaDevice;
use crate::runtime::cudarc::driver::{
    sys, CudaContext, CudaEvent, CudaSlice, CudaStream, DriverError, PinnedHostSlice, PushKernelArg,
};
use crate::runtime::{Backend, Clock, Launcher, Loaded};

/// Maps a cudarc driver error to [`GpuError::Cuda`] naming `call`.
fn err(call: &'static str) -> impl Fn(DriverError) -> GpuError {
    move |e| GpuError::cuda(call, e.0 as u32)
}

/// A CUDA device through the driver API.
pub struct CudaDriver {
    launcher: Launcher,
    ctx: Arc<CudaContext>,
    info: GpuDeviceInfo,
}

impl CudaDriver {
    /// Opens device `index`.
    pub fn new(index: u32) -> Result<CudaDriver, GpuError> {
        let device = CudaDevice::new(index)?;
        let ctx = device.context().clone();
        let info = GpuDeviceInfo::from(device.info());
        Ok(CudaDriver {
            launcher: Launcher::Cuda(device),
            ctx,
            info,
        })
    }
}

impl Driver for CudaDriver {
    type Stream = Arc<CudaStream>;
    type Event = CudaEvent;
    type Buffer = CudaSlice<u8>;
    type Host = PinnedHostSlice<u8>;

    fn info(&self) -> GpuDeviceInfo {
        self.info.clone()
    }

    fn load(&self, kernel: &Verified<'_>) -> Result<Loaded, GpuError> {
        Ok(self.launcher.load(kernel)?)
    }

    fn clock(&self) -> Clock {
        Clock::CudaEvents
    }

    fn stream(&self) -> Result<Self::Stream, GpuError> {
        self.ctx.new_stream().map_err(err("cuStreamCreate"))
    }

    fn event(&self) -> Result<Self::Event, GpuError> {
        // Blocking sync: the host sleeps rather than spins while it waits (timing stays enabled).
        self.ctx
            .new_event(Some(sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC))
            .map_err(err("cuEventCreate"))
    }

    fn alloc(&self, stream: &Self::Stream, bytes: usize) -> Result<Self::Buffer, GpuError> {
        stream.alloc_zeros::<u8>(bytes).map_err(err("cuMemAlloc"))
    }

    fn alloc_host(&self, bytes: usize, host_reads: bool) -> Result<Self::Host, GpuError> {
        // SAFETY: pinned buffers are written by the host (or by a copy) before they are read, and only
        // the written prefix is read. Buffers the host reads are not write-combined.
        let host = unsafe {
            if host_reads {
                self.ctx.alloc_pinned_with_flags::<u8>(bytes, 0)
            } else {
                self.ctx.alloc_pinned::<u8>(bytes)
            }
        };
        host.map_err(err("cuMemHostAlloc"))
    }

    fn host<'h>(&self, host: &'h Self::Host) -> Result<&'h [u8], GpuError> {
        host.as_slice().map_err(err("cuEventSynchronize"))
    }

    fn host_mut<'h>(&self, host: &'h mut Self::Host) -> Result<&'h mut [u8], GpuError> {
        host.as_mut_slice().map_err(err("cuEventSynchronize"))
    }

    fn upload(
        &self,
        stream: &Self::Stream,
        src: &Self::Host,
        offset: usize,
        len: usize,
        dst: &mut Self::Buffer,
    ) -> Result<(), GpuError> {
        let host = src.as_slice().map_err(err("cuEventSynchronize"))?;
        let Some(bytes) = host.get(offset..offset + len) else {
            return Err(GpuError::NotAvailable(format!(
                "upload of {len} bytes from byte {offset} of a {}-byte page-locked buffer",
                host.len()
            )));
        };
        stream
            .memcpy_htod(bytes, dst)
            .map_err(err("cuMemcpyHtoDAsync"))
    }

    fn download(
        &self,
        stream: &Self::Stream,
        src: &Self::Buffer,
        len: usize,
        dst: &mut Self::Host,
    ) -> Result<(), GpuError> {
        let host = dst.as_mut_slice().map_err(err("cuEventSynchronize"))?;
        stream
            .memcpy_dtoh(&src.slice(..len), &mut host[..len])
            .map_err(err("cuMemcpyDtoHAsync"))
    }

    fn launch(
        &self,
        stream: &Self::Stream,
        kernel: &Loaded,
        name: &'static str,
        pages: usize,
        args: &mut [Arg<'_, Self::Buffer>],
    ) -> Result<(), GpuError> {
        let Some(kernel) = kernel.cuda() else {
            return Err(GpuError::Sim(format!("{name}: not loaded for CUDA")));
        };
        let cfg = kernel.config(u64::from(blocks_for(pages, Backend::Cuda)))?;
        let count = pages as u32;
        let mut launch = stream.launch_builder(&kernel.function);
        for arg in args.iter_mut() {
            match arg {
                Arg::In(b) => launch.arg(*b),
                Arg::Out(b) | Arg::Scratch(b) => launch.arg(&mut **b),
            };
        }
        launch.arg(&count);
        // SAFETY: the page kernels take their buffers in this order and then the page count; every
        // buffer holds a whole batch, of which the kernel touches the first `count` pages (the
        // compaction's offsets come from the meta words, so every block lands inside its output;
        // the decompress kernel reads each block within its span, which the host placed inside the
        // uploaded, 16-byte padded blocks, and rejects longer blocks before reading them).
        unsafe { launch.launch(cfg) }.map_err(|e| GpuError::cuda(launch_call(name), e.0 as u32))?;
        Ok(())
    }

    fn record(&self, event: &Self::Event, stream: &Self::Stream) -> Result<(), GpuError> {
        event.record(stream).map_err(err("cuEventRecord"))
    }

    fn wait(&self, stream: &Self::Stream, event: &Self::Event) -> Result<(), GpuError> {
        stream.wait(event).map_err(err("cuStreamWaitEvent"))
    }

    fn synchronize(&self, event: &Self::Event) -> Result<(), GpuError> {
        event.synchronize().map_err(err("cuEventSynchronize"))
    }

    fn elapsed_ns(&self, from: &Self::Event, to: &Self::Event) -> Result<u64, GpuError> {
        let ms = from.elapsed_ms(to).map_err(err("cuEventElapsedTime"))?;
        Ok((f64::from(ms) * 1e6) as u64)
    }

    fn settle(&self) -> Result<(), GpuError> {
        self.ctx.synchronize().map_err(err("cuCtxSynchronize"))
    }

    fn check(&self) -> Result<(), GpuError> {
        // cudarc records some failures (in its automatic cross-stream waits) instead of returning them.
        self.ctx.check_err().map_err(err("a queued CUDA operation"))
    }

    fn drain(&self, stream: &Self::Stream) {
        let _ = stream.synchronize();
    }
}

/// The driver call a failed launch of `name` reports.
fn launch_call(name: &'static str) -> &'static str {
    match name {
        "lz4_compress" => "cuLaunchKernel(lz4_compress)",
        "lz4_compact" => "cuLaunchKernel(lz4_compact)",
        _ => "cuLaunchKernel",
    }
}
