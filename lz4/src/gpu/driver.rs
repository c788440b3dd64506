//! What the CUDA engine's host pipeline asks of a device: streams, events, device and page-locked
//! host buffers, asynchronous copies and kernel launches — the driver API's shape. [`RingEngine`]
//! (the ring, the meta-first compaction, decompression: both directions through the same ring) is
//! written once against it; `CudaDriver` answers with cudarc on a GPU, `LaunchDriver` with a runtime
//! launcher on the CPU (the simulator standing in for the driver), so the host logic that talks to
//! CUDA runs in CI, and `ReplayDriver` with recorded kernel outputs (`warpforge host-bench`).
//!
//! [`RingEngine`]: super::ring_state::RingEngine

use warpforge_ir::Verified;

use super::{GpuDeviceInfo, GpuError};
use crate::runtime::{Backend, Clock, Loaded};

/// Host memory addressed by a raw pointer that stays valid while the memory lives (so that
/// [`super::HostPages`] can hand it out without holding a reference into it).
pub trait HostMemory {
    /// The address of the first byte, derived without a reference to the bytes.
    fn base(&self) -> *const u8;
    /// The same, to write through.
    fn base_mut(&mut self) -> *mut u8;
    /// Bytes.
    fn bytes(&self) -> usize;
}

impl HostMemory for Vec<u8> {
    fn base(&self) -> *const u8 {
        self.as_ptr()
    }

    fn base_mut(&mut self) -> *mut u8 {
        self.as_mut_ptr()
    }

    fn bytes(&self) -> usize {
        self.len()
    }
}

/// A kernel argument: a device buffer the kernel reads, one it writes, or its working memory.
pub enum Arg<'a, B> {
    /// Read only.
    In(&'a B),
    /// Read and written: the launch's results.
    Out(&'a mut B),
    /// Read and written by the kernel for itself (the compress kernel's chain slots): no result, no
    /// initial contents.
    Scratch(&'a mut B),
}

/// The driver operations of the host pipeline. Work on one stream runs in issue order; an event
/// recorded on a stream completes when the work before it has; `wait` makes a stream's later work
/// wait for an event.
pub trait Driver {
    /// A queue of work.
    type Stream: Clone;
    /// A point in a stream's work, with a time.
    type Event;
    /// Device memory (bytes).
    type Buffer;
    /// Page-locked host memory (bytes), the source and target of asynchronous copies.
    type Host: HostMemory + Send + Sync + 'static;
    /// The caller's memory registered for copies in place ([`Driver::register`]).
    type Registration: Send + Sync + 'static;

    /// The device, as the batch API reports it.
    fn info(&self) -> GpuDeviceInfo;
    /// The backend and device in a line: `{backend} on {name}` unless the driver says more (the
    /// WebGPU driver adds how warps are lowered).
    fn describe(&self) -> String {
        self.info().describe()
    }
    /// The backend whose launch shape the kernels take (warps per block, blocks per launch): CUDA's
    /// unless the driver says otherwise.
    fn backend(&self) -> Backend {
        Backend::Cuda
    }
    /// Loads a kernel for this device.
    fn load(&self, kernel: &Verified<'_>) -> Result<Loaded, GpuError>;
    /// The clock the events measure kernels with.
    fn clock(&self) -> Clock;
    /// The clock the events measure copies with: the kernels' unless the driver says otherwise.
    fn transfer_clock(&self) -> Clock {
        self.clock()
    }
    /// Whether [`Driver::upload_from`] has read all of its source by the time it returns (WebGPU's
    /// `write_buffer` copies it into the driver's own staging memory first): then the ring uploads
    /// the caller's ordinary memory from where it is, with no copy into a page-locked buffer before.
    /// False by default, as on CUDA, whose copy engines read the source later (pageable memory is
    /// staged by the driver, slowly: the ring stages it itself); the drivers that stand in for CUDA
    /// on the CPU give CUDA's answer.
    fn uploads_read_when_queued(&self) -> bool {
        false
    }

    /// A new stream.
    fn stream(&self) -> Result<Self::Stream, GpuError>;
    /// A new event.
    fn event(&self) -> Result<Self::Event, GpuError>;
    /// `bytes` of device memory, zeroed.
    fn alloc(&self, stream: &Self::Stream, bytes: usize) -> Result<Self::Buffer, GpuError>;
    /// `bytes` of page-locked host memory; `host_reads` when the host reads it back (downloads land
    /// there), otherwise the host only writes it (it may be write-combined).
    fn alloc_host(&self, bytes: usize, host_reads: bool) -> Result<Self::Host, GpuError>;
    /// The host buffer's bytes (after the copies into it completed).
    fn host<'h>(&self, host: &'h Self::Host) -> Result<&'h [u8], GpuError>;
    /// The host buffer's bytes, to write (no copy from it may be pending).
    fn host_mut<'h>(&self, host: &'h mut Self::Host) -> Result<&'h mut [u8], GpuError>;

    /// Queues a copy of `len` bytes of `src`, from byte `offset`, to the start of `dst`
    /// ([`Driver::upload_from`] on those bytes).
    fn upload(
        &self,
        stream: &Self::Stream,
        src: &Self::Host,
        offset: usize,
        len: usize,
        dst: &mut Self::Buffer,
    ) -> Result<(), GpuError> {
        let host = self.host(src)?;
        let bytes = offset
            .checked_add(len)
            .and_then(|end| host.get(offset..end))
            .ok_or_else(|| {
                GpuError::Config(format!(
                    "an upload of {len} bytes from byte {offset} of a {}-byte host buffer",
                    host.len()
                ))
            })?;
        self.upload_from(stream, bytes, dst)
    }
    /// Registers `bytes` bytes of the caller's memory at `base` for [`Driver::upload_from`] and
    /// [`Driver::download_into`] in place until the registration is dropped: page-locked on CUDA
    /// (`cuMemHostRegister`); nothing on the drivers whose copies read and write any memory.
    ///
    /// # Safety
    ///
    /// The bytes must be one live allocation that outlives the registration.
    unsafe fn register(&self, base: *mut u8, bytes: usize) -> Result<Self::Registration, GpuError>;
    /// Queues a copy of `src` to the start of `dst`. Until an event recorded after it is
    /// synchronized (or the stream drained) `src` must stay alive, unmoved and unwritten: registered
    /// memory is read by the device while the host goes on.
    fn upload_from(
        &self,
        stream: &Self::Stream,
        src: &[u8],
        dst: &mut Self::Buffer,
    ) -> Result<(), GpuError>;
    /// Queues a copy of the first `dst.len()` bytes of `src` to `dst`, with
    /// [`Driver::download_at`]'s contract on `dst`.
    fn download_into(
        &self,
        stream: &Self::Stream,
        src: &Self::Buffer,
        dst: &mut [u8],
    ) -> Result<(), GpuError>;
    /// Queues a copy of the first `len` bytes of `src` to `dst`.
    fn download(
        &self,
        stream: &Self::Stream,
        src: &Self::Buffer,
        len: usize,
        dst: &mut Self::Host,
    ) -> Result<(), GpuError> {
        self.download_at(stream, src, len, dst, 0)
    }
    /// Queues a copy of the first `len` bytes of `src` to `dst` from byte `offset` on. The copy may
    /// land at any time until an event recorded after it is synchronized (or the stream drained): until
    /// then `dst` must stay alive, unmoved and unreferenced (the ring's slots and the caller's pages
    /// it downloads into are, for the whole call). [`Driver::download_into`] on those bytes.
    fn download_at(
        &self,
        stream: &Self::Stream,
        src: &Self::Buffer,
        len: usize,
        dst: &mut Self::Host,
        offset: usize,
    ) -> Result<(), GpuError> {
        let size = dst.bytes();
        if offset.checked_add(len).is_none_or(|end| end > size) {
            return Err(GpuError::Config(format!(
                "a download of {len} bytes to byte {offset} of a {size}-byte host buffer"
            )));
        }
        // SAFETY: `offset + len <= size` (checked above), so the bytes lie inside the buffer's
        // allocation. The pointer is derived without a reference to the buffer's bytes, so the
        // pointers earlier downloads into the same buffer hold stay valid, and nothing else refers to
        // these bytes while the copy is queued (this method's contract).
        let bytes = unsafe { std::slice::from_raw_parts_mut(dst.base_mut().add(offset), len) };
        self.download_into(stream, src, bytes)
    }
    /// Queues a launch of a page kernel over `pages` pages: `args`, then the page count.
    fn launch(
        &self,
        stream: &Self::Stream,
        kernel: &Loaded,
        name: &'static str,
        pages: usize,
        args: &mut [Arg<'_, Self::Buffer>],
    ) -> Result<(), GpuError>;

    /// Records `event` on `stream`.
    fn record(&self, event: &Self::Event, stream: &Self::Stream) -> Result<(), GpuError>;
    /// Makes `stream`'s later work wait for `event`.
    fn wait(&self, stream: &Self::Stream, event: &Self::Event) -> Result<(), GpuError>;
    /// Blocks the host until `event` completed.
    fn synchronize(&self, event: &Self::Event) -> Result<(), GpuError>;
    /// Nanoseconds between two completed events.
    fn elapsed_ns(&self, from: &Self::Event, to: &Self::Event) -> Result<u64, GpuError>;
    /// Waits for all queued work on the device (after allocating: zeroing queued on one stream must
    /// not land after another stream's first copy).
    fn settle(&self) -> Result<(), GpuError>;
    /// An error the driver recorded for queued work, if any.
    fn check(&self) -> Result<(), GpuError>;
    /// Waits for `stream` to drain, ignoring errors (after a failure).
    fn drain(&self, stream: &Self::Stream);
    /// At the start of each pipelined call: forget copies a previous call queued and never collected
    /// (a call that unwound from a panic), without writing their destinations.
    fn begin(&self) {}
}
