//! The GPU batch API as its docs show it, at scale: compress pages with `compress_batch`, check every
//! record against the CPU reference and every page against an independent LZ4 decoder (lz4_flex),
//! decompress with `decompress_batch`, and print the measured H2D / kernel / D2H times next to the
//! device's host-to-device bandwidth.
//!
//! ```text
//! cargo run --release --example gpu_batch -- [--backend auto|cuda|wgpu] [--pages FILE] [--mib N] [--batch N] [--no-async] [--latency-calls N]
//! ```
//!
//! Then the latency of the seed's real-time streaming case: `--latency-calls` (default 1000) calls of
//! one 64-page batch host-to-host (`compress_into`, then `decompress_into` of its records), p50 and p99
//! of each call's wall time (host clock), every call's records and pages checked outside the timed
//! region; 0 skips it.
//!
//! `--pages` is a file of whole 4 KiB pages (default: the embedded sample of real pages), repeated until
//! `--mib` MiB (default 64) are queued. Without `--backend`, the backend is picked as `--backend auto` picks (`GpuBatchCompressor::auto`: CUDA, else a hardware WebGPU adapter). Exits non-zero on any mismatch. `scripts/gpu-check.sh` runs it
//! with 1 GiB on CUDA.

use std::process::ExitCode;

use warpforge::codec::{PageCodec, ReferenceCodec};
use warpforge::gpu::{measure_h2d_gbps, GpuBackend, GpuBatchCompressor, GpuBatchConfig, GpuError};
use warpforge::{CompressedPage, PAGE_SIZE};

struct Args {
    /// `None`: as `--backend auto` picks (`GpuBatchCompressor::auto`).
    backend: Option<GpuBackend>,
    pages: Option<String>,
    mib: usize,
    batch: usize,
    no_async: bool,
    latency_calls: usize,
}

fn parse() -> Result<Args, String> {
    let mut args = Args {
        backend: None,
        pages: None,
        mib: 64,
        batch: GpuBatchConfig::default().batch_size,
        no_async: false,
        latency_calls: 1000,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--backend" => {
                args.backend = match value()?.as_str() {
                    "cuda" => Some(GpuBackend::Cuda),
                    "wgpu" | "webgpu" => Some(GpuBackend::WebGpu),
                    "auto" => None,
                    other => return Err(format!("--backend {other}: expected auto, cuda or wgpu")),
                }
            }
            "--pages" => args.pages = Some(value()?),
            "--mib" => args.mib = value()?.parse().map_err(|e| format!("--mib: {e}"))?,
            "--no-async" => args.no_async = true,
            "--latency-calls" => {
                args.latency_calls = value()?
                    .parse()
                    .map_err(|e| format!("--latency-calls: {e}"))?
            }
            "--batch" => args.batch = value()?.parse().map_err(|e| format!("--batch: {e}"))?,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

fn load(path: Option<&str>) -> Result<Vec<[u8; PAGE_SIZE]>, String> {
    let Some(path) = path else {
        return warpforge::sample_pages().map_err(|e| e.to_string());
    };
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    if bytes.is_empty() || bytes.len() % PAGE_SIZE != 0 {
        return Err(format!(
            "{path}: {} bytes is not a whole, non-zero number of pages",
            bytes.len()
        ));
    }
    Ok(bytes
        .chunks_exact(PAGE_SIZE)
        .map(|c| c.try_into().expect("a page"))
        .collect())
}

fn run(args: Args) -> Result<(), String> {
    let source = load(args.pages.as_deref())?;
    let count = (args.mib << 20) / PAGE_SIZE;
    let pages: Vec<[u8; PAGE_SIZE]> = source.iter().cycle().take(count.max(1)).copied().collect();
    let config = if args.no_async {
        GpuBatchConfig {
            batch_size: args.batch,
            async_dma: false,
            ring_buffer_slots: 1,
            ..GpuBatchConfig::default()
        }
    } else {
        GpuBatchConfig {
            batch_size: args.batch,
            ..GpuBatchConfig::default()
        }
    };
    let mut compressor = match args.backend {
        Some(backend) => GpuBatchCompressor::with_backend(config, backend),
        None => GpuBatchCompressor::auto(config),
    }
    .map_err(|e| format!("{e} (`--backend wgpu` runs on a software adapter)"))?;
    let device = compressor.device();
    println!(
        "device: {} ({:?}), {} pages ({} MiB), batch {}",
        device.name,
        device.backend,
        pages.len(),
        (pages.len() * PAGE_SIZE) >> 20,
        args.batch
    );

    let result = compressor
        .compress_batch(&pages)
        .map_err(|e| e.to_string())?;
    let stages = result.h2d_time_ns + result.kernel_time_ns + result.d2h_time_ns;
    let gbps = result.throughput_bytes_per_sec(pages.len() * PAGE_SIZE) / 1e9;
    println!(
        "compress_batch: H2D {:.3} ms, D2H {:.3} ms ({}), kernels {:.3} ms ({}), sum {:.3} ms, total {:.3} ms (host clock){}",
        result.h2d_time_ns as f64 / 1e6,
        result.d2h_time_ns as f64 / 1e6,
        result.transfer_clock,
        result.kernel_time_ns as f64 / 1e6,
        result.kernel_clock,
        stages as f64 / 1e6,
        result.total_time_ns as f64 / 1e6,
        if result.total_time_ns < stages { " (stages overlapped)" } else { "" }
    );
    println!(
        "ratio {:.3}x, end-to-end {gbps:.2} GB/s (host clock), {} pages redone on the CPU, PCIe rule satisfied: {}",
        result.compression_ratio(),
        result.cpu_fallback_pages,
        result.pcie_rule_satisfied()
    );
    println!("summary: {}", result.summary());
    if device.backend == GpuBackend::Cuda {
        let h2d = measure_h2d_gbps(device.index, 256 << 20).map_err(|e| e.to_string())?;
        println!(
            "measured H2D bandwidth {h2d:.2} GB/s; end-to-end is {:.0}% of it",
            100.0 * gbps / h2d
        );
    }
    let stats = compressor.stats();
    if stats.cpu_fallbacks > 0 {
        return Err(format!(
            "{} batches fell back to the CPU: {:?}",
            stats.cpu_fallbacks, stats.last_failure
        ));
    }

    // Check: records equal the CPU reference, each LZ4 block decodes (lz4_flex) to its page.
    let reference = ReferenceCodec::default()
        .compress(&pages)
        .map_err(|e| e.to_string())?;
    if let Some(i) = (0..pages.len()).find(|&i| result.pages[i] != reference[i]) {
        return Err(format!(
            "page {i}: GPU record differs from the CPU reference"
        ));
    }
    for (i, (record, page)) in result.pages.iter().zip(&pages).enumerate() {
        if let CompressedPage::Lz4(block) = record {
            let decoded = lz4_flex::block::decompress(block, PAGE_SIZE)
                .map_err(|e| format!("page {i}: lz4_flex: {e}"))?;
            if decoded != page[..] {
                return Err(format!("page {i}: lz4_flex decodes a different page"));
            }
        }
    }
    let start = std::time::Instant::now();
    let back = compressor
        .decompress_batch(&result.pages)
        .map_err(|e: GpuError| e.to_string())?;
    let secs = start.elapsed().as_secs_f64();
    if let Some(i) = (0..pages.len()).find(|&i| back[i] != pages[i]) {
        return Err(format!(
            "page {i}: decompress_batch returned a different page"
        ));
    }
    println!(
        "decompress_batch: {:.3} ms ({:.2} GB/s, host clock); all {} pages byte-identical to the reference and round-trip",
        secs * 1e3,
        (pages.len() * PAGE_SIZE) as f64 / secs / 1e9,
        pages.len()
    );
    drop(back);
    // The same pages in the compressor's own (page-locked on CUDA) host pages: uploaded without the
    // staging copy; the records must be the same.
    let mut host = compressor
        .host_pages(pages.len())
        .map_err(|e: GpuError| e.to_string())?;
    host.copy_from_slice(&pages);
    let start = std::time::Instant::now();
    let from_host = compressor
        .compress_batch(&host)
        .map_err(|e: GpuError| e.to_string())?;
    let secs = start.elapsed().as_secs_f64();
    if from_host.pages != result.pages {
        return Err("compress_batch of host pages gave other records than of the Vec".into());
    }
    println!(
        "compress_batch of host_pages: {:.3} ms ({:.2} GB/s, host clock; filling them untimed); the same records",
        secs * 1e3,
        (pages.len() * PAGE_SIZE) as f64 / secs / 1e9,
    );
    drop(host);
    latency(&mut compressor, &pages, &reference, args.latency_calls)
}

/// The 64-page streaming case: `calls` round trips of the first 64 pages, p50/p99 of the wall time.
fn latency(
    compressor: &mut GpuBatchCompressor,
    pages: &[[u8; PAGE_SIZE]],
    reference: &[CompressedPage],
    calls: usize,
) -> Result<(), String> {
    if calls == 0 {
        return Ok(());
    }
    use warpforge::gpu::latency::{percentile, round_trips};
    let n = pages.len().min(64);
    let mut trips =
        round_trips(compressor, &pages[..n], &reference[..n], calls).map_err(|e| e.to_string())?;
    for (name, samples) in [
        ("compress", &mut trips.compress_ms),
        ("decompress", &mut trips.decompress_ms),
    ] {
        println!(
            "latency {name}: {n}-page batch host-to-host, {calls} calls: p50 {:.3} ms, p99 {:.3} ms (host clock, wall per call)",
            percentile(samples, 0.50).unwrap_or(0.0),
            percentile(samples, 0.99).unwrap_or(0.0)
        );
    }
    if trips.cpu_fallbacks > 0 {
        return Err(format!(
            "{} batches fell back to the CPU during the latency calls",
            trips.cpu_fallbacks
        ));
    }
    Ok(())
}

fn main() -> ExitCode {
    match parse().and_then(run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gpu_batch: {e}");
            ExitCode::FAILURE
        }
    }
}
