//! The compressor's CPU fallback on a fake engine (no GPU needed): injected faults before and after
//! earlier batches, and the switch to the CPU after a sticky error.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::*;
use crate::archive::Records;
use crate::codec::{PageCodec, ReferenceCodec};
use crate::gpu::engine::{chunk_ranges, ChunkOutcome, DecodeOutcome, VecStaging};
use crate::gpu::records_out::RecordsOut;
use crate::kernel_io::reference;
use crate::kernels::lz4::pages::{page, PageKind};
use crate::runtime::Clock;
use crate::runtime::Timings;

/// Compresses with the reference and reports fixed device-clock timings; counts the chunks it was given.
struct FakeEngine {
    chunks: Arc<AtomicUsize>,
    staging: VecStaging,
}

impl Engine for FakeEngine {
    fn info(&self) -> GpuDeviceInfo {
        GpuDeviceInfo {
            index: 0,
            name: "fake".into(),
            total_memory: 0,
            l2_cache_size: 0,
            compute_capability: (9, 0),
            backend: GpuBackend::Cuda,
        }
    }

    fn compress_chunks(
        &mut self,
        pages: &[Page],
        batch: usize,
        out: &mut RecordsOut<'_>,
    ) -> Vec<ChunkOutcome> {
        chunk_ranges(pages.len(), batch)
            .into_iter()
            .map(|range| {
                self.chunks.fetch_add(1, Ordering::SeqCst);
                let records = ReferenceCodec::default()
                    .compress(&pages[range.clone()])
                    .expect("reference");
                for (i, record) in range.zip(records) {
                    out.set_owned(i, record);
                }
                Ok(Timings {
                    upload_ns: 10,
                    kernel_ns: 20,
                    download_ns: 30,
                    kernel_clock: Clock::CudaEvents,
                    transfer_clock: Clock::CudaEvents,
                })
            })
            .collect()
    }

    fn staging(&mut self, pages: usize) -> Result<&mut [u8], GpuError> {
        Ok(self.staging.get_mut(pages))
    }

    fn host_pages(&mut self, _: usize) -> Result<HostPages, GpuError> {
        // As a device that cannot give page-locked memory: the compressor uses ordinary memory.
        Err(GpuError::NotAvailable("fake: no page-locked memory".into()))
    }

    fn staged(&self) -> Result<&[u8], GpuError> {
        Ok(self.staging.bytes())
    }

    fn compress_staged(
        &mut self,
        pages: usize,
        batch: usize,
        out: &mut RecordsOut<'_>,
    ) -> Vec<ChunkOutcome> {
        let mut staging = std::mem::take(&mut self.staging);
        let outcomes = staging.compress(pages, batch, |input| {
            self.compress_chunks(input, batch, out)
        });
        self.staging = staging;
        outcomes
    }

    fn decompress_chunks(
        &mut self,
        records: &dyn Records,
        batch: usize,
        out: &mut [Page],
    ) -> Vec<DecodeOutcome> {
        chunk_ranges(out.len(), batch)
            .into_iter()
            .map(|range| {
                self.chunks.fetch_add(1, Ordering::SeqCst);
                let first = range.start;
                Ok(reference::decompress_records(
                    records,
                    first,
                    &mut out[range],
                ))
            })
            .collect()
    }
}

fn compressor(batch_size: usize) -> (GpuBatchCompressor, Arc<AtomicUsize>) {
    let chunks = Arc::new(AtomicUsize::new(0));
    let config = GpuBatchConfig {
        batch_size,
        ..GpuBatchConfig::default()
    };
    let engine = FakeEngine {
        chunks: Arc::clone(&chunks),
        staging: VecStaging::default(),
    };
    (
        GpuBatchCompressor::with_engine(config, Box::new(engine)),
        chunks,
    )
}

fn pages(n: usize) -> Vec<Page> {
    let kinds = [
        PageKind::Text,
        PageKind::Zero,
        PageKind::Random,
        PageKind::Process,
    ];
    (0..n)
        .map(|i| page(kinds[i % kinds.len()], i as u64))
        .collect()
}

#[test]
fn a_fault_before_any_batch_redoes_that_chunk_on_the_cpu() {
    let (mut gpu, _) = compressor(4);
    let input = pages(10); // chunks of 4, 4, 2
    let expected = ReferenceCodec::default()
        .compress(&input)
        .expect("reference");
    gpu.inject_faults([1]);
    let result = gpu.compress_batch(&input).expect("compress_batch");
    assert_eq!(result.pages, expected);
    assert_eq!(result.cpu_fallback_pages, 4);
    assert_eq!(result.gpu_pages(), 6);
    assert_eq!(gpu.stats().cpu_fallbacks, 1);
    assert_eq!(gpu.stats().cpu_fallback_pages, 4);
    // Only the GPU's two chunks are in the stage times, with the engine's clocks.
    assert_eq!(
        (
            result.h2d_time_ns,
            result.kernel_time_ns,
            result.d2h_time_ns
        ),
        (20, 40, 60)
    );
    assert_eq!(result.kernel_clock, Clock::CudaEvents);
    assert!(result.summary().contains("4 of them compressed on the CPU"));
    assert!(result.summary().contains("over the 6 GPU pages"));
}

#[test]
fn a_fault_injected_after_earlier_batches_hits_the_next_call() {
    let (mut gpu, _) = compressor(4);
    let input = pages(8);
    let expected = ReferenceCodec::default()
        .compress(&input)
        .expect("reference");
    let first = gpu.compress_batch(&input).expect("first call");
    assert_eq!(
        (first.pages, first.cpu_fallback_pages),
        (expected.clone(), 0)
    );
    gpu.inject_faults([0]);
    let second = gpu.compress_batch(&input).expect("second call");
    assert_eq!(second.pages, expected);
    assert_eq!(second.cpu_fallback_pages, 4, "the next call's first chunk");
    assert_eq!(gpu.stats().cpu_fallbacks, 1);
    let third = gpu.compress_batch(&input).expect("third call");
    assert_eq!(third.cpu_fallback_pages, 0, "a fault fires once");
    assert!(gpu.unusable().is_none(), "an injected fault is not sticky");
}

#[test]
fn after_a_sticky_error_every_batch_goes_to_the_cpu() {
    let (mut gpu, chunks) = compressor(4);
    let input = pages(12);
    let expected = ReferenceCodec::default()
        .compress(&input)
        .expect("reference");
    gpu.inject_error(1, GpuError::cuda("cuLaunchKernel(lz4_compress)", 700));
    let result = gpu.compress_batch(&input).expect("compress_batch");
    assert_eq!(result.pages, expected);
    assert_eq!(result.cpu_fallback_pages, 4);
    let why = gpu.unusable().expect("poisoned").to_owned();
    assert!(why.contains("CUDA_ERROR_ILLEGAL_ADDRESS"), "{why}");
    let before = chunks.load(Ordering::SeqCst);
    let after = gpu.compress_batch(&input).expect("compress_batch");
    assert_eq!(after.pages, expected);
    assert_eq!(after.cpu_fallback_pages, 12);
    assert_eq!(after.kernel_time_ns, 0, "CPU time is never kernel time");
    let decoded = gpu
        .decompress_batch(&after.pages)
        .expect("decompress_batch");
    assert_eq!(decoded, input);
    assert_eq!(
        chunks.load(Ordering::SeqCst),
        before,
        "the engine got nothing after the sticky error"
    );
    assert_eq!(gpu.stats().cpu_fallback_pages, 4 + 12 + 12);
}

#[test]
fn a_lost_webgpu_device_is_sticky_too() {
    use crate::runtime::webgpu::WebGpuError;
    let (mut gpu, chunks) = compressor(4);
    let input = pages(8);
    let lost = GpuError::WebGpu(WebGpuError::DeviceLost("adapter `x`: device lost".into()));
    assert!(lost.is_sticky());
    assert!(!GpuError::WebGpu(WebGpuError::Map("a map failed".into())).is_sticky());
    gpu.inject_error(0, lost);
    let result = gpu.compress_batch(&input).expect("compress_batch");
    assert_eq!(result.pages.len(), 8);
    assert_eq!(result.cpu_fallback_pages, 4, "the chunk that lost it");
    assert!(gpu.unusable().expect("poisoned").contains("device lost"));
    let before = chunks.load(Ordering::SeqCst);
    gpu.compress_batch(&input).expect("compress_batch");
    assert_eq!(
        chunks.load(Ordering::SeqCst),
        before,
        "nothing more to the device"
    );
}
