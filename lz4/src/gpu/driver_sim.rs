//! [`Driver`] on a runtime [`Launcher`] running on the CPU (the simulator standing in for the CUDA
//! driver): the CUDA engine's host pipeline — ring, meta-first compaction, decompression — runs
//! unchanged, with its copies and launches executed in issue order when they are queued. Streams are
//! one queue (issue order satisfies every stream and event dependency), events record the host clock,
//! device and page-locked memory are host vectors. A launch goes through [`Launcher::launch`] with the
//! same buffers, page count and launch shape (`blocks_for(pages, Cuda)`) the GPU gets.

use std::cell::Cell;
use std::time::Instant;

use warpforge_ir::Verified;

use super::driver::{Arg, Driver};
use super::{GpuDeviceInfo, GpuError};
use crate::kernels::blocks_for;
use crate::runtime::{Backend, BufferArg, Clock, Launcher, Loaded};

/// A launcher driven like a CUDA device.
pub struct LaunchDriver {
    launcher: Launcher,
    /// When the driver was opened: events are nanoseconds since.
    epoch: Instant,
    /// What [`Driver::uploads_read_when_queued`] answers: CUDA's (false) unless a test asks for
    /// WebGPU's.
    uploads_read_when_queued: bool,
}

impl LaunchDriver {
    /// Drives `launcher` (the simulator: it runs the kernels the CUDA engine would launch).
    pub fn new(launcher: Launcher) -> LaunchDriver {
        LaunchDriver {
            launcher,
            epoch: Instant::now(),
            uploads_read_when_queued: false,
        }
    }

    /// The same driver answering WebGPU's `true` to [`Driver::uploads_read_when_queued`] (its
    /// uploads do read their source when queued).
    #[cfg(test)]
    pub(super) fn reading_uploads_when_queued(self) -> LaunchDriver {
        LaunchDriver {
            uploads_read_when_queued: true,
            ..self
        }
    }
}

impl Driver for LaunchDriver {
    type Stream = ();
    type Event = Cell<u64>;
    type Buffer = Vec<u8>;
    type Host = Vec<u8>;
    type Registration = ();

    fn info(&self) -> GpuDeviceInfo {
        GpuDeviceInfo {
            index: 0,
            name: format!("{} (driving the CUDA engine)", self.launcher.device_name()),
            total_memory: 0,
            l2_cache_size: 0,
            compute_capability: (0, 0),
            backend: self.launcher.backend().into(),
        }
    }

    fn load(&self, kernel: &Verified<'_>) -> Result<Loaded, GpuError> {
        Ok(self.launcher.load(kernel)?)
    }

    fn clock(&self) -> Clock {
        Clock::HostClock
    }

    fn uploads_read_when_queued(&self) -> bool {
        self.uploads_read_when_queued
    }

    fn stream(&self) -> Result<(), GpuError> {
        Ok(())
    }

    fn event(&self) -> Result<Cell<u64>, GpuError> {
        Ok(Cell::new(0))
    }

    fn alloc(&self, _: &(), bytes: usize) -> Result<Vec<u8>, GpuError> {
        Ok(vec![0; bytes])
    }

    fn alloc_host(&self, bytes: usize, _: bool) -> Result<Vec<u8>, GpuError> {
        Ok(vec![0; bytes])
    }

    fn host<'h>(&self, host: &'h Vec<u8>) -> Result<&'h [u8], GpuError> {
        Ok(host)
    }

    fn host_mut<'h>(&self, host: &'h mut Vec<u8>) -> Result<&'h mut [u8], GpuError> {
        Ok(host)
    }

    unsafe fn register(&self, _: *mut u8, _: usize) -> Result<(), GpuError> {
        // Copies here are host copies: they read and write any memory.
        Ok(())
    }

    fn upload_from(&self, _: &(), src: &[u8], dst: &mut Vec<u8>) -> Result<(), GpuError> {
        copy(src, src.len(), dst, "upload")
    }

    fn download_into(&self, _: &(), src: &Vec<u8>, dst: &mut [u8]) -> Result<(), GpuError> {
        copy(src, dst.len(), dst, "download")
    }

    fn launch(
        &self,
        _: &(),
        kernel: &Loaded,
        _name: &'static str,
        pages: usize,
        args: &mut [Arg<'_, Vec<u8>>],
    ) -> Result<(), GpuError> {
        let mut buffers: Vec<BufferArg<'_>> = args
            .iter_mut()
            .map(|a| match a {
                Arg::In(b) => BufferArg::ReadOnly(b.as_slice()),
                Arg::Out(b) | Arg::Scratch(b) => BufferArg::ReadWrite(b.as_mut_slice()),
            })
            .collect();
        let blocks = blocks_for(pages, Backend::Cuda);
        self.launcher
            .launch(kernel, blocks, &mut buffers, &[pages as u64])
            .map_err(GpuError::from)?;
        Ok(())
    }

    fn record(&self, event: &Cell<u64>, _: &()) -> Result<(), GpuError> {
        event.set(self.epoch.elapsed().as_nanos() as u64);
        Ok(())
    }

    fn wait(&self, _: &(), _: &Cell<u64>) -> Result<(), GpuError> {
        Ok(())
    }

    fn synchronize(&self, _: &Cell<u64>) -> Result<(), GpuError> {
        Ok(())
    }

    fn elapsed_ns(&self, from: &Cell<u64>, to: &Cell<u64>) -> Result<u64, GpuError> {
        Ok(to.get().saturating_sub(from.get()))
    }

    fn settle(&self) -> Result<(), GpuError> {
        Ok(())
    }

    fn check(&self) -> Result<(), GpuError> {
        Ok(())
    }

    fn drain(&self, _: &()) {}
}

/// Copies the first `len` bytes of `src` into `dst`, refusing a copy past either end (the GPU would
/// fault on it: here it is an error, not a panic).
pub(super) fn copy(src: &[u8], len: usize, dst: &mut [u8], what: &str) -> Result<(), GpuError> {
    if len > src.len() || len > dst.len() {
        return Err(GpuError::Sim(format!(
            "{what} of {len} bytes from a {}-byte buffer into a {}-byte one",
            src.len(),
            dst.len()
        )));
    }
    dst[..len].copy_from_slice(&src[..len]);
    Ok(())
}
