//! `warpforge host-bench`: the CUDA engine's host pipeline timed on its own, without a GPU. The
//! compressor runs on a driver that replays recorded kernel outputs ([`ReplayTape`]): one untimed run
//! records every launch (outputs computed with the CPU reference, byte-identical to the kernels), the
//! timed runs replay them. Each direction's host time is the call's wall time (host clock) minus the
//! time the driver spent standing in for the device (uploads, downloads, replayed launches), so what
//! is left is the host work alone: staging, gathering, record building, scattering. After every timed
//! run, outside the timed region, each decoded page is compared with its input.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{ensure, Context};
use indicatif::ProgressBar;

use crate::codec::Page;
use crate::gpu::{GpuBatchCompressor, GpuBatchConfig, ReplayTape};
use crate::PAGE_SIZE;

/// Bytes in a GiB.
const GIB: f64 = (1u64 << 30) as f64;

/// One direction's figures, medians over the timed runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Direction {
    /// Host work per call (wall time minus device stand-in time), ms.
    pub host_ms: f64,
    /// Wall time per call, ms (host clock; includes the replay driver's copies).
    pub wall_ms: f64,
    /// Bytes of pages per call.
    pub bytes: usize,
}

impl Direction {
    /// Host milliseconds per GiB of pages.
    pub fn host_ms_per_gib(&self) -> f64 {
        self.host_ms * GIB / self.bytes as f64
    }

    /// Pages' bytes per second of host work, GB/s (10⁹ B/s).
    pub fn host_gbps(&self) -> f64 {
        self.bytes as f64 / (self.host_ms.max(1e-9) / 1e3) / 1e9
    }
}

/// What `warpforge host-bench` measured.
#[derive(Clone, Debug, PartialEq)]
pub struct HostBenchReport {
    /// Pages per call.
    pub pages: usize,
    /// Timed runs per direction.
    pub runs: usize,
    /// The batch configuration (pages per batch, ring slots).
    pub config: GpuBatchConfig,
    /// Bytes of records (as the archive stores them) for the pages.
    pub stored_bytes: usize,
    /// Kernel launches recorded (and replayed per run).
    pub launches: usize,
    /// Compression.
    pub compress: Direction,
    /// Decompression.
    pub decompress: Direction,
    /// Pages redone on the CPU (must be 0: the replayed GPU path handled every page).
    pub cpu_fallback_pages: u64,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// `pages` pages taken from `corpus` in order, cycling through it as often as needed.
pub fn cycle_pages(corpus: &[Page], pages: usize) -> Vec<Page> {
    corpus.iter().cycle().take(pages).copied().collect()
}

/// Times `runs` replayed compress and decompress calls of the whole of `pages` (after one untimed
/// recording run of each), checking the round trip after each run. `progress` counts runs.
pub fn run(
    pages: &[Page],
    runs: usize,
    config: GpuBatchConfig,
    progress: &ProgressBar,
) -> anyhow::Result<HostBenchReport> {
    ensure!(!pages.is_empty(), "host-bench needs at least one page");
    ensure!(runs > 0, "host-bench needs at least one run");
    let tape = ReplayTape::new(config.algorithm.lz4_level());
    let mut gpu = GpuBatchCompressor::replaying(config.clone(), Arc::clone(&tape))?;
    let bytes = pages.len() * PAGE_SIZE;
    progress.set_length(runs as u64 + 1);

    // Recording run (untimed): the kernels' outputs computed on the CPU.
    let records = gpu.compress_batch(pages).context("recording compression")?.pages;
    let stored_bytes = records.iter().map(|r| r.encoded_len()).sum();
    let decoded = gpu.decompress_batch(&records).context("recording decompression")?;
    ensure!(
        decoded.as_slice() == pages,
        "the recorded round trip changed the pages"
    );
    drop(decoded);
    tape.replay();
    progress.inc(1);

    let (mut c_host, mut c_wall, mut d_host, mut d_wall) = (vec![], vec![], vec![], vec![]);
    let timed = |f: &mut dyn FnMut() -> anyhow::Result<()>| -> anyhow::Result<(f64, f64)> {
        let device = tape.device_ns();
        let start = Instant::now();
        f()?;
        let wall = start.elapsed().as_nanos() as f64;
        let device = (tape.device_ns() - device) as f64;
        Ok(((wall - device) / 1e6, wall / 1e6))
    };
    let mut replayed = Vec::new();
    for run in 0..runs {
        tape.rewind();
        drop(std::mem::take(&mut replayed));
        let (host, wall) = timed(&mut || {
            replayed = gpu.compress_batch(pages)?.pages;
            Ok(())
        })?;
        c_host.push(host);
        c_wall.push(wall);
        ensure!(
            replayed == records,
            "run {run}: the replayed compression gave other records than the recorded one"
        );
        let mut decoded = Vec::new();
        let (host, wall) = timed(&mut || {
            decoded = gpu.decompress_batch(&replayed)?;
            Ok(())
        })?;
        d_host.push(host);
        d_wall.push(wall);
        ensure!(
            decoded.as_slice() == pages,
            "run {run}: the replayed round trip changed the pages"
        );
        progress.inc(1);
    }
    let direction = |host, wall| Direction {
        host_ms: median(host),
        wall_ms: median(wall),
        bytes,
    };
    Ok(HostBenchReport {
        pages: pages.len(),
        runs,
        config,
        stored_bytes,
        launches: tape.launches(),
        compress: direction(c_host, c_wall),
        decompress: direction(d_host, d_wall),
        cpu_fallback_pages: gpu.stats().cpu_fallback_pages,
    })
}

impl HostBenchReport {
    /// The report as text: one line per direction.
    pub fn text(&self) -> String {
        let mut s = format!(
            "host pipeline of the CUDA engine on the replay driver (recorded kernel outputs, no GPU; \
             host clock, host-to-host work only)\n{} pages ({:.1} MiB), batch {} pages x {} ring \
             slots, ratio {:.3}x, {} launches replayed per run, median of {} runs\n",
            self.pages,
            (self.pages * PAGE_SIZE) as f64 / (1 << 20) as f64,
            self.config.batch_size,
            self.config.ring_buffer_slots,
            (self.pages * PAGE_SIZE) as f64 / self.stored_bytes.max(1) as f64,
            self.launches,
            self.runs
        );
        for (name, d) in [("compress", &self.compress), ("decompress", &self.decompress)] {
            s += &format!(
                "{name:<10}  host {:>8.1} ms/GiB  {:>7.2} GB/s   (wall {:.1} ms, of which host {:.1} ms)\n",
                d.host_ms_per_gib(),
                d.host_gbps(),
                d.wall_ms,
                d.host_ms
            );
        }
        s += &format!("CPU fallbacks: {} pages\n", self.cpu_fallback_pages);
        s
    }

    /// The report as one JSON object.
    pub fn json(&self) -> String {
        let direction = |d: &Direction| {
            serde_json::json!({
                "host_ms": d.host_ms,
                "wall_ms": d.wall_ms,
                "host_ms_per_gib": d.host_ms_per_gib(),
                "host_gbps": d.host_gbps(),
            })
        };
        serde_json::json!({
            "driver": "replay (recorded kernel outputs, no GPU)",
            "clock": "host",
            "pages": self.pages,
            "runs": self.runs,
            "batch_size": self.config.batch_size,
            "ring_buffer_slots": self.config.ring_buffer_slots,
            "stored_bytes": self.stored_bytes,
            "launches": self.launches,
            "compress": direction(&self.compress),
            "decompress": direction(&self.decompress),
            "cpu_fallback_pages": self.cpu_fallback_pages,
        })
        .to_string()
    }
}
