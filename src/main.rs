//! The `warpforge` command line.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use warpforge::catalog;
use warpforge::codec::{Backend, PageCodec};
use warpforge::ir::{parse_kernel, verify, Kernel};
use warpforge::kernels::lz4::Lz4Level;
use warpforge::pipeline::{compress_file, decompress_file, Summary};
use warpforge::ptx::occupancy::Occupancy;
use warpforge::ptx::ptxas::Ptxas;
use warpforge::ptx::{emit as emit_ptx, Sm};

mod host_bench_cmd;
mod run_cmd;

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
    Emit {
        /// A kernel of the repository, by name (see `warpforge list`).
        #[arg(long, required_unless_present = "file", conflicts_with = "file")]
        kernel: Option<String>,
        /// A kernel in the `.wfir` text form, instead of `--kernel`.
        #[arg(long, value_name = "FILE.wfir")]
        file: Option<PathBuf>,
        /// What to emit.
        #[arg(long, value_enum, default_value_t = Target::Ir)]
        target: Target,
        /// PTX target architecture (70, 80 or 90).
        #[arg(long, default_value_t = 70, value_parser = parse_sm)]
        sm: u32,
        /// With `--target ptx`: assemble with ptxas and print its resource report on stderr, with the
        /// blocks and warps per SM those resources allow (CUDA occupancy rules).
        #[arg(long)]
        report: bool,
        /// Write to FILE instead of stdout (SPIR-V, being binary, is not written to a terminal).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Compress a file of 4 KiB pages into a page archive.
    Compress {
        /// Which implementation compresses.
        #[arg(long, default_value = "auto", value_parser = backend_choice())]
        backend: BackendChoice,
        /// How hard to search for matches: 0 (throughput: one hash table, greedy; the cheapest kernel,
        /// about liblz4's default ratio), 1 (fast), 2 (default), 3 (high: a little smaller, about 2x
        /// the kernel cost of 2). Every level writes standard LZ4 blocks;
        /// `cpu` (lz4_flex) has no levels. docs/lz4.md measures each.
        #[arg(long, default_value = "2", value_parser = parse_level)]
        level: Lz4Level,
        /// A file of whole 4 KiB pages.
        input: PathBuf,
        /// The archive to write (replaced only once complete).
        output: PathBuf,
    },
    /// Decompress a page archive back into a file of pages, checking every page.
    Decompress {
        /// Which implementation decompresses.
        #[arg(long, default_value = "auto", value_parser = backend_choice())]
        backend: BackendChoice,
        /// The archive.
        input: PathBuf,
        /// The file of pages to write (replaced only once complete and verified).
        output: PathBuf,
    },
    /// Compress an embedded sample of real memory pages on the best available backend, verify it, and
    /// print ratio and throughput per page kind.
    Demo {
        /// Which implementation compresses (auto: as for `compress`; the line after the table says
        /// which ran and why the better ones did not).
        #[arg(long, default_value = "auto", value_parser = backend_choice())]
        backend: BackendChoice,
    },
    /// Measure every codec side by side on a corpus of pages.
    Bench {
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
    },
    /// Time the CUDA engine's host pipeline alone on a driver that replays recorded kernel outputs
    /// (no GPU): host ms per GiB and GB/s per direction.
    HostBench(host_bench_cmd::HostBenchArgs),
    /// Lint kernels for hazards: divergent barriers and warp collectives, mask mismatches, misaligned
    /// and out-of-bounds accesses, the F081 pattern. Exit status 1 when any finding is an error.
    Lint {
        /// A kernel of the repository (repeatable). With no kernel and no file: every kernel.
        #[arg(long = "kernel")]
        kernels: Vec<String>,
        /// `.wfir` or `.ptx` files.
        files: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = LintFormat::Text)]
        format: LintFormat,
        /// Print every rule's explanation and exit.
        #[arg(long)]
        explain: bool,
        /// Do not assume that a PTX entry without `.reqntid` runs blocks whose x-dimension is a
        /// multiple of 32 (the assumption makes `%tid.x / 32` and `%tid.x < 32·k` warp-uniform).
        #[arg(long)]
        no_assume_warp_aligned_blocks: bool,
        /// Threads per block (x) of every launch of a PTX entry without `.reqntid`: the entry is
        /// linted as if it declared `.reqntid X, 1, 1` (races, bounds and uniformity for that block
        /// instead of every block size CUDA allows).
        #[arg(long, value_name = "X", value_parser = clap::value_parser!(u32).range(1..=1024))]
        block: Option<u32>,
    },
    /// Run one kernel (or a PTX file's entry) on the simulator, the PTX simulator, WebGPU or CUDA and
    /// print the sanitizer's findings.
    Run(run_cmd::RunArgs),
    /// List the kernels of the repository.
    List,
    /// List the backends and devices found on this machine.
    Info,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Target {
    /// The verified IR in its `.wfir` text form.
    Ir,
    /// NVIDIA PTX for `--sm`.
    Ptx,
    /// WGSL (WebGPU), validated by naga.
    Wgsl,
    /// A SPIR-V 1.3 binary module (Vulkan), from the same naga module as the WGSL.
    Spirv,
    /// Metal Shading Language 2.3 source, from the same naga module as the WGSL.
    Msl,
    /// HLSL for shader model 6.0 (Direct3D 12), from the same naga module as the WGSL.
    Hlsl,
}

/// `lint --format` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum LintFormat {
    /// Human-readable.
    Text,
    /// One JSON array of findings.
    Json,
    /// SARIF 2.1.0, for code-scanning tools (GitHub code scanning, SARIF viewers).
    Sarif,
}

/// Lints; the exit status: 0 clean, 1 an error-level finding, 2 a file that is not PTX or is cut short.
fn lint(
    kernels: &[String],
    files: &[PathBuf],
    format: LintFormat,
    assume: &warpforge::analysis::PtxAssumptions,
) -> Result<u8> {
    use warpforge::analysis::{
        has_errors, lint_kernel, lint_ptx_assuming, render_text, Diagnostic,
    };
    let mut all: Vec<(String, Vec<Diagnostic>)> = Vec::new();
    let names: Vec<String> = if kernels.is_empty() && files.is_empty() {
        catalog::entries()
            .iter()
            .map(|e| e.name.to_owned())
            .collect()
    } else {
        kernels.to_vec()
    };
    for name in &names {
        let kernel = catalog::find(name).map_err(anyhow::Error::msg)?.build();
        all.push((format!("kernel {name}"), lint_kernel(&verify(&kernel)?)));
    }
    let mut bad_input = false;
    for file in files {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let diags = if file.extension().is_some_and(|e| e == "ptx") {
            match lint_ptx_assuming(&text, assume) {
                Ok(diags) => diags,
                Err(e) => {
                    // Not PTX, or cut short: said with the line, the other files still linted, exit 2.
                    eprintln!("error: {}:{}: {}", file.display(), e.line, e.message);
                    bad_input = true;
                    continue;
                }
            }
        } else {
            let kernel = parse_kernel(&text)
                .with_context(|| format!("{}: not a valid .wfir kernel", file.display()))?;
            lint_kernel(&verify(&kernel).with_context(|| format!("{}", file.display()))?)
        };
        all.push((file.display().to_string(), diags));
    }
    let errors = all.iter().any(|(_, d)| has_errors(d));
    match format {
        LintFormat::Text => {
            for (source, diags) in &all {
                print!("{}", render_text(source, diags));
            }
            let count = |s| {
                all.iter()
                    .flat_map(|(_, d)| d)
                    .filter(|d| d.severity == s)
                    .count()
            };
            use warpforge::analysis::Severity;
            eprintln!(
                "{} errors, {} warnings, {} notes",
                count(Severity::Error),
                count(Severity::Warning),
                count(Severity::Note)
            );
        }
        LintFormat::Json => print!("{}", warpforge::analysis::render_json_all(&all)),
        LintFormat::Sarif => print!(
            "{}",
            warpforge::analysis::render_sarif(&all, env!("CARGO_PKG_VERSION"))
        ),
    }
    Ok(if bad_input { 2 } else { u8::from(errors) })
}

/// `--backend`: a [`Backend`], or `None` for `auto`.
#[derive(Clone, Copy, Debug)]
struct BackendChoice(Option<Backend>);

/// The `--backend` values with their help, parsed into a [`BackendChoice`].
fn backend_choice() -> impl clap::builder::TypedValueParser<Value = BackendChoice> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let help = |backend: Backend| match backend {
        Backend::Cpu => "lz4_flex on all cores",
        Backend::Reference => {
            "the CPU reference of the warp kernels (byte-identical to the kernels)"
        }
        Backend::Sim => "the LZ4 warp kernels on the CPU simulator, sanitizer on",
        Backend::PtxSim => "not supported by compress/decompress yet (warpforge run takes it)",
        Backend::WebGpu => "the LZ4 warp kernels on a WebGPU adapter",
        Backend::Cuda => {
            "the LZ4 warp kernels on CUDA device 0 (async-DMA ring, CPU fallback per failed batch)"
        }
    };
    let auto = PossibleValue::new("auto").help(
        "cuda on a supported CUDA GPU, else webgpu on a hardware adapter that runs the kernels, else \
         the CPU reference (software adapters only when named: --backend webgpu)",
    );
    let values = std::iter::once(auto)
        .chain(Backend::ALL.map(|b| PossibleValue::new(b.name()).help(help(b))));
    PossibleValuesParser::new(values)
        .map(|name: String| BackendChoice(name.parse::<Backend>().ok()))
}

/// Opens the codec for `--backend`; for `auto`, also the line that says what ran and why.
fn open_codec(
    backend: BackendChoice,
    level: Lz4Level,
) -> Result<(Box<dyn PageCodec>, Option<String>)> {
    match backend.0 {
        Some(backend) => Ok((warpforge::codec::open_at(backend, level)?, None)),
        None => {
            let (codec, choice) = warpforge::codec::open_auto_at(level);
            Ok((codec, Some(choice.explain())))
        }
    }
}

fn progress_bar() -> ProgressBar {
    let bar = ProgressBar::new(0);
    if let Ok(style) =
        ProgressStyle::with_template("{bar:40} {pos}/{len} pages {per_sec} eta {eta}")
    {
        bar.set_style(style);
    }
    bar
}

type Pipeline =
    fn(&std::path::Path, &std::path::Path, &mut dyn PageCodec, &ProgressBar) -> Result<Summary>;

/// Runs `compress` or `decompress` with a progress bar and prints the summary.
fn run_pipeline(
    verb: &str,
    (backend, level): (BackendChoice, Option<Lz4Level>),
    input: &std::path::Path,
    output: &std::path::Path,
    run: Pipeline,
) -> Result<()> {
    let (mut codec, auto) = open_codec(backend, level.unwrap_or_default())?;
    if let Some(line) = auto {
        eprintln!("{line}");
    }
    let bar = progress_bar();
    let summary = run(input, output, codec.as_mut(), &bar)?;
    bar.finish_and_clear();
    let with = match (codec.backend(), level) {
        (Backend::Cpu, _) | (_, None) => codec.backend().to_string(),
        (backend, Some(level)) => format!("{backend} at level {}", level.number()),
    };
    report(verb, &with, &summary);
    Ok(())
}

fn report(verb: &str, with: &str, s: &Summary) {
    eprintln!(
        "{verb} {} pages ({} lz4, {} raw, {} same-filled) with {with}: {} page bytes, {} archive bytes, ratio {:.3}x, {:.1} MB/s",
        s.pages, s.kinds[0], s.kinds[1], s.kinds[2], s.page_bytes, s.archive_bytes, s.ratio(), s.megabytes_per_second()
    );
}

fn parse_level(text: &str) -> Result<Lz4Level, String> {
    let number: u8 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a level: the levels are 0, 1, 2 and 3"))?;
    Lz4Level::from_number(number).map_err(|e| e.to_string())
}

fn parse_sm(text: &str) -> Result<u32, String> {
    let n: u32 = text
        .trim_start_matches("sm_")
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    Sm::from_number(n)
        .map(|_| n)
        .ok_or_else(|| format!("unsupported target sm_{n}; supported: 70, 80, 90"))
}

fn main() -> ExitCode {
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
        Command::Emit {
            kernel,
            file,
            target,
            sm,
            report,
            output,
        } => {
            let from_naga = matches!(
                target,
                Target::Wgsl | Target::Spirv | Target::Msl | Target::Hlsl
            );
            let kernel = load_kernel(kernel.as_deref(), file.as_ref(), from_naga)?;
            if report && !matches!(target, Target::Ptx) {
                bail!("--report needs --target ptx");
            }
            use warpforge::emit_output::shader_bytes;
            use warpforge::wgsl::ShaderTarget;
            let (bytes, binary) = match target {
                Target::Ir => (kernel.to_string().into_bytes(), false),
                Target::Wgsl => {
                    let wgsl = warpforge::wgsl::emit(&verify(&kernel)?)?;
                    (wgsl.source.into_bytes(), false)
                }
                Target::Spirv => shader_bytes(&kernel, ShaderTarget::SpirV)?,
                Target::Msl => shader_bytes(&kernel, ShaderTarget::Msl)?,
                Target::Hlsl => shader_bytes(&kernel, ShaderTarget::Hlsl)?,
                Target::Ptx => {
                    let sm = Sm::from_number(sm).expect("validated by the argument parser");
                    let ptx = emit_ptx(&verify(&kernel)?, sm)?;
                    if report {
                        let ptxas = Ptxas::find().context(
                            "--report needs NVIDIA's ptxas: put it on PATH or name it in WARPFORGE_PTXAS",
                        )?;
                        let resources = ptxas.assemble(&ptx.text, sm)?;
                        eprintln!("{resources}");
                        let block = ptx.launch.block_size;
                        let dynamic = ptx.launch.dynamic_shared_bytes;
                        match Occupancy::from_report(sm, &resources, block, dynamic) {
                            Some(o) => eprintln!("{o}"),
                            None => eprintln!(
                                "occupancy on {}: a block of {block} threads with these resources does not fit on one SM",
                                sm.name()
                            ),
                        }
                    }
                    (ptx.text.into_bytes(), false)
                }
            };
            warpforge::emit_output::write(&bytes, binary, output.as_deref())
        }
        Command::Compress {
            backend,
            level,
            input,
            output,
        } => run_pipeline(
            "compressed",
            (backend, Some(level)),
            &input,
            &output,
            compress_file,
        ),
        Command::Decompress {
            backend,
            input,
            output,
        } => run_pipeline(
            "decompressed",
            (backend, None),
            &input,
            &output,
            decompress_file,
        ),
        Command::Demo { backend } => {
            let pages = warpforge::demo::sample_pages()?;
            let (mut codec, auto) = open_codec(backend, Lz4Level::DEFAULT)?;
            let rows = warpforge::demo::run(codec.as_mut(), &pages)?;
            print!("{}", warpforge::demo::text(&rows, &codec.describe()));
            if let Some(line) = auto {
                println!("{line}");
            }
            Ok(())
        }
        Command::Bench {
            corpus,
            json,
            seconds,
            no_webgpu,
            sim_pages,
            stats,
        } => {
            let bytes = std::fs::read(&corpus)
                .with_context(|| format!("cannot read {}", corpus.display()))?;
            if bytes.is_empty() || bytes.len() % warpforge::PAGE_SIZE != 0 {
                bail!(
                    "{}: {} bytes is not a whole, non-zero number of 4096-byte pages",
                    corpus.display(),
                    bytes.len()
                );
            }
            let pages: Vec<[u8; warpforge::PAGE_SIZE]> = bytes
                .chunks_exact(warpforge::PAGE_SIZE)
                .map(|c| c.try_into().expect("a page"))
                .collect();
            let report = warpforge::bench::run(&pages, seconds, !no_webgpu, sim_pages)?;
            let counters = if stats {
                let prefix = &pages[..sim_pages.clamp(1, pages.len())];
                Some(warpforge::bench_stats::sim_counters(prefix)?)
            } else {
                None
            };
            match (json, counters) {
                (true, Some(c)) => println!("{}", warpforge::bench_stats::json(&report, &c)),
                (true, None) => println!("{}", report.json()),
                (false, c) => {
                    print!("{}", report.text());
                    if let Some(c) = c {
                        print!("\n{}", warpforge::bench_stats::text(&c));
                    }
                }
            }
            Ok(())
        }
        Command::Lint {
            kernels,
            files,
            format,
            explain,
            no_assume_warp_aligned_blocks,
            block,
        } => {
            if explain {
                for rule in warpforge::analysis::Rule::ALL {
                    println!("{} {}\n    {}\n", rule, rule.name(), rule.explanation());
                }
                return Ok(());
            }
            let assume = warpforge::analysis::PtxAssumptions {
                warp_aligned: !no_assume_warp_aligned_blocks,
                block,
                ..Default::default()
            };
            match lint(&kernels, &files, format, &assume)? {
                0 => Ok(()),
                code => std::process::exit(i32::from(code)),
            }
        }
        Command::Run(args) => std::process::exit(run_cmd::run(args)),
        Command::HostBench(args) => host_bench_cmd::run(args),
        Command::Info => {
            info();
            Ok(())
        }
        Command::List => {
            for entry in catalog::entries() {
                println!("{:<16} {}", entry.name, entry.description);
            }
            Ok(())
        }
    }
}

fn load_kernel(name: Option<&str>, file: Option<&PathBuf>, webgpu: bool) -> Result<Kernel> {
    let kernel = match (name, file) {
        (Some(name), _) => {
            let entry = catalog::find(name).map_err(anyhow::Error::msg)?;
            if webgpu {
                entry.webgpu_build()
            } else {
                entry.build()
            }
        }
        (None, Some(path)) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            parse_kernel(&text)
                .with_context(|| format!("{}: not a valid .wfir kernel", path.display()))?
        }
        (None, None) => bail!("name a kernel with --kernel NAME or --file FILE.wfir"),
    };
    if let Err(e) = verify(&kernel) {
        bail!("{e}");
    }
    Ok(kernel)
}

fn info() {
    println!("ptx: emitted for sm_70, sm_80, sm_90");
    match Ptxas::find() {
        Some(p) => println!(
            "ptxas: {} ({})",
            p.path().display(),
            p.version().unwrap_or_default()
        ),
        None => println!("ptxas: not found (set WARPFORGE_PTXAS; needed for --report)"),
    }
    let cuda = warpforge::gpu::cuda_devices();
    if cuda.is_empty() {
        println!("cuda: no driver or no device (gpu_available() = false)");
    }
    for (i, device) in cuda.iter().enumerate() {
        match device {
            Ok(d) => println!(
                "cuda device {}: {}, SM {}.{}, {} MiB memory, {} MiB L2, supported: {}, optimal batch: {} pages",
                d.index,
                d.name,
                d.compute_capability.0,
                d.compute_capability.1,
                d.total_memory >> 20,
                d.l2_cache_size >> 20,
                d.is_supported(),
                d.optimal_batch_size()
            ),
            Err(e) => println!("cuda device {i}: {e}"),
        }
    }
    let adapters = warpforge::runtime::webgpu::list_adapters();
    if adapters.is_empty() {
        println!("webgpu: no adapter found (on Linux without a GPU: apt-get install mesa-vulkan-drivers)");
    }
    for (i, adapter) in adapters.iter().enumerate() {
        println!("webgpu adapter {i}: {adapter}");
    }
}
