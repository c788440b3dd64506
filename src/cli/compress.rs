//! `warpforge compress`: a file of 4 KiB pages into a page archive.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use warpforge::kernels::lz4::Lz4Level;
use warpforge::pipeline::compress_file;

use super::codec_args::{backend_choice, parse_level, run_pipeline, BackendChoice};

/// `warpforge compress`'s arguments.
#[derive(Args, Debug)]
pub struct CompressArgs {
    /// Which implementation compresses.
    #[arg(long, default_value = "auto", value_parser = backend_choice())]
    backend: BackendChoice,
    /// How hard to search for matches: 0 (throughput: one hash table, greedy; the cheapest kernel,
    /// about liblz4's default ratio), 1 (fast), 2 (default), 3 (high: a little smaller, about 1.5x
    /// the kernel cost of 2 by the simulator's counters). Every level writes standard LZ4 blocks;
    /// `cpu` (lz4_flex) has no levels. docs/lz4.md measures each.
    #[arg(long, default_value = "2", value_parser = parse_level)]
    level: Lz4Level,
    /// A file of whole 4 KiB pages.
    input: PathBuf,
    /// The archive to write (replaced only once complete).
    output: PathBuf,
}

/// Compresses the file and prints the summary.
pub fn run(args: CompressArgs) -> Result<()> {
    run_pipeline(
        "compressed",
        (args.backend, Some(args.level)),
        &args.input,
        &args.output,
        compress_file,
    )
}
