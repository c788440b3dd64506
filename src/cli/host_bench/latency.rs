//! `warpforge host-bench`'s latency rows: the real-time streaming case of the seed, one 64-page batch
//! host-to-host per call (`compress_into`, then `decompress_into` of its records), 1,000 calls on the
//! replay driver; p50 and p99 of each call's wall time and of its host work (wall time minus the
//! driver's device stand-in time). Every call's records and pages are compared with the recorded
//! ones outside the timed region.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{ensure, Context};
use serde::Serialize;

use warpforge::archive::PackedRecords;
use warpforge::codec::Page;
use warpforge::gpu::latency::percentile;
use warpforge::gpu::{GpuBatchCompressor, GpuBatchConfig, ReplayTape};

/// Pages per call.
pub const PAGES: usize = 64;
/// Calls timed.
pub const CALLS: usize = 1000;

/// Percentiles of one direction, milliseconds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Percentiles {
    /// Host work per call (wall minus device stand-in), p50.
    pub host_p50_ms: f64,
    /// Host work per call, p99.
    pub host_p99_ms: f64,
    /// Wall time per call, p50.
    pub wall_p50_ms: f64,
    /// Wall time per call, p99.
    pub wall_p99_ms: f64,
}

/// The latency rows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Latency {
    /// Calls timed per direction.
    pub calls: usize,
    /// Pages redone on the CPU during the calls (must be 0: the replayed GPU path handled every
    /// page).
    pub cpu_fallback_pages: u64,
    /// `compress_into` of one 64-page batch.
    pub compress: Percentiles,
    /// `decompress_into` of its records.
    pub decompress: Percentiles,
    /// Pages per call.
    pub pages: usize,
}

fn percentiles(mut host: Vec<f64>, mut wall: Vec<f64>) -> Percentiles {
    Percentiles {
        host_p50_ms: percentile(&mut host, 0.50).unwrap_or(0.0),
        host_p99_ms: percentile(&mut host, 0.99).unwrap_or(0.0),
        wall_p50_ms: percentile(&mut wall, 0.50).unwrap_or(0.0),
        wall_p99_ms: percentile(&mut wall, 0.99).unwrap_or(0.0),
    }
}

/// Times `calls` round trips of the first [`PAGES`] pages of `pages` (cycled if fewer).
pub fn run(pages: &[Page], calls: usize, config: GpuBatchConfig) -> anyhow::Result<Latency> {
    ensure!(
        !pages.is_empty() && calls > 0,
        "latency needs pages and calls"
    );
    let batch: Vec<Page> = pages.iter().cycle().take(PAGES).copied().collect();
    let tape = ReplayTape::new(config.algorithm.lz4_level());
    let mut gpu = GpuBatchCompressor::replaying(config, Arc::clone(&tape))?;
    // The streaming caller's fastest path: its pages in the compressor's host pages (page-locked on
    // CUDA: uploaded from and decoded into without a copy).
    let mut input = gpu.host_pages(PAGES)?;
    input.copy_from_slice(&batch);
    let mut decoded = gpu.host_pages(PAGES)?;
    let mut recorded = PackedRecords::new();
    gpu.compress_into(&input, &mut recorded)
        .context("recording the latency batch")?;
    gpu.decompress_into(&recorded, &mut decoded)
        .context("recording the latency batch's decompression")?;
    ensure!(
        decoded == batch,
        "the recorded round trip changed the pages"
    );
    tape.replay();
    let mut packed = PackedRecords::new();
    let (mut ch, mut cw, mut dh, mut dw) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for call in 0..calls {
        tape.rewind();
        let (device, start) = (tape.device_ns(), Instant::now());
        gpu.compress_into(&input, &mut packed)?;
        let wall = start.elapsed().as_nanos() as f64;
        ch.push((wall - (tape.device_ns() - device) as f64) / 1e6);
        cw.push(wall / 1e6);
        ensure!(
            packed == recorded,
            "call {call}: other records than recorded"
        );
        decoded.iter_mut().for_each(|p| p.fill(0xa5));
        let (device, start) = (tape.device_ns(), Instant::now());
        gpu.decompress_into(&packed, &mut decoded)?;
        let wall = start.elapsed().as_nanos() as f64;
        dh.push((wall - (tape.device_ns() - device) as f64) / 1e6);
        dw.push(wall / 1e6);
        ensure!(
            decoded == batch,
            "call {call}: the round trip changed the pages"
        );
    }
    let cpu_fallback_pages = gpu.stats().cpu_fallback_pages;
    ensure!(
        cpu_fallback_pages == 0,
        "{cpu_fallback_pages} pages fell back to the CPU during the latency calls"
    );
    Ok(Latency {
        calls,
        cpu_fallback_pages,
        compress: percentiles(ch, cw),
        decompress: percentiles(dh, dw),
        pages: PAGES,
    })
}

impl Latency {
    /// Two text lines.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for (name, p) in [
            ("compress", &self.compress),
            ("decompress", &self.decompress),
        ] {
            s += &format!(
                "latency {name:<10} {}-page batch, {} calls: wall p50 {:.3} ms, p99 {:.3} ms; host work p50 {:.3} ms, p99 {:.3} ms; {} pages fell back to the CPU\n",
                self.pages, self.calls, p.wall_p50_ms, p.wall_p99_ms, p.host_p50_ms, p.host_p99_ms, self.cpu_fallback_pages
            );
        }
        s
    }
}
