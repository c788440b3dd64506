//! `warpforge host-bench`: the arguments and the printing around [`replay::run`].

mod direction;
mod latency;
mod pipeline;
mod replay;

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use warpforge::gpu::GpuBatchConfig;
use warpforge::PAGE_SIZE;

/// Time the CUDA engine's host pipeline alone (no GPU): a driver replays recorded kernel outputs.
#[derive(Args, Debug)]
pub struct HostBenchArgs {
    /// A file of whole 4 KiB pages, cycled through until `--mib` MiB of pages.
    #[arg(long)]
    corpus: PathBuf,
    /// MiB of pages per call (the corpus is repeated as often as needed).
    #[arg(long, default_value_t = 256)]
    mib: usize,
    /// Timed runs per direction (the median is reported). On a shared 2-vCPU VM 7 runs moved a row's
    /// ratio to the staged path by up to 0.5 from one invocation to the next, 31 runs by under 0.1
    /// (docs/host-pipeline.md, 2026-11-30).
    #[arg(long, default_value_t = 21)]
    runs: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs the benchmark and prints its report.
pub fn run(args: HostBenchArgs) -> Result<()> {
    let bytes = std::fs::read(&args.corpus)
        .with_context(|| format!("cannot read {}", args.corpus.display()))?;
    if bytes.is_empty() || bytes.len() % PAGE_SIZE != 0 {
        bail!(
            "{}: {} bytes is not a whole, non-zero number of {PAGE_SIZE}-byte pages",
            args.corpus.display(),
            bytes.len()
        );
    }
    if args.mib == 0 || args.runs == 0 {
        bail!("--mib and --runs must be at least 1");
    }
    let corpus: Vec<[u8; PAGE_SIZE]> = bytes
        .chunks_exact(PAGE_SIZE)
        .map(|c| c.try_into().expect("a page"))
        .collect();
    let pages = replay::cycle_pages(&corpus, (args.mib << 20) / PAGE_SIZE);
    drop((bytes, corpus));
    let progress = if args.json {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0).with_style(
            ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} runs (the first records)")
                .expect("a valid template"),
        )
    };
    progress.set_message("host-bench");
    let report = replay::run(&pages, args.runs, GpuBatchConfig::default(), &progress)?;
    progress.set_message("host-bench latency");
    let latency = latency::run(&pages, latency::CALLS, GpuBatchConfig::default())?;
    progress.set_message("host-bench CLI pipeline");
    let pipeline = pipeline::run(&pages, args.runs, GpuBatchConfig::default())?;
    progress.finish_and_clear();
    if args.json {
        println!("{}", report.json(&latency, &pipeline));
    } else {
        print!(
            "{}{}{}",
            report.text(),
            latency.text(),
            pipeline.text(&report.compress_staged)
        );
    }
    Ok(())
}
