//! [`GpuBatchCompressor`]: batches through a GPU engine, failed batches redone on the CPU.

use std::collections::BTreeSet;
use std::time::Instant;

use super::cuda::CudaEngine;
use super::engine::{Engine, WgpuEngine};
use super::{BatchResult, BatchStats, GpuBackend, GpuBatchConfig, GpuDeviceInfo, GpuError};
use crate::codec::{Page, PageCodec, ReferenceCodec, WebGpuCodec};
use crate::{CompressedPage, PAGE_SIZE};

/// Compresses and decompresses batches of pages on a GPU.
pub struct GpuBatchCompressor {
    config: GpuBatchConfig,
    engine: Box<dyn Engine>,
    stats: BatchStats,
    /// Batches (by running count) whose GPU result is replaced by an injected failure.
    faults: BTreeSet<u64>,
    batches_seen: u64,
}

impl GpuBatchCompressor {
    /// A compressor on CUDA device `config.device_index`.
    pub fn new(config: GpuBatchConfig) -> Result<GpuBatchCompressor, GpuError> {
        GpuBatchCompressor::with_backend(config, GpuBackend::Cuda)
    }

    /// A compressor on `backend`. WebGPU picks the best adapter and ignores `device_index`.
    pub fn with_backend(
        config: GpuBatchConfig,
        backend: GpuBackend,
    ) -> Result<GpuBatchCompressor, GpuError> {
        config.validate()?;
        let engine: Box<dyn Engine> = match backend {
            GpuBackend::Cuda => Box::new(CudaEngine::new(
                config.device_index,
                config.batch_size,
                config.ring_buffer_slots,
                config.async_dma,
            )?),
            GpuBackend::Wgpu => {
                let codec =
                    WebGpuCodec::new().map_err(|e| GpuError::NotAvailable(format!("{e:#}")))?;
                Box::new(WgpuEngine(codec))
            }
        };
        Ok(GpuBatchCompressor {
            config,
            engine,
            stats: BatchStats::default(),
            faults: BTreeSet::new(),
            batches_seen: 0,
        })
    }

    /// The configuration it was built with.
    pub fn config(&self) -> &GpuBatchConfig {
        &self.config
    }

    /// The device in use.
    pub fn device(&self) -> GpuDeviceInfo {
        self.engine.info()
    }

    /// Running totals over every `compress_batch` call.
    pub fn stats(&self) -> &BatchStats {
        &self.stats
    }

    /// Makes the GPU result of the given batches (counted from 0 over this compressor's life, in
    /// `batch_size` chunks) count as failed, to exercise the CPU fallback. For tests.
    #[doc(hidden)]
    pub fn inject_faults(&mut self, batches: impl IntoIterator<Item = u64>) {
        self.faults.extend(batches);
    }

    /// Compresses `pages` in chunks of `batch_size`. A chunk the GPU fails is redone on the CPU (logged
    /// to stderr and counted in [`BatchStats::cpu_fallbacks`]); the records are the same either way.
    pub fn compress_batch(&mut self, pages: &[[u8; PAGE_SIZE]]) -> Result<BatchResult, GpuError> {
        let start = Instant::now();
        let batch = self.config.batch_size;
        let outcomes = self.engine.compress_chunks(pages, batch);
        let mut result = BatchResult {
            pages: Vec::with_capacity(pages.len()),
            h2d_time_ns: 0,
            kernel_time_ns: 0,
            d2h_time_ns: 0,
            total_time_ns: 0,
        };
        for (k, (chunk, outcome)) in pages.chunks(batch).zip(outcomes).enumerate() {
            let global = self.batches_seen + k as u64;
            let outcome = match self.faults.remove(&global) {
                true => Err(GpuError::Injected(format!("batch {global}"))),
                false => outcome,
            };
            match outcome {
                Ok((records, t)) if records.len() == chunk.len() => {
                    result.pages.extend(records);
                    result.h2d_time_ns += t.h2d_ns;
                    result.kernel_time_ns += t.kernel_ns;
                    result.d2h_time_ns += t.d2h_ns;
                }
                outcome => {
                    let why = match outcome {
                        Err(e) => e.to_string(),
                        Ok((records, _)) => {
                            format!("{} records for {} pages", records.len(), chunk.len())
                        }
                    };
                    let first = k * batch;
                    eprintln!(
                        "warpforge: GPU batch {global} (pages {first}..{}) failed: {why}; compressing it on the CPU",
                        first + chunk.len()
                    );
                    let records = ReferenceCodec
                        .compress(chunk)
                        .map_err(|e| GpuError::NotAvailable(format!("CPU fallback: {e:#}")))?;
                    result.pages.extend(records);
                    self.stats.cpu_fallbacks += 1;
                    self.stats.last_failure = Some(why);
                }
            }
        }
        self.batches_seen += pages.len().div_ceil(batch) as u64;
        result.total_time_ns = start.elapsed().as_nanos().max(1) as u64;
        self.stats.pages_compressed += pages.len() as u64;
        self.stats.total_bytes_in += (pages.len() * PAGE_SIZE) as u64;
        self.stats.total_bytes_out += result
            .pages
            .iter()
            .map(CompressedPage::encoded_len)
            .sum::<usize>() as u64;
        self.stats.total_time_ns += result.total_time_ns;
        Ok(result)
    }

    /// Decompresses `pages` in chunks of `batch_size`. A chunk the GPU fails is redone on the CPU; a
    /// malformed page is [`GpuError::Corrupt`] with its index in `pages`.
    pub fn decompress_batch(
        &mut self,
        pages: &[CompressedPage],
    ) -> Result<Vec<[u8; PAGE_SIZE]>, GpuError> {
        let batch = self.config.batch_size;
        let mut out: Vec<Page> = vec![[0u8; PAGE_SIZE]; pages.len()];
        for (k, (records, dst)) in pages.chunks(batch).zip(out.chunks_mut(batch)).enumerate() {
            let first = k * batch;
            let decoded = match self.engine.decompress_chunk(records, dst) {
                Ok(decoded) => decoded,
                Err(e) => {
                    eprintln!(
                        "warpforge: GPU decompression of pages {first}..{} failed: {e}; decoding them on the CPU",
                        first + records.len()
                    );
                    self.stats.cpu_fallbacks += 1;
                    self.stats.last_failure = Some(e.to_string());
                    ReferenceCodec
                        .decompress(records, dst)
                        .map_err(|e| GpuError::NotAvailable(format!("CPU fallback: {e:#}")))?
                }
            };
            decoded.map_err(|e| GpuError::Corrupt {
                page: first + e.index,
                detail: e.detail,
            })?;
        }
        Ok(out)
    }
}
