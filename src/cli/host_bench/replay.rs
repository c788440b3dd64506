//! `warpforge host-bench`: the CUDA engine's host pipeline timed on its own, without a GPU. The
//! compressor runs on a driver that replays recorded kernel outputs ([`ReplayTape`]): one untimed run
//! records every launch (outputs computed with the CPU reference, byte-identical to the kernels), the
//! timed runs replay them. Each direction's host time is the call's wall time (host clock) minus the
//! time the driver spent standing in for the device (uploads, downloads, replayed launches), so what
//! is left is the host work alone: staging, gathering, record building, scattering. After every timed
//! run, outside the timed region, each decoded page is compared with its input.

use std::sync::Arc;

use anyhow::{ensure, Context};
use indicatif::ProgressBar;
use serde::Serialize;

use warpforge::archive::{PackedRecords, Record};
use warpforge::codec::Page;
use warpforge::gpu::{GpuBatchCompressor, GpuBatchConfig, ReplayTape};
use warpforge::PAGE_SIZE;

use super::direction::{Direction, DirectionJson, Runs};

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
    /// Compression through the owned-records API (`compress_batch`: one allocation per record) of
    /// pages in ordinary memory (staged by a copy).
    pub compress_owned: Direction,
    /// `compress_batch` of pages in page-locked memory the compressor gave out (`host_pages`;
    /// filling them is not timed).
    pub compress_owned_host: Direction,
    /// `compress_into` (packed records, buffers reused) of the same host pages: the packed API's cost
    /// without the staging copy.
    pub compress_host: Direction,
    /// Decompression through `decompress_batch` (owned records in, pages of the compressor's pool
    /// out, downloaded into directly).
    pub decompress_owned: Direction,
    /// Compression of pages already in the compressor's staging pages (`compress_staged`; filling
    /// them is not timed).
    pub compress_staged: Direction,
    /// `compress_batch` of the caller's own pages in a `Vec`, registered once before the runs
    /// (`register`, not timed): uploaded from where they are.
    pub compress_owned_registered: Direction,
    /// `decompress_into` (packed records in) the caller's own pages, registered once before the runs:
    /// downloaded into directly.
    pub decompress_registered: Direction,
    /// Pages redone on the CPU (must be 0: the replayed GPU path handled every page).
    pub cpu_fallback_pages: u64,
}

/// Whether the owned `records` are `recorded`, compared in place: the check allocates nothing, so the
/// heap the next timed call finds is the one its predecessor left (a copy of 16,384 records per check
/// would change it between calls).
fn same_records(records: &[Record], recorded: &PackedRecords) -> bool {
    records.len() == recorded.len() && records.iter().map(Record::view).eq(recorded.iter())
}

/// `pages` pages taken from `corpus` in order, cycling through it as often as needed.
pub fn cycle_pages(corpus: &[Page], pages: usize) -> Vec<Page> {
    corpus.iter().cycle().take(pages).copied().collect()
}

/// Times `runs` replayed compress and decompress calls of the whole of `pages` through each API
/// (after one untimed recording run), checking the round trip after each call. `progress` counts
/// runs.
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
    let mut recorded = PackedRecords::new();
    gpu.compress_into(pages, &mut recorded)
        .context("recording compression")?;
    let mut decoded = vec![[0u8; PAGE_SIZE]; pages.len()];
    gpu.decompress_into(&recorded, &mut decoded)
        .context("recording decompression")?;
    ensure!(
        decoded.as_slice() == pages,
        "the recorded round trip changed the pages"
    );
    tape.replay();
    // The owned APIs on pages of the compressor's pool run other launches (decompress_batch sends
    // every page to the kernel): a second compressor records them on its own tape.
    let owned = ReplayTape::new(config.algorithm.lz4_level());
    let mut locked = GpuBatchCompressor::replaying(config.clone(), Arc::clone(&owned))?;
    let mut input = locked.host_pages(pages.len())?;
    input.copy_from_slice(pages);
    let records = locked
        .compress_batch(&input)
        .context("recording compress_batch")?
        .pages;
    ensure!(
        locked
            .decompress_batch(&records)
            .context("recording decompress_batch")?
            == *pages,
        "the recorded owned round trip changed the pages"
    );
    drop(records);
    owned.replay();
    progress.inc(1);
    // The caller's own pages, registered once (the same launches as the compressor's host pages).
    let mut caller_in = pages.to_vec();
    let mut caller_out = vec![[0u8; PAGE_SIZE]; pages.len()];
    let registered_in = locked.register(&mut caller_in)?;
    let mut registered_out = locked.register(&mut caller_out)?;

    let mut times: [Runs; 9] = Default::default();
    let device = || tape.device_ns() + owned.device_ns();
    // The packed buffers start with the recorded records' capacity, so the first timed run reuses
    // them as every later one does (a streaming caller's steady state).
    let mut packed = recorded.clone();
    let mut packed_host = recorded.clone();
    for run in 0..runs {
        // The packed API, its buffers reused from run to run (as a streaming caller reuses them).
        tape.rewind();
        decoded.iter_mut().for_each(|p| p.fill(0xa5));
        times[0].time(device, || {
            Ok(gpu.compress_into(pages, &mut packed).map(drop)?)
        })?;
        ensure!(
            packed == recorded,
            "run {run}: the replayed compression gave other records than the recorded one"
        );
        times[1].time(device, || Ok(gpu.decompress_into(&packed, &mut decoded)?))?;
        ensure!(
            decoded.as_slice() == pages,
            "run {run}: the replayed round trip changed the pages"
        );
        // The pages already in the compressor's staging pages (filled here, untimed, as a reader
        // would fill them).
        tape.rewind();
        gpu.staging_pages(pages.len())?
            .copy_from_slice(pages.as_flattened());
        packed.clear();
        times[4].time(device, || {
            Ok(gpu.compress_staged(pages.len(), &mut packed).map(drop)?)
        })?;
        ensure!(
            packed == recorded,
            "run {run}: the replayed staged compression gave other records than the recorded one"
        );
        // The owned-records API from pages in ordinary memory: staged by a copy.
        tape.rewind();
        let records = times[2].time(device, || Ok(gpu.compress_batch(pages)?.pages))?;
        ensure!(
            same_records(&records, &recorded),
            "run {run}: compress_batch gave other records than the recorded ones"
        );
        drop(records);
        // The owned-records API from page-locked pages the compressor gave out (filled here,
        // untimed, as a reader would fill them), and decompress_batch into its page-locked pages.
        owned.rewind();
        let records = times[5].time(device, || Ok(locked.compress_batch(&input)?.pages))?;
        ensure!(
            same_records(&records, &recorded),
            "run {run}: compress_batch of host pages gave other records than the recorded ones"
        );
        // The packed API from the same host pages (the compress launches of compress_batch).
        owned.rewind();
        times[6].time(device, || {
            Ok(locked.compress_into(&input, &mut packed_host).map(drop)?)
        })?;
        ensure!(
            packed_host == recorded,
            "run {run}: compress_into of host pages gave other records than the recorded ones"
        );
        let fresh = times[3].time(device, || Ok(locked.decompress_batch(&records)?))?;
        ensure!(
            *fresh == *pages,
            "run {run}: decompress_batch changed the pages"
        );
        drop((records, fresh));
        // The caller's registered pages: owned records from them, packed records decoded into them.
        owned.rewind();
        let records = times[7].time(device, || Ok(locked.compress_batch(&registered_in)?.pages))?;
        ensure!(
            same_records(&records, &recorded),
            "run {run}: compress_batch of registered pages gave other records than the recorded ones"
        );
        drop(records);
        registered_out.iter_mut().for_each(|p| p.fill(0xa5));
        times[8].time(device, || {
            Ok(locked.decompress_into(&recorded, &mut registered_out)?)
        })?;
        ensure!(
            *registered_out == *pages,
            "run {run}: decompress_into registered pages changed the pages"
        );
        progress.inc(1);
    }
    drop((registered_in, registered_out));
    let [c, d, co, dfresh, staged, co_host, c_host, co_reg, d_reg] =
        times.map(|runs| runs.direction(bytes));
    Ok(HostBenchReport {
        pages: pages.len(),
        runs,
        config,
        stored_bytes: recorded.encoded_len(),
        launches: tape.launches(),
        compress: c,
        decompress: d,
        compress_owned: co,
        compress_owned_host: co_host,
        compress_host: c_host,
        decompress_owned: dfresh,
        compress_staged: staged,
        compress_owned_registered: co_reg,
        decompress_registered: d_reg,
        cpu_fallback_pages: gpu.stats().cpu_fallback_pages + locked.stats().cpu_fallback_pages,
    })
}

impl HostBenchReport {
    /// The report as text: one line per direction.
    pub fn text(&self) -> String {
        let mut s = format!(
            "host pipeline of the CUDA engine on the replay driver (recorded kernel outputs, no GPU; \
             host clock, host-to-host work only)\ncompress / decompress: compress_into / decompress_into (packed records, \
             buffers reused); compress_staged: pages already in the staging pages (filling them \
             untimed); compress_batch: owned records, pages in a Vec; compress (host pages): compress_into of host_pages; compress_batch (host pages): compress_batch of \
             host_pages (page-locked on CUDA; filling them untimed); decompress_batch: owned records in, host pages out; (registered): the caller's pages in a Vec, registered once, untimed\n{} pages ({:.1} MiB), batch {} pages x {} ring \
             slots, LZ4 {}, ratio {:.3}x, {} launches replayed per run, median of {} runs (x staged: host work over compress_staged's; host spread: the slowest run over the fastest, less 1)\n",
            self.pages,
            (self.pages * PAGE_SIZE) as f64 / (1 << 20) as f64,
            self.config.batch_size,
            self.config.ring_buffer_slots,
            self.config.algorithm.lz4_level(),
            (self.pages * PAGE_SIZE) as f64 / self.stored_bytes.max(1) as f64,
            self.launches,
            self.runs
        );
        for (name, d) in [
            ("compress", &self.compress),
            ("decompress", &self.decompress),
            ("compress_staged", &self.compress_staged),
            ("compress_batch", &self.compress_owned),
            ("compress (host pages)", &self.compress_host),
            ("compress_batch (host pages)", &self.compress_owned_host),
            ("decompress_batch", &self.decompress_owned),
            (
                "compress_batch (registered)",
                &self.compress_owned_registered,
            ),
            ("decompress_into (registered)", &self.decompress_registered),
        ] {
            s += &d.row(name, &self.compress_staged);
        }
        s += &format!("CPU fallbacks: {} pages\n", self.cpu_fallback_pages);
        s
    }

    /// The report as one JSON object.
    pub fn json(
        &self,
        latency: &super::latency::Latency,
        pipeline: &super::pipeline::Pipeline,
    ) -> String {
        let level = self.config.algorithm.lz4_level().to_string();
        let direction = Direction::json;
        let report = HostBenchJson {
            batch_size: self.config.batch_size,
            cli_pipeline: PipelineJson {
                compress_file: pipeline.compress.json(),
                cpu_fallback_pages: pipeline.cpu_fallback_pages,
                decompress_file: pipeline.decompress.json(),
            },
            clock: "host",
            compress: direction(&self.compress),
            compress_batch: direction(&self.compress_owned),
            compress_batch_host: direction(&self.compress_owned_host),
            compress_batch_registered: direction(&self.compress_owned_registered),
            compress_host: direction(&self.compress_host),
            compress_staged: direction(&self.compress_staged),
            cpu_fallback_pages: self.cpu_fallback_pages,
            decompress: direction(&self.decompress),
            decompress_batch: direction(&self.decompress_owned),
            decompress_registered: direction(&self.decompress_registered),
            driver: "replay (recorded kernel outputs, no GPU)",
            latency_64_pages: latency,
            launches: self.launches,
            level: &level,
            pages: self.pages,
            ring_buffer_slots: self.config.ring_buffer_slots,
            runs: self.runs,
            stored_bytes: self.stored_bytes,
        };
        serde_json::to_string(&report).expect("plain data serializes")
    }
}

/// `host-bench --json`. The keys are in alphabetical order, as this object has printed them since it
/// was first written.
#[derive(Serialize)]
struct HostBenchJson<'a> {
    batch_size: usize,
    cli_pipeline: PipelineJson,
    clock: &'static str,
    compress: DirectionJson,
    compress_batch: DirectionJson,
    compress_batch_host: DirectionJson,
    compress_batch_registered: DirectionJson,
    compress_host: DirectionJson,
    compress_staged: DirectionJson,
    cpu_fallback_pages: u64,
    decompress: DirectionJson,
    decompress_batch: DirectionJson,
    decompress_registered: DirectionJson,
    driver: &'static str,
    latency_64_pages: &'a super::latency::Latency,
    launches: usize,
    level: &'a str,
    pages: usize,
    ring_buffer_slots: usize,
    runs: usize,
    stored_bytes: usize,
}

/// The CLI pipeline's rows in [`HostBenchJson`].
#[derive(Serialize)]
struct PipelineJson {
    compress_file: DirectionJson,
    cpu_fallback_pages: u64,
    decompress_file: DirectionJson,
}
