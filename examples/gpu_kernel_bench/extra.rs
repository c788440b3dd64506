//! The sections beside the throughput figures: the 64-page latency of the batch API (the seed's
//! real-time streaming case) and the LZ4 device functions inside a fused kernel
//! (`examples/lz4_fused`), both on CUDA.

use anyhow::{ensure, Context, Result};
use warpforge::codec::{PageCodec, ReferenceCodec};
use warpforge::gpu::latency::{percentile, round_trips};
use warpforge::gpu::{GpuBackend, GpuBatchCompressor, GpuBatchConfig};
use warpforge::PAGE_SIZE;

use crate::fused_run;
use crate::gpu::Page;
use crate::report::{Figure, Report, Scope};

/// `calls` round trips of one 64-page batch through the CUDA batch API at the default level (after
/// 20 untimed), p50 and p99 of each call's wall time; every call's records and pages checked.
pub fn latency(pages: &[Page], calls: usize, report: &mut Report) -> Result<()> {
    let mut compressor =
        GpuBatchCompressor::with_backend(GpuBatchConfig::default(), GpuBackend::Cuda)
            .context("the CUDA batch API")?;
    let batch = &pages[..pages.len().min(64)];
    let want = ReferenceCodec::default()
        .compress(batch)
        .context("the CPU reference")?;
    round_trips(&mut compressor, batch, &want, 20)?;
    let mut trips = round_trips(&mut compressor, batch, &want, calls)?;
    ensure!(
        trips.cpu_fallbacks == 0,
        "{} batches fell back to the CPU",
        trips.cpu_fallbacks
    );
    let n = batch.len();
    for (op, ms) in [
        ("compress", &mut trips.compress_ms),
        ("decompress", &mut trips.decompress_ms),
    ] {
        let seconds: Vec<f64> = ms.iter().map(|m| m / 1e3).collect();
        let p50 = percentile(ms, 0.50).unwrap_or(f64::NAN);
        let p99 = percentile(ms, 0.99).unwrap_or(f64::NAN);
        report.figures.push(Figure {
            backend: "warpforge batch API CUDA L2, 64-page calls".into(),
            op: op.into(),
            scope: Scope::HostToHost,
            clock: "host clock".into(),
            bytes: (n * PAGE_SIZE) as u64,
            seconds,
            ratio: None,
            fallback_pages: Some(0),
            verified_pages: (n * calls) as u64,
            note: format!(
                "latency: p50 {p50:.3} ms, p99 {p99:.3} ms over {calls} calls of one {n}-page batch \
                 ({}_into), wall time per call; every call's records equal the CPU reference and its \
                 pages came back",
                op
            ),
        });
    }
    Ok(())
}

/// The fused XOR-delta kernels beside the batch level-0 kernels on the first `count` pages, through
/// the runtime's CUDA launcher (kernel time by CUDA events; each launch's uploads untimed).
pub fn fused(pages: &[Page], count: usize, runs: usize, report: &mut Report) -> Result<()> {
    let launcher = warpforge::runtime::open(warpforge::runtime::Backend::Cuda, &[])?;
    let pages = &pages[..pages.len().min(count)];
    for f in fused_run::measure(&launcher, pages, runs)? {
        report.figures.push(Figure {
            backend: format!("warpforge CUDA {} (device functions)", f.kernel),
            op: f.op.into(),
            scope: Scope::DeviceResident,
            clock: f.clock,
            bytes: f.bytes,
            seconds: f.seconds,
            ratio: f.ratio,
            fallback_pages: None,
            verified_pages: f.verified,
            note:
                "through the runtime's Launcher, one warp per block, kernel time only (each launch \
                   uploads its buffers untimed); fused: the page XORed with a synthetic previous \
                   version (1 byte in 397 changed) in shared memory and compressed by the \
                   compress_page device function (decompress_page, then XOR back); every record \
                   equals the CPU reference's and every page is restored"
                    .into(),
        });
    }
    Ok(())
}
