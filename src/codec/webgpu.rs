//! The `webgpu` backend: the LZ4 warp kernels (one warp per workgroup) on a WebGPU adapter.

use anyhow::Context;

use super::{fill_simple, Backend, DecodeError, Page, PageCodec};
use crate::archive::Record;
use crate::kernels::lz4::{decode_status, lz4_compress_kernel, lz4_decompress_kernel};
use crate::runtime::webgpu::{BufferArg, LaunchTimings, WebGpuDevice};
use crate::wgsl::Wgsl;
use crate::PAGE_SIZE;

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

fn word(bytes: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().expect("4 bytes"))
}

impl WebGpuCodec {
    /// Emits the kernels and opens a device that offers what they need.
    pub fn new() -> anyhow::Result<Self> {
        let compress = emit(&lz4_compress_kernel(1))?;
        let decompress = emit(&lz4_decompress_kernel(1))?;
        let mut needs = compress.requirements.clone();
        needs.workgroup_storage_bytes = needs
            .workgroup_storage_bytes
            .max(decompress.requirements.workgroup_storage_bytes);
        needs.shader_int64 |= decompress.requirements.shader_int64;
        let device =
            WebGpuDevice::new(&needs).context("no WebGPU adapter can run the LZ4 kernels")?;
        Ok(WebGpuCodec {
            device,
            compress,
            decompress,
        })
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
            total_memory: self.device.limits().max_buffer_size,
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
        if pages.is_empty() {
            return Ok((Vec::new(), LaunchTimings::default()));
        }
        let input: Vec<u8> = pages.as_flattened().to_vec();
        let mut output = vec![0u8; pages.len() * PAGE_SIZE];
        let mut meta = vec![0u8; pages.len() * 16];
        let mut buffers = [
            BufferArg::ReadOnly(&input),
            BufferArg::ReadWrite(&mut output),
            BufferArg::ReadWrite(&mut meta),
        ];
        let n = pages.len() as u32;
        let timings = self
            .device
            .run(&self.compress, n, &mut buffers, &[u64::from(n)])?;
        let records = pages
            .iter()
            .enumerate()
            .map(|(i, page)| {
                let (kind, len) = (word(&meta, 4 * i), word(&meta, 4 * i + 1) as usize);
                Ok(match kind {
                    0 if len < PAGE_SIZE => {
                        Record::Lz4(output[i * PAGE_SIZE..i * PAGE_SIZE + len].to_vec())
                    }
                    1 => Record::Raw(Box::new(*page)),
                    2 => Record::SameFilled(
                        u64::from(word(&meta, 4 * i + 2)) | u64::from(word(&meta, 4 * i + 3)) << 32,
                    ),
                    _ => anyhow::bail!(
                        "the compress kernel reported kind {kind}, length {len} for page {i}"
                    ),
                })
            })
            .collect::<anyhow::Result<Vec<Record>>>()?;
        Ok((records, timings))
    }

    /// [`PageCodec::decompress`] with the launch's measured times (zero when no page needed the GPU).
    pub fn decompress_timed(
        &mut self,
        records: &[Record],
        out: &mut [Page],
    ) -> anyhow::Result<(Result<(), DecodeError>, LaunchTimings)> {
        let mut lz4 = Vec::new();
        let (mut data, mut spans) = (Vec::new(), Vec::new());
        for (i, (record, page)) in records.iter().zip(out.iter_mut()).enumerate() {
            if let Record::Lz4(block) = record {
                lz4.push(i);
                spans.extend_from_slice(&(data.len() as u32).to_le_bytes());
                spans.extend_from_slice(&(block.len() as u32).to_le_bytes());
                data.extend_from_slice(block);
            } else {
                fill_simple(record, page);
            }
        }
        if lz4.is_empty() {
            return Ok((Ok(()), LaunchTimings::default()));
        }
        data.push(0); // never an empty buffer
        let mut decoded = vec![0u8; lz4.len() * PAGE_SIZE];
        let mut status = vec![0u8; lz4.len() * 4];
        let mut buffers = [
            BufferArg::ReadOnly(&data),
            BufferArg::ReadOnly(&spans),
            BufferArg::ReadWrite(&mut decoded),
            BufferArg::ReadWrite(&mut status),
        ];
        let n = lz4.len() as u32;
        let timings = self
            .device
            .run(&self.decompress, n, &mut buffers, &[u64::from(n)])?;
        for (k, &i) in lz4.iter().enumerate() {
            let s = word(&status, k);
            if s & 0xff != decode_status::OK {
                let reason = match s & 0xff {
                    decode_status::TRUNCATED => {
                        "a length or the literals run past the end of the block"
                    }
                    decode_status::BAD_OFFSET => "a match offset is 0 or points before the page",
                    decode_status::OVERFLOW => "the block decodes to more than a page",
                    _ => "the block ends with a match or decodes to less than a page",
                };
                let detail = format!("malformed LZ4 block at byte {}: {reason}", s >> 8);
                return Ok((Err(DecodeError { index: i, detail }), timings));
            }
            out[i].copy_from_slice(&decoded[k * PAGE_SIZE..(k + 1) * PAGE_SIZE]);
        }
        Ok((Ok(()), timings))
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
