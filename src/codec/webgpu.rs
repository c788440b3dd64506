//! The `webgpu` backend: the LZ4 warp kernels (one warp per workgroup) on a WebGPU adapter.

use std::sync::OnceLock;

use anyhow::Context;

use super::{compress_through, decompress_through, Backend, DecodeError, Page, PageCodec};
use crate::archive::Record;
use crate::kernels::lz4::{lz4_compress_kernel, lz4_decompress_kernel};
use crate::runtime::webgpu::{LaunchTimings, WebGpuDevice};
use crate::wgsl::{Requirements, Wgsl};

/// The kernels, emitted once, and a device that runs both.
pub struct WebGpuCodec {
    device: WebGpuDevice,
    compress: Wgsl,
    decompress: Wgsl,
}

fn emit(kernel: &warpforge_ir::Kernel) -> anyhow::Result<Wgsl> {
    let verified = warpforge_ir::verify(kernel)?;
    Ok(warpforge_wgsl::emit(&verified)?)
}

/// The compress and decompress kernels' WGSL, one warp per workgroup: emitted (and validated by naga)
/// once per process, since `auto` probes with their requirements and then opens a codec with them.
fn kernels() -> anyhow::Result<(Wgsl, Wgsl)> {
    static KERNELS: OnceLock<Result<(Wgsl, Wgsl), String>> = OnceLock::new();
    KERNELS
        .get_or_init(|| {
            let both = || -> anyhow::Result<(Wgsl, Wgsl)> {
                Ok((
                    emit(&lz4_compress_kernel(1))?,
                    emit(&lz4_decompress_kernel(1))?,
                ))
            };
            both().map_err(|e| format!("{e:#}"))
        })
        .clone()
        .map_err(anyhow::Error::msg)
}

/// What a device needs to run both kernels.
fn joint_requirements(compress: &Wgsl, decompress: &Wgsl) -> Requirements {
    let (a, b) = (&compress.requirements, &decompress.requirements);
    Requirements {
        workgroup_storage_bytes: a.workgroup_storage_bytes.max(b.workgroup_storage_bytes),
        invocations_per_workgroup: a.invocations_per_workgroup.max(b.invocations_per_workgroup),
        storage_buffers: a.storage_buffers.max(b.storage_buffers),
        shader_int64: a.shader_int64 || b.shader_int64,
    }
}

impl WebGpuCodec {
    /// Emits the kernels and opens a device that offers what they need.
    pub fn new() -> anyhow::Result<Self> {
        let (compress, decompress) = kernels()?;
        let device = WebGpuDevice::new(&joint_requirements(&compress, &decompress))
            .context("no WebGPU adapter can run the LZ4 kernels")?;
        Ok(WebGpuCodec {
            device,
            compress,
            decompress,
        })
    }

    /// What an adapter must offer to run the LZ4 kernels (see
    /// [`find_adapter`](crate::runtime::webgpu::find_adapter)).
    pub fn requirements() -> anyhow::Result<Requirements> {
        let (compress, decompress) = kernels()?;
        Ok(joint_requirements(&compress, &decompress))
    }

    /// The adapter in use.
    pub fn adapter(&self) -> String {
        self.device.adapter().to_string()
    }

    /// The adapter as a device description.
    pub fn device_info(&self) -> crate::gpu::GpuDeviceInfo {
        crate::gpu::GpuDeviceInfo {
            index: 0,
            name: self.device.adapter().name.clone(),
            // WebGPU reports no device memory or cache size (max_buffer_size is a per-buffer limit).
            total_memory: 0,
            l2_cache_size: 0,
            compute_capability: (0, 0),
            backend: crate::gpu::GpuBackend::Wgpu,
        }
    }

    /// [`PageCodec::compress`] with the launch's measured upload / kernel / download times.
    pub fn compress_timed(
        &mut self,
        pages: &[Page],
    ) -> anyhow::Result<(Vec<Record>, LaunchTimings)> {
        compress_through(pages, |buffers, n| {
            Ok(self
                .device
                .run(&self.compress, n, buffers, &[u64::from(n)])?)
        })
    }

    /// [`PageCodec::decompress`] with the launch's measured times (zero when no page needed the GPU).
    pub fn decompress_timed(
        &mut self,
        records: &[Record],
        out: &mut [Page],
    ) -> anyhow::Result<(Result<(), DecodeError>, LaunchTimings)> {
        decompress_through(records, out, |buffers, n| {
            Ok(self
                .device
                .run(&self.decompress, n, buffers, &[u64::from(n)])?)
        })
    }
}

impl PageCodec for WebGpuCodec {
    fn backend(&self) -> Backend {
        Backend::WebGpu
    }

    fn describe(&self) -> String {
        format!("webgpu on {}", self.adapter())
    }

    fn compress(&mut self, pages: &[Page]) -> anyhow::Result<Vec<Record>> {
        Ok(self.compress_timed(pages)?.0)
    }

    fn decompress(
        &mut self,
        records: &[Record],
        out: &mut [Page],
    ) -> anyhow::Result<Result<(), DecodeError>> {
        Ok(self.decompress_timed(records, out)?.0)
    }
}
