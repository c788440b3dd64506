//! The `warpforge` command line: the arguments ([`Cli`]) and one module per command.

mod accepted;
mod bench;
mod codec_args;
mod compress;
mod decompress;
mod demo;
mod emit;
mod host_bench;
mod info;
mod lint;
mod list;
mod run;

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// Write GPU kernels once in a typed Rust IR; emit, lint and run them.
#[derive(Parser, Debug)]
#[command(name = "warpforge", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print a kernel in a target language on stdout.
    Emit(emit::EmitArgs),
    /// Compress a file of 4 KiB pages into a page archive.
    Compress(compress::CompressArgs),
    /// Decompress a page archive back into a file of pages, checking every page.
    Decompress(decompress::DecompressArgs),
    /// Compress an embedded sample of real memory pages on the best available backend, verify it, and
    /// print ratio and throughput per page kind.
    Demo(demo::DemoArgs),
    /// Measure every codec side by side on a corpus of pages.
    Bench(bench::BenchArgs),
    /// Time the CUDA engine's host pipeline alone on a driver that replays recorded kernel outputs
    /// (no GPU): host ms per GiB and GB/s per direction.
    HostBench(host_bench::HostBenchArgs),
    /// Lint kernels for hazards: divergent barriers and warp collectives, mask mismatches, misaligned
    /// and out-of-bounds accesses, the F081 pattern. Exit status 1 when any finding is an error.
    Lint(lint::LintArgs),
    /// Run one kernel (or a PTX file's entry) on the simulator, the PTX simulator, WebGPU or CUDA and
    /// print the sanitizer's findings.
    Run(run::RunArgs),
    /// List the kernels of the repository.
    List,
    /// List the backends and devices found on this machine.
    Info,
}

/// Parses the arguments and runs the command; an error is printed as `error: …`.
pub fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Emit(args) => emit::run(args),
        Command::Compress(args) => compress::run(args),
        Command::Decompress(args) => decompress::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Lint(args) => lint::run(args),
        Command::Run(args) => std::process::exit(run::run(args)),
        Command::HostBench(args) => host_bench::run(args),
        Command::Info => {
            info::run();
            Ok(())
        }
        Command::List => {
            list::run();
            Ok(())
        }
    }
}
