//! Page codecs: the backends of `warpforge compress` and `decompress`. Each turns a batch of pages into
//! archive records and back.
//!
//! | backend | compresses with | archive bytes |
//! |---|---|---|
//! | `cpu` | lz4_flex on every core | lz4_flex's blocks |
//! | `reference` | warpforge's CPU reference on every core | identical to `webgpu` (and `cuda`) |
//! | `sim` | the LZ4 warp kernels on the CPU simulator (sanitizer on) | identical to `reference` |
//! | `webgpu` | the LZ4 warp kernels through wgpu | identical to `reference` |
//!
//! Every backend decodes every archive: the blocks are standard LZ4.

mod cpu;
mod cuda;
mod kernel_io;
mod sim;
mod webgpu;

use std::fmt;

pub use cuda::CudaCodec;
pub use kernel_io::{
    compress_through, decompress_through, gather_lz4, record_from_meta, scatter_decoded, Lz4Blocks,
};
pub use sim::SimCodec;
pub use webgpu::WebGpuCodec;

use crate::archive::Record;
use crate::kernels::lz4::{encode_page, lz4_decompress_block, PageEncoding};
use crate::PAGE_SIZE;

/// A page in memory.
pub type Page = [u8; PAGE_SIZE];

/// Which implementation runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// lz4_flex on all cores.
    Cpu,
    /// The CPU reference of the warp kernels, on all cores.
    Reference,
    /// The warp kernels on the CPU simulator (`warpforge_runtime::sim`).
    Sim,
    /// The warp kernels on a WebGPU adapter.
    WebGpu,
    /// The warp kernels on a CUDA GPU (from their PTX), through the GPU batch API.
    Cuda,
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Cpu => "cpu",
            Backend::Reference => "reference",
            Backend::Sim => "sim",
            Backend::WebGpu => "webgpu",
            Backend::Cuda => "cuda",
        })
    }
}

/// A page that could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// Index of the page within the batch.
    pub index: usize,
    /// What was wrong.
    pub detail: String,
}

/// Compresses and decompresses batches of pages.
pub trait PageCodec {
    /// The backend.
    fn backend(&self) -> Backend;
    /// The backend and, for a device, which one.
    fn describe(&self) -> String {
        self.backend().to_string()
    }
    /// Pages the streaming pipeline hands over per call: enough to keep the device busy (a CUDA ring
    /// needs `slots × batch_size` pages to overlap its transfers and kernels), few enough to bound
    /// memory. Default [`crate::pipeline::BATCH_PAGES`].
    fn batch_pages(&self) -> usize {
        crate::pipeline::BATCH_PAGES
    }
    /// One record per page.
    fn compress(&mut self, pages: &[Page]) -> anyhow::Result<Vec<Record>>;
    /// Decodes `records` into `out` (same length).
    fn decompress(
        &mut self,
        records: &[Record],
        out: &mut [Page],
    ) -> anyhow::Result<Result<(), DecodeError>>;
}

/// The record of an encoding from the reference algorithm (the kernels' format).
pub fn record_of(encoding: PageEncoding, page: &Page) -> Record {
    match encoding {
        PageEncoding::Lz4(block) => Record::Lz4(block),
        PageEncoding::Raw => Record::Raw(Box::new(*page)),
        PageEncoding::SameFilled(pattern) => Record::SameFilled(pattern),
    }
}

/// Fills `out` from a non-LZ4 record; `false` for an LZ4 record.
pub fn fill_simple(record: &Record, out: &mut Page) -> bool {
    match record {
        Record::Raw(page) => out.copy_from_slice(&page[..]),
        Record::SameFilled(pattern) => {
            for chunk in out.chunks_exact_mut(8) {
                chunk.copy_from_slice(&pattern.to_le_bytes());
            }
        }
        Record::Lz4(_) => return false,
    }
    true
}

/// Runs `f` over `items` split across the machine's cores, keeping order.
pub(crate) fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len().max(1));
    let chunk = items.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| s.spawn(|| part.iter().map(&f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a codec thread panicked"))
            .collect()
    })
}

/// Decodes LZ4 records with `decode` (which returns the decoded length), others directly, in parallel.
/// A block that does not decode to exactly one page is an error.
pub(crate) fn decode_all(
    records: &[Record],
    out: &mut [Page],
    decode: impl Fn(&[u8], &mut Page) -> Result<usize, String> + Sync,
) -> Result<(), DecodeError> {
    let decode = |block: &[u8], page: &mut Page| match decode(block, page) {
        Ok(n) if n == PAGE_SIZE => Ok(()),
        Ok(n) => Err(format!("the LZ4 block decodes to {n} bytes, not a page")),
        Err(e) => Err(e),
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = records.len().div_ceil(threads).max(1);
    let results: Vec<Result<(), DecodeError>> = std::thread::scope(|s| {
        let handles: Vec<_> = records
            .chunks(chunk)
            .zip(out.chunks_mut(chunk))
            .enumerate()
            .map(|(c, (recs, pages))| {
                let decode = &decode;
                s.spawn(move || {
                    for (i, (record, page)) in recs.iter().zip(pages.iter_mut()).enumerate() {
                        if let Record::Lz4(block) = record {
                            decode(block, page).map_err(|detail| DecodeError {
                                index: c * chunk + i,
                                detail,
                            })?;
                        } else {
                            fill_simple(record, page);
                        }
                    }
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a codec thread panicked"))
            .collect()
    });
    results.into_iter().collect()
}

/// warpforge's CPU reference: byte-identical to the kernels.
pub struct ReferenceCodec;

impl PageCodec for ReferenceCodec {
    fn backend(&self) -> Backend {
        Backend::Reference
    }

    fn compress(&mut self, pages: &[Page]) -> anyhow::Result<Vec<Record>> {
        Ok(parallel_map(pages, |p| record_of(encode_page(p), p)))
    }

    fn decompress(
        &mut self,
        records: &[Record],
        out: &mut [Page],
    ) -> anyhow::Result<Result<(), DecodeError>> {
        Ok(decode_all(records, out, |block, page| {
            lz4_decompress_block(block, page).map_err(|e| e.to_string())
        }))
    }
}

pub use cpu::{compress_page as cpu_compress_page, CpuCodec};
