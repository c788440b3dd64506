//! `warpforge run`'s arguments.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use warpforge::runtime::Backend;

use super::dims::Dims;
use super::help::HELP;

/// The arguments of `warpforge run`.
#[derive(Args, Debug)]
#[command(after_long_help = HELP)]
pub struct RunArgs {
    /// A kernel in the `.wfir` text form, or a PTX module (`.ptx`: one entry on the PTX simulator).
    #[arg(
        value_name = "FILE.wfir|FILE.ptx",
        required_unless_present = "kernel",
        conflicts_with = "kernel"
    )]
    pub(super) file: Option<PathBuf>,
    /// A kernel of the repository, by name (see `warpforge list`).
    #[arg(long)]
    pub(super) kernel: Option<String>,
    /// Where the kernel runs: sim (the CPU simulator, sanitizer on unless --no-sanitize), ptx-sim (its
    /// emitted PTX on the CPU simulator), webgpu (the first WebGPU adapter that can run it, a GPU or
    /// lavapipe) or cuda (the first CUDA GPU of SM 7.0+). A PTX file runs on sim (= ptx-sim).
    #[arg(long, value_parser = run_backend())]
    pub(super) backend: Backend,
    /// Blocks in the grid: X, X,Y or X,Y,Z (default: 1 block).
    #[arg(long, alias = "blocks", value_name = "X[,Y[,Z]]", default_value = "1")]
    pub(super) grid: Dims,
    /// The PTX entry to run (PTX files; optional when the module has one entry).
    #[arg(long, value_name = "NAME")]
    pub(super) entry: Option<String>,
    /// Threads per block, X[,Y[,Z]] (PTX files: required without `.reqntid`, refused when it
    /// contradicts it).
    #[arg(long, value_name = "X[,Y[,Z]]")]
    pub(super) block: Option<Dims>,
    /// Bytes of dynamic shared memory for `.extern .shared` arrays (PTX files).
    #[arg(long, value_name = "BYTES")]
    pub(super) dynamic_shared: Option<u32>,
    /// The target whose PTX ptx-sim runs (70, 80 or 90; default 70).
    #[arg(long, value_name = "SM", value_parser = ["70", "80", "90"])]
    pub(super) sm: Option<String>,
    /// A parameter's value: NAME=@FILE.bin, NAME=zeros:COUNT or NAME=VALUE (one per parameter; a PTX
    /// file's parameter also by position, `0=…`, or `param_N=…`).
    #[arg(long = "arg", value_name = "NAME=…")]
    pub(super) args: Vec<String>,
    /// A file of accepted findings (`KIND KERNEL line:N|STATEMENT|*` a line, KIND as printed:
    /// `shared-race`, …): each one found is said on stderr and does not fail the run (a finding
    /// that stopped a block still does); an entry that matches nothing is said.
    #[arg(long, value_name = "FILE")]
    pub(super) accept: Option<std::path::PathBuf>,
    /// Write a read_write buffer's bytes after the run to a file (also after errors; repeatable).
    #[arg(long = "out", value_name = "NAME=FILE.bin")]
    pub(super) outs: Vec<String>,
    /// Print the simulator's counters (on webgpu and cuda: with `--check sim`, those of the check's run).
    #[arg(long)]
    pub(super) stats: bool,
    /// Print the kernel's source (its `.wfir` text, or the PTX that ptx-sim or a PTX file ran) with
    /// the simulator's counters per line (on webgpu and cuda: with `--check sim`, of the check's run).
    #[arg(long)]
    pub(super) profile: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub(super) format: RunFormat,
    /// Turn the simulator's sanitizer off (racecheck, initcheck; bounds and barriers are still checked).
    #[arg(long)]
    pub(super) no_sanitize: bool,
    /// Also run the kernel on the simulator and compare every read_write buffer byte for byte.
    #[arg(long, value_enum, value_name = "BACKEND")]
    pub(super) check: Option<CheckBackend>,
}

/// `run --backend` values: the runtime's launch backends.
fn run_backend() -> impl clap::builder::TypedValueParser<Value = Backend> {
    use clap::builder::{PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(Backend::ALL.map(Backend::name))
        .map(|name: String| name.parse::<Backend>().expect("one of the listed backends"))
}

/// `run --check` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub(super) enum CheckBackend {
    /// The CPU simulator, the definition of what a kernel computes.
    Sim,
}

/// `run --format` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum RunFormat {
    /// Findings, a summary line, counters and the files written.
    Text,
    /// One JSON object.
    Json,
}
