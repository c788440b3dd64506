//! `warpforge decompress`: a page archive back into a file of pages, every page checked.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use warpforge::pipeline::decompress_file;

use super::codec_args::{backend_choice, run_pipeline, BackendChoice};

/// `warpforge decompress`'s arguments.
#[derive(Args, Debug)]
pub struct DecompressArgs {
    /// Which implementation decompresses.
    #[arg(long, default_value = "auto", value_parser = backend_choice())]
    backend: BackendChoice,
    /// The archive.
    input: PathBuf,
    /// The file of pages to write (replaced only once complete and verified).
    output: PathBuf,
}

/// Decompresses the archive and prints the summary.
pub fn run(args: DecompressArgs) -> Result<()> {
    run_pipeline(
        "decompressed",
        (args.backend, None),
        &args.input,
        &args.output,
        decompress_file,
    )
}
