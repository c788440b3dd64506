//! [`WebGpuDevice::run`]: one launch from host bytes to host bytes. Checks first, then upload, the
//! kernel's pipeline (from the device's cache, compiled on first use), bind, dispatch (with timestamp
//! queries where the device has them), copy to staging, map, wait and copy back; every device stage
//! inside error scopes.

use std::panic::{self, AssertUnwindSafe};
use std::time::Instant;

use warpforge_ir::Access;
use warpforge_wgsl::Wgsl;

use super::arguments::{check_arguments, check_layout, element_size, BufferArg};
use super::device::WebGpuDevice;
use super::pipeline::Code;
use super::requirements::shortfalls;
use super::scopes::ErrorScopes;
use super::timestamps::Timestamps;
use super::transfer::{check_maps, copy_out, gpu_size, request_maps, staging, upload};
use super::{AdapterShortfall, WebGpuError};
use crate::{Clock, Timings};

impl WebGpuDevice {
    /// Runs `kernel` over `blocks` blocks (workgroups). `buffers` are the buffer parameters in binding
    /// order ([`BufferArg::ReadOnly`] for `read` bindings, [`BufferArg::ReadWrite`] for `read_write` ones,
    /// little-endian elements); `scalars` are the scalar parameters' bits in `params.members` order (see
    /// `warpforge_ir::Literal::to_bits`). When it returns `Ok`, every `ReadWrite` slice holds the buffer's
    /// contents after the kernel.
    ///
    /// Upload (buffer creation and writes) and download (copy to staging, map, copy out) are timed on
    /// the host clock around synchronized submissions; the kernel time is the GPU's own, from timestamp
    /// queries at the beginning and end of the compute pass, where the device offers
    /// `wgpu::Features::TIMESTAMP_QUERY` and the reading is usable, else the host clock around the
    /// synchronized dispatch (an upper bound): [`Timings::kernel_clock`] says which. Pipeline creation
    /// (a compile on a kernel's first launch on a device, a cache lookup afterwards) is in none of them.
    ///
    /// # Errors
    ///
    /// [`WebGpuError::Arguments`] or [`WebGpuError::Layout`] before anything touches the device when the
    /// arguments do not match the kernel; [`WebGpuError::Unsupported`] when the kernel needs more than this
    /// device offers; [`WebGpuError::Validation`] (with wgpu's message) when the shader does not compile or
    /// validate or wgpu rejects a stage; [`WebGpuError::OutOfMemory`], [`WebGpuError::Internal`],
    /// [`WebGpuError::DeviceLost`] or [`WebGpuError::Map`] when the device fails.
    pub fn run(
        &self,
        kernel: &Wgsl,
        blocks: u32,
        buffers: &mut [BufferArg<'_>],
        scalars: &[u64],
    ) -> Result<Timings, WebGpuError> {
        self.run_code(kernel, Code::Wgsl, [blocks, 1, 1], buffers, scalars)
    }

    /// [`WebGpuDevice::run`] over a grid of `[x, y, z]` blocks (`x·y·z` workgroups; a kernel that
    /// reads the grid's shape gets it in its parameter block).
    ///
    /// # Errors
    ///
    /// As [`WebGpuDevice::run`].
    pub fn run_grid(
        &self,
        kernel: &Wgsl,
        grid: [u32; 3],
        buffers: &mut [BufferArg<'_>],
        scalars: &[u64],
    ) -> Result<Timings, WebGpuError> {
        self.run_code(kernel, Code::Wgsl, grid, buffers, scalars)
    }

    /// [`WebGpuDevice::run`] with the shader module built from `code`.
    pub(crate) fn run_code(
        &self,
        kernel: &Wgsl,
        code: Code<'_>,
        grid: [u32; 3],
        buffers: &mut [BufferArg<'_>],
        scalars: &[u64],
    ) -> Result<Timings, WebGpuError> {
        let blocks =
            u32::try_from(grid.iter().map(|&d| u64::from(d)).product::<u64>()).unwrap_or(u32::MAX);
        check_layout(kernel)?;
        let (x, y, z) = check_arguments(kernel, blocks, buffers, scalars)?;
        self.check_fits(kernel, (x, y, z), buffers)?;
        self.check_health()?;
        let outcome = self.launch(kernel, code, grid, (x, y, z), buffers, scalars);
        if outcome.is_err() {
            // A failure may be the symptom of a lost device: let wgpu deliver the device-lost callback
            // (it runs from a poll), and report the loss rather than its symptom.
            let _ = self.poll(wgpu::PollType::Poll);
        }
        self.check_health().and(outcome)
    }

    /// Checks the kernel's needs and the buffer sizes against this device's limits.
    fn check_fits(
        &self,
        kernel: &Wgsl,
        (x, y, z): (u32, u32, u32),
        buffers: &[BufferArg<'_>],
    ) -> Result<(), WebGpuError> {
        let limits = self.device.limits();
        let mut missing = shortfalls(&limits, self.device.features(), &kernel.requirements);
        let size = kernel.workgroup_size;
        if size > limits.max_compute_invocations_per_workgroup
            || size > limits.max_compute_workgroup_size_x
        {
            missing.push(format!(
                "maxComputeInvocationsPerWorkgroup is {}, maxComputeWorkgroupSizeX is {}, the kernel's \
                 workgroup has {size} invocations",
                limits.max_compute_invocations_per_workgroup, limits.max_compute_workgroup_size_x
            ));
        }
        let most = limits.max_compute_workgroups_per_dimension;
        if x.max(y).max(z) > most {
            missing.push(format!(
                "maxComputeWorkgroupsPerDimension is {most}, the launch dispatches ({x}, {y}, {z})"
            ));
        }
        if u64::from(kernel.params.size) > limits.max_uniform_buffer_binding_size {
            missing.push(format!(
                "maxUniformBufferBindingSize is {} bytes, the parameter block has {}",
                limits.max_uniform_buffer_binding_size, kernel.params.size
            ));
        }
        if !missing.is_empty() {
            return Err(WebGpuError::Unsupported {
                adapters: vec![AdapterShortfall {
                    adapter: self.summary.label(),
                    missing,
                }],
            });
        }
        let most = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        for (binding, arg) in kernel.buffers.iter().zip(buffers) {
            let size = gpu_size(arg.bytes().len() as u64, element_size(binding));
            if size > most {
                return Err(WebGpuError::Arguments(format!(
                    "kernel `{}`: buffer `{}` (binding {}) needs {size} bytes, more than this device \
                     binds ({most} bytes: maxStorageBufferBindingSize, maxBufferSize)",
                    kernel.entry_point, binding.name, binding.binding
                )));
            }
        }
        Ok(())
    }

    /// The device work of [`WebGpuDevice::run`], after every check passed.
    fn launch(
        &self,
        kernel: &Wgsl,
        code: Code<'_>,
        grid: [u32; 3],
        (x, y, z): (u32, u32, u32),
        buffers: &mut [BufferArg<'_>],
        scalars: &[u64],
    ) -> Result<Timings, WebGpuError> {
        let (device, queue) = (&self.device, &self.queue);

        let upload_start = Instant::now();
        let scopes = ErrorScopes::push(device);
        let gpu_buffers: Vec<wgpu::Buffer> = kernel
            .buffers
            .iter()
            .zip(buffers.iter())
            .map(|(binding, arg)| {
                let size = gpu_size(arg.bytes().len() as u64, element_size(binding));
                let usage = match binding.access {
                    Access::ReadOnly => wgpu::BufferUsages::STORAGE,
                    Access::ReadWrite => wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                };
                upload(device, queue, &binding.name, arg.bytes(), size, usage)
            })
            .collect();
        let params = kernel.params_bytes_grid(grid, scalars);
        let params_buffer = upload(
            device,
            queue,
            "params",
            &params,
            params.len() as u64,
            wgpu::BufferUsages::UNIFORM,
        );
        scopes.pop("upload")?;
        // Wait for the uploads, so the phases are timed apart.
        self.wait(queue.submit([]))?;
        let upload_ns = upload_start.elapsed().as_nanos() as u64;

        let compiled = self.pipelines.get_or_build(device, kernel, code)?;

        let scopes = ErrorScopes::push(device);
        let buffer_refs: Vec<&wgpu::Buffer> = gpu_buffers.iter().collect();
        let bind_group = compiled.bind_group(device, kernel, &buffer_refs, &params_buffer);
        scopes.pop("bind group")?;

        // The read-write buffers and their staging copies, in binding order.
        let outputs: Vec<(usize, &str, &wgpu::Buffer)> = kernel
            .buffers
            .iter()
            .zip(&gpu_buffers)
            .enumerate()
            .filter(|(_, (binding, _))| binding.access == Access::ReadWrite)
            .map(|(index, (binding, buffer))| (index, binding.name.as_str(), buffer))
            .collect();

        let scopes = ErrorScopes::push(device);
        let mut stagings: Vec<wgpu::Buffer> = outputs
            .iter()
            .map(|(_, name, buffer)| staging(device, name, buffer.size()))
            .collect();
        let timestamps = Timestamps::new(device);
        let kernel_start = Instant::now();
        let encoder = compiled.encode(device, kernel, &bind_group, (x, y, z), timestamps.as_ref());
        let dispatched = queue.submit([encoder.finish()]);
        scopes.pop("dispatch")?;
        self.wait(dispatched)?;
        let host_kernel_ns = kernel_start.elapsed().as_nanos() as u64;

        let download_start = Instant::now();
        let mut names: Vec<&str> = outputs.iter().map(|(_, name, _)| *name).collect();
        let scopes = ErrorScopes::push(device);
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("read-back"),
        });
        for ((_, _, buffer), staging) in outputs.iter().zip(&stagings) {
            encoder.copy_buffer_to_buffer(buffer, 0, staging, 0, buffer.size());
        }
        // The timestamps ride with the outputs: resolved, copied and mapped in the same submission.
        if let Some(timestamps) = &timestamps {
            timestamps.resolve(&mut encoder);
            stagings.push(timestamps.staging.clone());
            names.push("kernel timestamps");
        }
        let submission = queue.submit([encoder.finish()]);
        let maps = request_maps(&stagings);
        self.wait(submission)?;
        scopes.pop("read-back")?;
        check_maps(&maps, &names)?;

        // Read before the outputs are copied out, so a failure leaves the caller's buffers alone.
        let device_kernel_ns = match &timestamps {
            Some(timestamps) => timestamps.read(queue.get_timestamp_period())?,
            None => None,
        };
        for ((index, name, _), staging) in outputs.iter().zip(&stagings) {
            if let BufferArg::ReadWrite(destination) = &mut buffers[*index] {
                copy_out(staging, name, destination)?;
            }
        }
        let download_ns = download_start.elapsed().as_nanos() as u64;

        let (kernel_ns, kernel_clock) = match device_kernel_ns {
            Some(ns) => (ns, Clock::WebGpuTimestamps),
            None => (host_kernel_ns, Clock::HostClock),
        };
        Ok(Timings {
            upload_ns,
            kernel_ns,
            download_ns,
            kernel_clock,
            transfer_clock: Clock::HostClock,
        })
    }

    /// Blocks until `submission` has finished and its map callbacks ran.
    pub(super) fn wait(&self, submission: wgpu::SubmissionIndex) -> Result<(), WebGpuError> {
        let poll = wgpu::PollType::Wait {
            submission_index: Some(submission),
            timeout: None,
        };
        match self.poll(poll)? {
            Ok(_status) => Ok(()),
            Err(error) => Err(WebGpuError::Map(format!(
                "waiting for the dispatch on `{}`: {error}",
                self.summary.label()
            ))),
        }
    }

    /// `Device::poll`, except that wgpu's panic on a device that failed fatally (it panics rather than
    /// return an error there) becomes [`WebGpuError::DeviceLost`].
    pub(super) fn poll(
        &self,
        poll: wgpu::PollType,
    ) -> Result<Result<wgpu::PollStatus, wgpu::PollError>, WebGpuError> {
        panic::catch_unwind(AssertUnwindSafe(|| self.device.poll(poll))).map_err(|payload| {
            let message = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("Device::poll panicked")
                .to_owned();
            self.mark_lost(message.clone());
            WebGpuError::DeviceLost(format!("adapter `{}`: {message}", self.summary.label()))
        })
    }
}
