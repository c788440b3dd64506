//! `warpforge bench`: every codec side by side on a corpus of pages (`measure.rs`), and with
//! `--stats` the simulator's counters per page (`stats.rs`).

mod measure;
mod stats;

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;

/// `warpforge bench`'s arguments.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// A file of whole 4 KiB pages.
    #[arg(long)]
    corpus: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Seconds to spend per measurement (at least 3 runs each).
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// Leave out the WebGPU backend.
    #[arg(long)]
    no_webgpu: bool,
    /// Pages of the corpus (from the start) the simulator row runs on; 0 leaves it out.
    #[arg(long, default_value_t = 256)]
    sim_pages: usize,
    /// Also print the simulator's counters per page for both LZ4 kernels (on the same pages as
    /// the sim row): warp-instructions, SIMT efficiency, bank conflicts, coalescing, barriers.
    #[arg(long)]
    stats: bool,
}

/// Runs the benchmark and prints its report.
pub fn run(args: BenchArgs) -> Result<()> {
    let bytes = std::fs::read(&args.corpus)
        .with_context(|| format!("cannot read {}", args.corpus.display()))?;
    if bytes.is_empty() || bytes.len() % warpforge::PAGE_SIZE != 0 {
        bail!(
            "{}: {} bytes is not a whole, non-zero number of 4096-byte pages",
            args.corpus.display(),
            bytes.len()
        );
    }
    let pages: Vec<[u8; warpforge::PAGE_SIZE]> = bytes
        .chunks_exact(warpforge::PAGE_SIZE)
        .map(|c| c.try_into().expect("a page"))
        .collect();
    let report = measure::run(&pages, args.seconds, !args.no_webgpu, args.sim_pages)?;
    let counters = if args.stats {
        let prefix = &pages[..args.sim_pages.clamp(1, pages.len())];
        Some(stats::sim_counters(prefix)?)
    } else {
        None
    };
    match (args.json, counters) {
        (true, Some(c)) => println!("{}", stats::json(&report, &c)),
        (true, None) => println!("{}", report.json()),
        (false, c) => {
            print!("{}", report.text());
            if let Some(c) = c {
                print!("\n{}", stats::text(&c));
            }
        }
    }
    Ok(())
}
