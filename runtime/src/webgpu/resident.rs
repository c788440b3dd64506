//! Device-resident work: buffers that stay on the device between launches
//! ([`WebGpuDevice::resident_buffer`]), writes into them, dispatches that bind them
//! ([`WebGpuDevice::dispatch_resident`]) and read-backs that are queued now and collected later
//! ([`WebGpuDevice::read_resident`], [`WebGpuDevice::finish_read`]). This is what a pipeline of
//! batches needs (the LZ4 batch API's ring), where [`WebGpuDevice::run`] creates every buffer, moves
//! each read-write one both ways and waits three times per launch.
//!
//! Everything goes to the device's one queue in issue order: a write is applied before any later
//! submission, a read-back copies what the submissions before it left. A dispatch is submitted without
//! waiting ([`WebGpuDevice::submit_resident`]) or waited for ([`WebGpuDevice::dispatch_resident`]);
//! either way its time comes from timestamp queries where the device has them (as
//! [`WebGpuDevice::run`]'s does). Every device stage runs inside error scopes.

use std::sync::mpsc;
use std::time::Instant;

use warpforge_wgsl::Wgsl;

use super::arguments::check_layout;
use super::device::WebGpuDevice;
use super::pipeline::Code;
use super::scopes::ErrorScopes;
use super::timestamps::Timestamps;
use super::transfer::{
    check_maps, copy_out, gpu_size, request_maps, staging, upload, write_padded,
};
use super::WebGpuError;
use crate::Clock;

/// A kernel's time and the clock that measured it: timestamp queries, or the host clock from its
/// submission to the wait that collected it (without building its pipeline).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelTime {
    /// Nanoseconds, by `clock`.
    pub ns: u64,
    /// [`Clock::WebGpuTimestamps`] where the device has them and the reading was usable, else
    /// [`Clock::HostClock`].
    pub clock: Clock,
    /// The host clock's figure, always (an upper bound).
    pub host_ns: u64,
}

/// A storage buffer on the device, kept between launches: zeroed when created.
pub struct ResidentBuffer {
    buffer: wgpu::Buffer,
    len: usize,
}

impl ResidentBuffer {
    /// Bytes it was created for (the device buffer is that, rounded up to whole words).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it was created for 0 bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A dispatch in flight ([`WebGpuDevice::submit_resident`]); [`WebGpuDevice::finish_dispatch`] waits
/// for it and gives its time. Dropping it abandons only the time.
pub struct Dispatch {
    submission: wgpu::SubmissionIndex,
    submitted: Instant,
    /// Its timestamps on their way back, where the device has them.
    timestamps: Option<(Timestamps, MapOutcomes)>,
}

/// The mapping outcomes of staging buffers, by index ([`request_maps`]).
type MapOutcomes = mpsc::Receiver<(usize, Result<(), wgpu::BufferAsyncError>)>;

/// A read-back in flight: the first `len` bytes of a resident buffer, copied into a mappable buffer by
/// a submitted command, its mapping requested.
pub struct Readback {
    staging: wgpu::Buffer,
    len: usize,
    submission: wgpu::SubmissionIndex,
    mapped: mpsc::Receiver<Result<(), wgpu::BufferAsyncError>>,
}

impl Readback {
    /// Bytes it reads.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it reads nothing.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl WebGpuDevice {
    /// A zeroed storage buffer of `len` bytes that stays on the device.
    ///
    /// # Errors
    ///
    /// [`WebGpuError::Arguments`] when the device cannot bind that many bytes; the device's errors.
    pub fn resident_buffer(&self, len: usize) -> Result<ResidentBuffer, WebGpuError> {
        let size = gpu_size(len as u64, 4);
        let limits = self.device.limits();
        let most = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        if size > most {
            return Err(WebGpuError::Arguments(format!(
                "a resident buffer of {len} bytes is more than adapter `{}` binds ({most} bytes: \
                 maxStorageBufferBindingSize, maxBufferSize)",
                self.summary.label()
            )));
        }
        self.check_health()?;
        let scopes = ErrorScopes::push(&self.device);
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("resident"),
            size,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        scopes.pop("allocate")?;
        Ok(ResidentBuffer { buffer, len })
    }

    /// Writes `bytes` at the start of `dst` (applied before any later submission; the bytes are copied
    /// now, so the caller may reuse them at once).
    ///
    /// # Errors
    ///
    /// [`WebGpuError::Arguments`] when `bytes` is longer than `dst`; the device's errors.
    pub fn write_resident(&self, dst: &ResidentBuffer, bytes: &[u8]) -> Result<(), WebGpuError> {
        if bytes.len() > dst.len {
            return Err(WebGpuError::Arguments(format!(
                "a write of {} bytes into a {}-byte resident buffer",
                bytes.len(),
                dst.len
            )));
        }
        let scopes = ErrorScopes::push(&self.device);
        write_padded(&self.queue, &dst.buffer, bytes);
        let outcome = scopes.pop("upload");
        self.after(outcome)
    }

    /// Dispatches `kernel` over `blocks` blocks on `buffers` (in binding order) with `scalars` (the
    /// parameter block's members in order, as for [`WebGpuDevice::run`]) and waits for it. Returns the
    /// kernel's time: from timestamp queries where the device has them and the reading is usable, else
    /// the host clock around the synchronized dispatch (the pipeline's first build not included).
    ///
    /// # Errors
    ///
    /// [`WebGpuError::Layout`] or [`WebGpuError::Arguments`] when the launch does not match the kernel;
    /// the pipeline's and the device's errors.
    pub fn dispatch_resident(
        &self,
        kernel: &Wgsl,
        blocks: u32,
        buffers: &[&ResidentBuffer],
        scalars: &[u64],
    ) -> Result<KernelTime, WebGpuError> {
        let dispatch = self.submit_resident(kernel, blocks, buffers, scalars)?;
        self.finish_dispatch(dispatch)
    }

    /// [`WebGpuDevice::dispatch_resident`] without waiting: the dispatch is submitted (after every
    /// earlier submission) and its time collected later with [`WebGpuDevice::finish_dispatch`].
    ///
    /// # Errors
    ///
    /// As [`WebGpuDevice::dispatch_resident`], for what shows before the kernel runs.
    pub fn submit_resident(
        &self,
        kernel: &Wgsl,
        blocks: u32,
        buffers: &[&ResidentBuffer],
        scalars: &[u64],
    ) -> Result<Dispatch, WebGpuError> {
        let outcome = self.submit_checked(kernel, blocks, buffers, scalars);
        self.after(outcome)
    }

    /// Waits for `dispatch` and returns the kernel's time: from its timestamp queries where the device
    /// has them and the reading is usable (one that could not be read back counts as unusable: the
    /// kernel's output is not in doubt), else the host clock from its submission to the end of this
    /// wait (an upper bound, the looser the later it is collected).
    ///
    /// # Errors
    ///
    /// The device's errors while the kernel ran.
    pub fn finish_dispatch(&self, dispatch: Dispatch) -> Result<KernelTime, WebGpuError> {
        let outcome = self.wait(dispatch.submission).map(|()| {
            let host_ns = dispatch.submitted.elapsed().as_nanos() as u64;
            let device_ns = dispatch.timestamps.as_ref().and_then(|(timestamps, maps)| {
                check_maps(maps, &["kernel timestamps"]).ok()?;
                timestamps.read(self.queue.get_timestamp_period()).ok()?
            });
            match device_ns {
                Some(ns) => KernelTime {
                    ns,
                    clock: Clock::WebGpuTimestamps,
                    host_ns,
                },
                None => KernelTime {
                    ns: host_ns,
                    clock: Clock::HostClock,
                    host_ns,
                },
            }
        });
        self.after(outcome)
    }

    /// [`WebGpuDevice::submit_resident`] before the health check that follows it.
    fn submit_checked(
        &self,
        kernel: &Wgsl,
        blocks: u32,
        buffers: &[&ResidentBuffer],
        scalars: &[u64],
    ) -> Result<Dispatch, WebGpuError> {
        check_layout(kernel)?;
        let name = &kernel.entry_point;
        if buffers.len() != kernel.buffers.len() || scalars.len() != kernel.params.members.len() {
            return Err(WebGpuError::Arguments(format!(
                "kernel `{name}` takes {} buffers and {} scalars, the launch gave {} and {}",
                kernel.buffers.len(),
                kernel.params.members.len(),
                buffers.len(),
                scalars.len()
            )));
        }
        let Some((x, y, z)) = kernel.dispatch(blocks) else {
            return Err(WebGpuError::Arguments(format!(
                "kernel `{name}`: {blocks} blocks cannot be dispatched"
            )));
        };
        self.check_health()?;
        let compiled = self
            .pipelines
            .get_or_build(&self.device, kernel, Code::Wgsl)?;
        let scopes = ErrorScopes::push(&self.device);
        let params = kernel.params_bytes_grid([blocks, 1, 1], scalars);
        let params = upload(
            &self.device,
            &self.queue,
            "params",
            &params,
            params.len() as u64,
            wgpu::BufferUsages::UNIFORM,
        );
        let buffers: Vec<&wgpu::Buffer> = buffers.iter().map(|b| &b.buffer).collect();
        let bind_group = compiled.bind_group(&self.device, kernel, &buffers, &params);
        let timestamps = Timestamps::new(&self.device);
        let mut encoder = compiled.encode(
            &self.device,
            kernel,
            &bind_group,
            (x, y, z),
            timestamps.as_ref(),
        );
        if let Some(timestamps) = &timestamps {
            timestamps.resolve(&mut encoder);
        }
        let submitted = Instant::now();
        let submission = self.queue.submit([encoder.finish()]);
        let timestamps = timestamps.map(|t| {
            let maps = request_maps(std::slice::from_ref(&t.staging));
            (t, maps)
        });
        scopes.pop("dispatch")?;
        Ok(Dispatch {
            submission,
            submitted,
            timestamps,
        })
    }

    /// Queues a copy of the first `len` bytes of `src` for the host and requests its mapping; collect
    /// it with [`WebGpuDevice::finish_read`].
    ///
    /// # Errors
    ///
    /// [`WebGpuError::Arguments`] when `len` is more than `src` holds; the device's errors.
    pub fn read_resident(&self, src: &ResidentBuffer, len: usize) -> Result<Readback, WebGpuError> {
        if len > src.len {
            return Err(WebGpuError::Arguments(format!(
                "a read of {len} bytes from a {}-byte resident buffer",
                src.len
            )));
        }
        let outcome = self.queue_read(src, len);
        self.after(outcome)
    }

    /// [`WebGpuDevice::read_resident`] before the health check that follows it.
    fn queue_read(&self, src: &ResidentBuffer, len: usize) -> Result<Readback, WebGpuError> {
        let size = gpu_size(len as u64, 4);
        let scopes = ErrorScopes::push(&self.device);
        let staging = staging(&self.device, "read-back", size);
        let mut encoder = (self.device).create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("read-back"),
        });
        encoder.copy_buffer_to_buffer(&src.buffer, 0, &staging, 0, size);
        let submission = self.queue.submit([encoder.finish()]);
        let (sender, mapped) = mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, .., move |outcome| {
            // The receiver lives in the read-back; a failed send means it was dropped unread.
            let _ = sender.send(outcome);
        });
        scopes.pop("read-back")?;
        Ok(Readback {
            staging,
            len,
            submission,
            mapped,
        })
    }

    /// Waits for `readback` and copies its bytes into `dst` (of its length).
    ///
    /// # Errors
    ///
    /// [`WebGpuError::Arguments`] when `dst` is not the read-back's length; [`WebGpuError::Map`] when the
    /// mapping failed; the device's errors.
    pub fn finish_read(&self, readback: Readback, dst: &mut [u8]) -> Result<(), WebGpuError> {
        if dst.len() != readback.len {
            return Err(WebGpuError::Arguments(format!(
                "a read-back of {} bytes into {} bytes",
                readback.len,
                dst.len()
            )));
        }
        let outcome = self.wait(readback.submission.clone()).and_then(|()| {
            match readback.mapped.try_recv() {
                Ok(Ok(())) => copy_out(&readback.staging, "read-back", dst),
                Ok(Err(error)) => Err(WebGpuError::Map(format!("read-back: {error}"))),
                Err(_) => Err(WebGpuError::Map(
                    "read-back was not mapped after waiting for the device".into(),
                )),
            }
        });
        self.after(outcome)
    }

    /// `outcome`, unless the device was lost or an error escaped the scopes meanwhile: after a failure
    /// the device is polled first, so that a loss is reported as such rather than as its symptom (as
    /// [`WebGpuDevice::run`] does).
    fn after<T>(&self, outcome: Result<T, WebGpuError>) -> Result<T, WebGpuError> {
        if outcome.is_err() {
            let _ = self.poll(wgpu::PollType::Poll);
        }
        self.check_health().and(outcome)
    }

    /// Waits for every submission so far.
    ///
    /// # Errors
    ///
    /// The device's errors (a lost device).
    pub fn wait_idle(&self) -> Result<(), WebGpuError> {
        let poll = wgpu::PollType::Wait {
            submission_index: None,
            timeout: None,
        };
        match self.poll(poll)? {
            Ok(_) => self.check_health(),
            Err(error) => Err(WebGpuError::Map(format!(
                "waiting for `{}`: {error}",
                self.summary.label()
            ))),
        }
    }

    /// `Err` if the device was lost, or if an error escaped the error scopes since the last check.
    ///
    /// # Errors
    ///
    /// As said.
    pub fn health(&self) -> Result<(), WebGpuError> {
        self.check_health()
    }
}
