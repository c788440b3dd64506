//! [`Driver`] on a CUDA GPU through the runtime's queue API (`warpforge_runtime::cuda`): streams,
//! events with timing (blocking sync, so the host sleeps while it waits), device memory, pinned host
//! memory as plain slices (the copies stay asynchronous: the driver sees pinned pages; the ring's
//! events order them), launches from the kernels' launch metadata through [`Stream::launch`].

use warpforge_ir::Verified;

use super::driver::{Arg, Driver, HostMemory};
use super::{GpuDeviceInfo, GpuError};
use crate::kernels::blocks_for;
use crate::runtime::cuda::{
    CudaDevice, DeviceBytes, Event, HostRegistration, KernelArg, PinnedBytes, Scalar, Stream,
};
use crate::runtime::{Backend, Clock, Launcher, Loaded};

/// A CUDA device through the driver API.
pub struct CudaDriver {
    launcher: Launcher,
    info: GpuDeviceInfo,
}

impl CudaDriver {
    /// Opens device `index`.
    pub fn new(index: u32) -> Result<CudaDriver, GpuError> {
        let device = CudaDevice::new(index)?;
        let info = GpuDeviceInfo::from(device.info());
        Ok(CudaDriver {
            launcher: Launcher::Cuda(device),
            info,
        })
    }

    fn device(&self) -> &CudaDevice {
        match &self.launcher {
            Launcher::Cuda(device) => device,
            _ => unreachable!("a CudaDriver is built on a CUDA launcher"),
        }
    }
}

impl Driver for CudaDriver {
    type Stream = Stream;
    type Event = Event;
    type Buffer = DeviceBytes;
    type Host = PinnedBytes;
    type Registration = HostRegistration;

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
        Ok(self.device().new_stream()?)
    }

    fn event(&self) -> Result<Self::Event, GpuError> {
        // Blocking sync: the host sleeps rather than spins while it waits (timing stays enabled).
        Ok(self.device().new_event()?)
    }

    fn alloc(&self, stream: &Self::Stream, bytes: usize) -> Result<Self::Buffer, GpuError> {
        Ok(stream.alloc(bytes)?)
    }

    fn alloc_host(&self, bytes: usize, host_reads: bool) -> Result<Self::Host, GpuError> {
        // Pinned buffers are written by the host (or by a copy) before they are read, and only the
        // written prefix is read. Buffers the host reads are not write-combined.
        Ok(self.device().alloc_pinned(bytes, host_reads)?)
    }

    fn host<'h>(&self, host: &'h Self::Host) -> Result<&'h [u8], GpuError> {
        Ok(host.as_slice()?)
    }

    fn host_mut<'h>(&self, host: &'h mut Self::Host) -> Result<&'h mut [u8], GpuError> {
        Ok(host.as_mut_slice()?)
    }

    unsafe fn register(&self, base: *mut u8, bytes: usize) -> Result<HostRegistration, GpuError> {
        // SAFETY: the caller's contract, passed on.
        Ok(unsafe { self.device().register_host(base, bytes) }?)
    }

    fn upload_from(
        &self,
        stream: &Self::Stream,
        src: &[u8],
        dst: &mut Self::Buffer,
    ) -> Result<(), GpuError> {
        Ok(stream.upload(src, dst)?)
    }

    fn download_into(
        &self,
        stream: &Self::Stream,
        src: &Self::Buffer,
        dst: &mut [u8],
    ) -> Result<(), GpuError> {
        Ok(stream.download(src, dst)?)
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
        let mut launch: Vec<KernelArg<'_>> = args
            .iter_mut()
            .map(|arg| match arg {
                Arg::In(b) => KernelArg::Buffer(b),
                Arg::Out(b) | Arg::Scratch(b) => KernelArg::BufferMut(b),
            })
            .collect();
        launch.push(KernelArg::Scalar(Scalar::B4(pages as u32)));
        // SAFETY: the page kernels take their buffers in this order and then the page count; every
        // buffer holds a whole batch, of which the kernel touches the first `count` pages (the
        // compaction's offsets come from the meta words, so every block lands inside its output;
        // the decompress kernel reads each block within its span, which the host placed inside the
        // uploaded, 16-byte padded blocks, and rejects longer blocks before reading them).
        unsafe { stream.launch(&kernel.function, cfg, &mut launch, launch_call(name)) }?;
        Ok(())
    }

    fn record(&self, event: &Self::Event, stream: &Self::Stream) -> Result<(), GpuError> {
        Ok(stream.record(event)?)
    }

    fn wait(&self, stream: &Self::Stream, event: &Self::Event) -> Result<(), GpuError> {
        Ok(stream.wait(event)?)
    }

    fn synchronize(&self, event: &Self::Event) -> Result<(), GpuError> {
        Ok(event.synchronize()?)
    }

    fn elapsed_ns(&self, from: &Self::Event, to: &Self::Event) -> Result<u64, GpuError> {
        Ok(from.elapsed_ns(to)?)
    }

    fn settle(&self) -> Result<(), GpuError> {
        Ok(self.device().synchronize()?)
    }

    fn check(&self) -> Result<(), GpuError> {
        // the driver records some failures (in cudarc's automatic cross-stream waits) instead of
        // returning them
        Ok(self.device().check()?)
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

impl HostMemory for PinnedBytes {
    fn base(&self) -> *const u8 {
        self.as_ptr()
    }

    fn base_mut(&mut self) -> *mut u8 {
        self.as_ptr()
    }

    fn bytes(&self) -> usize {
        self.len()
    }
}
