//! `warpforge run`: one launch of a kernel (a `.wfir` file or a catalog kernel) on the simulator, its
//! emitted PTX on the PTX simulator (`ptx-sim`), a WebGPU adapter or a CUDA GPU, through the
//! runtime's launch API, with its arguments from the command line and from files — or of an entry of
//! a PTX file on the PTX simulator (`ptx.rs`). It prints the sanitizer's findings (and the
//! simulator's counters with `--stats`), optionally checks another backend against the simulator byte
//! for byte, and writes read_write buffers to files after the run.
//!
//! Exit status: 0 when it ran clean, 1 on a sanitizer error, a kernel fault, a `--check` mismatch or a
//! backend that could not run, 2 on bad usage (every bad argument is named, one line each).

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use warpforge::catalog;
use warpforge::ir::{
    parse_kernel, verify, Access, Kernel, Literal, ParamKind, ScalarType, Verified,
};
use warpforge::runtime::sim::{SimOptions, SimReport};
use warpforge::runtime::{open, Backend, BufferArg, LaunchError, Launched, Launcher};

mod dims;
mod help;
mod profile;
mod ptx;
mod ptx_cuda;
mod report;

use dims::Dims;
use help::HELP;
use report::{first_difference, json, millis, print_text, Outcome, Ran};
use warpforge::ptx::Sm;

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
    file: Option<PathBuf>,
    /// A kernel of the repository, by name (see `warpforge list`).
    #[arg(long)]
    kernel: Option<String>,
    /// Where the kernel runs: sim (the CPU simulator, sanitizer on unless --no-sanitize), ptx-sim (its
    /// emitted PTX on the CPU simulator), webgpu (the first WebGPU adapter that can run it, a GPU or
    /// lavapipe) or cuda (the first CUDA GPU of SM 7.0+). A PTX file runs on sim (= ptx-sim).
    #[arg(long, value_parser = run_backend())]
    backend: Backend,
    /// Blocks in the grid: X, X,Y or X,Y,Z (default: 1 block; a .wfir kernel's grid is 1-D).
    #[arg(long, alias = "blocks", value_name = "X[,Y[,Z]]", default_value = "1")]
    grid: Dims,
    /// The PTX entry to run (PTX files; optional when the module has one entry).
    #[arg(long, value_name = "NAME")]
    entry: Option<String>,
    /// Threads per block, X[,Y[,Z]] (PTX files: required without `.reqntid`, refused when it
    /// contradicts it).
    #[arg(long, value_name = "X[,Y[,Z]]")]
    block: Option<Dims>,
    /// Bytes of dynamic shared memory for `.extern .shared` arrays (PTX files).
    #[arg(long, value_name = "BYTES")]
    dynamic_shared: Option<u32>,
    /// The target whose PTX ptx-sim runs (70, 80 or 90; default 70).
    #[arg(long, value_name = "SM", value_parser = ["70", "80", "90"])]
    sm: Option<String>,
    /// A parameter's value: NAME=@FILE.bin, NAME=zeros:COUNT or NAME=VALUE (one per parameter).
    #[arg(long = "arg", value_name = "NAME=…")]
    args: Vec<String>,
    /// Write a read_write buffer's bytes after the run to a file (also after errors; repeatable).
    #[arg(long = "out", value_name = "NAME=FILE.bin")]
    outs: Vec<String>,
    /// Print the simulator's counters (on webgpu and cuda: with `--check sim`, those of the check's run).
    #[arg(long)]
    stats: bool,
    /// Print the kernel's source (its `.wfir` text, or the PTX that ptx-sim or a PTX file ran) with
    /// the simulator's counters per line (on webgpu and cuda: with `--check sim`, of the check's run).
    #[arg(long)]
    profile: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: RunFormat,
    /// Turn the simulator's sanitizer off (racecheck, initcheck; bounds and barriers are still checked).
    #[arg(long)]
    no_sanitize: bool,
    /// Also run the kernel on the simulator and compare every read_write buffer byte for byte.
    #[arg(long, value_enum, value_name = "BACKEND")]
    check: Option<CheckBackend>,
}

/// `run --backend` values: the runtime's launch backends.
fn run_backend() -> impl clap::builder::TypedValueParser<Value = Backend> {
    use clap::builder::{PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(Backend::ALL.map(Backend::name))
        .map(|name: String| name.parse::<Backend>().expect("one of the listed backends"))
}

/// `run --check` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum CheckBackend {
    /// The CPU simulator, the definition of what a kernel computes.
    Sim,
}

/// `run --format` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum RunFormat {
    /// Findings, a summary line, counters and the files written.
    Text,
    /// One JSON object.
    Json,
}

/// Why `run` stopped before reporting: the exit status (2 bad usage, 1 the backend could not run) and
/// one line per problem.
struct Failure(i32, Vec<String>);

fn usage(line: String) -> Failure {
    Failure(2, vec![line])
}

fn fault(line: String) -> Failure {
    Failure(1, vec![line])
}

/// One buffer argument, in parameter order.
#[derive(Clone, Debug)]
struct Buffer {
    name: String,
    elem: ScalarType,
    access: Access,
    bytes: Vec<u8>,
}

impl Buffer {
    fn arg(&mut self) -> BufferArg<'_> {
        match self.access {
            Access::ReadOnly => BufferArg::ReadOnly(&self.bytes),
            Access::ReadWrite => BufferArg::ReadWrite(&mut self.bytes),
        }
    }
}

/// Runs `warpforge run`; returns the exit status.
pub fn run(args: RunArgs) -> i32 {
    execute(&args).unwrap_or_else(|Failure(code, lines)| {
        lines.iter().for_each(|line| eprintln!("error: {line}"));
        code
    })
}

fn execute(args: &RunArgs) -> Result<i32, Failure> {
    if let Some(path) = args
        .file
        .as_ref()
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
    {
        return ptx::execute(args, path);
    }
    let on_sim = args.backend == Backend::Sim;
    if args.check.is_some() && on_sim {
        let line = "--check sim compares another backend with the simulator: use --backend \
                    ptx-sim, --backend webgpu or --backend cuda";
        return Err(usage(line.into()));
    }
    let mut misplaced = Vec::new();
    let what = "is for PTX files: a .wfir kernel's";
    if args.entry.is_some() {
        misplaced.push(format!("--entry {what} entry is the kernel"));
    }
    if args.block.is_some() {
        misplaced.push(format!("--block {what} block size is its own block_size"));
    }
    if !args.grid.is_linear() {
        misplaced.push(format!(
            "--grid {}: a .wfir kernel's grid is 1-D (blocks in x): give --grid {}",
            args.grid,
            args.grid.count()
        ));
    }
    if args.dynamic_shared.is_some() {
        misplaced.push(format!(
            "--dynamic-shared {what} shared memory is declared in it"
        ));
    }
    if args.sm.is_some() && args.backend != Backend::PtxSim {
        misplaced.push("--sm chooses the PTX that --backend ptx-sim runs".into());
    }
    if !misplaced.is_empty() {
        return Err(Failure(2, misplaced));
    }
    let kernel = load_kernel(args)?;
    let verified = verify(&kernel).map_err(|e| usage(format!("{}: {e}", source(args))))?;
    let (mut buffers, scalars, outs) = parse_arguments(&kernel, &args.args, &args.outs)?;
    let on_ptx_sim = args.backend == Backend::PtxSim;
    if args.stats && !on_sim && !on_ptx_sim && args.check.is_none() {
        eprintln!("note: --stats: the counters are the simulator's; add --check sim to get them");
    }
    if args.profile && !on_sim && !on_ptx_sim && args.check.is_none() {
        return Err(usage(
            "--profile shows the simulator's counters: run on sim or ptx-sim, or add --check sim"
                .into(),
        ));
    }
    let sim_options = SimOptions {
        sanitize: !args.no_sanitize,
        stats: args.stats || args.profile,
        profile: args.profile,
        ..SimOptions::default()
    };
    let sim = Launcher::Sim(sim_options.clone());
    let bits: Vec<u64> = scalars.iter().map(|s| s.1).collect();
    let outcome = if on_sim {
        let launched = launch(&sim, &verified, args.grid.0[0], &mut buffers, &bits)?;
        Outcome {
            backend: "sim".into(),
            time: format!("{} (host clock)", millis(launched.timings.kernel_ns)),
            report: launched.sim,
            report_of_check: false,
            check: None,
            written: Vec::new(),
            profile: args.profile.then(|| profile::Source::Ir(kernel.clone())),
        }
    } else {
        let launcher = if on_ptx_sim {
            let sm = args
                .sm
                .as_deref()
                .and_then(|n| Sm::from_number(n.parse().ok()?))
                .unwrap_or_default();
            Launcher::PtxSim(sim_options.clone(), sm)
        } else {
            open(args.backend, &[&verified]).map_err(|e| cannot_run(args.backend, e))?
        };
        let mut sim_buffers = args.check.map(|_| buffers.clone());
        let launched = launch(&launcher, &verified, args.grid.0[0], &mut buffers, &bits)?;
        let (report, check) = match sim_buffers.as_mut() {
            Some(sim_buffers) => {
                let report = launch(&sim, &verified, args.grid.0[0], sim_buffers, &bits)?.sim;
                let own = launched.sim.clone();
                (
                    own.or(report),
                    Some(first_difference(&buffers, sim_buffers)),
                )
            }
            None => (launched.sim.clone(), None),
        };
        let time = if on_ptx_sim {
            format!("{} (host clock)", millis(launched.timings.kernel_ns))
        } else {
            launched.timings.to_string()
        };
        let profile = (args.profile)
            .then(|| profile::Source::of(&kernel, &verified, &launcher))
            .transpose()
            .map_err(|e| Failure(1, vec![format!("{}: {e}", source(args))]))?;
        Outcome {
            backend: format!("{} ({})", args.backend, launcher.device_name()),
            report_of_check: !on_ptx_sim && report.is_some(),
            report,
            time,
            check,
            written: Vec::new(),
            profile,
        }
    };
    let clean = outcome.report.as_ref().is_none_or(SimReport::is_clean)
        && !matches!(outcome.check, Some(Some(_)));
    let ran = Ran {
        name: &kernel.name,
        block_size: kernel.block_size,
    };
    finish(args, &ran, outcome, &buffers, outs, clean)
}

/// Writes the `--out` buffers, prints the report in the asked format, and gives the exit status
/// (0 clean, 1 with findings or a file that could not be written).
fn finish(
    args: &RunArgs,
    ran: &Ran<'_>,
    mut outcome: Outcome,
    buffers: &[Buffer],
    outs: Vec<(usize, PathBuf)>,
    clean: bool,
) -> Result<i32, Failure> {
    let mut write_errors = Vec::new();
    for (index, path) in outs {
        let Buffer { name, bytes, .. } = &buffers[index];
        match std::fs::write(&path, bytes) {
            Ok(()) => outcome.written.push((name.clone(), path, bytes.len())),
            Err(e) => write_errors.push(format!("cannot write {}: {e}", path.display())),
        }
    }
    let stats = args.stats.then_some(outcome.report.as_ref()).flatten();
    let blocks = u32::try_from(args.grid.count()).unwrap_or(u32::MAX);
    let profile = outcome.profile.as_ref().zip(outcome.report.as_ref());
    match args.format {
        RunFormat::Text => {
            print_text(ran, blocks, &outcome, stats, clean);
            if let Some((source, report)) = profile {
                print!("\n{}", profile::text(source, &report.profile, blocks));
            }
        }
        RunFormat::Json => {
            let profile = profile.map(|(source, report)| profile::json(source, &report.profile));
            println!("{}", json(ran, blocks, &outcome, stats, profile, clean));
        }
    }
    if !write_errors.is_empty() {
        return Err(Failure(1, write_errors));
    }
    Ok(if clean { 0 } else { 1 })
}

/// How error messages name the kernel's source.
fn source(args: &RunArgs) -> String {
    match (&args.file, &args.kernel) {
        (Some(path), _) => path.display().to_string(),
        (None, name) => format!("kernel {}", name.as_deref().unwrap_or_default()),
    }
}

fn load_kernel(args: &RunArgs) -> Result<Kernel, Failure> {
    if let Some(name) = &args.kernel {
        let entry = catalog::find(name).map_err(usage)?;
        return Ok(entry.ir_for(args.backend));
    }
    let path = args
        .file
        .as_ref()
        .expect("clap requires a file or --kernel");
    let text = std::fs::read_to_string(path)
        .map_err(|e| usage(format!("cannot read {}: {e}", path.display())))?;
    parse_kernel(&text)
        .map_err(|e| usage(format!("{}: not a valid .wfir kernel: {e}", path.display())))
}

/// A parameter's value as given: a buffer's bytes or a scalar's bits.
#[derive(Clone)]
enum Given {
    Bytes(Vec<u8>),
    Bits(u64),
    /// Given, but wrong (already reported).
    Bad,
}

type Parsed = (Vec<Buffer>, Vec<(String, u64)>, Vec<(usize, PathBuf)>);

/// Matches `--arg` and `--out` with the kernel's parameters: the buffers and the scalars (name, bits)
/// in parameter order, and each `--out` as (index in the buffers, file). Every bad argument is one
/// line of the error.
fn parse_arguments(kernel: &Kernel, args: &[String], outs: &[String]) -> Result<Parsed, Failure> {
    let params: Vec<_> = kernel.params.iter().map(|(_, p)| p).collect();
    let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    let (kernel_name, list) = (&kernel.name, names.join(", "));
    let unknown = |flag: &str, name: &str| {
        format!("{flag} `{name}`: unknown parameter; kernel `{kernel_name}` has {list}")
    };
    let mut errors = Vec::new();
    let mut given: Vec<Option<Given>> = vec![None; params.len()];
    for arg in args {
        let Some((name, value)) = arg.split_once('=') else {
            let expected = "expected NAME=@FILE.bin, NAME=zeros:COUNT or NAME=VALUE";
            errors.push(format!("--arg `{arg}`: {expected}"));
            continue;
        };
        let Some(i) = names.iter().position(|n| *n == name) else {
            errors.push(unknown("--arg", name));
            continue;
        };
        if given[i].is_some() {
            errors.push(format!("--arg `{name}`: parameter `{name}` is given twice"));
            continue;
        }
        let value = match params[i].kind {
            ParamKind::Buffer { elem, access } => {
                buffer_value(name, elem, access, value).map(Given::Bytes)
            }
            ParamKind::Scalar(ty) => scalar_value(name, ty, value).map(Given::Bits),
        };
        given[i] = Some(value.unwrap_or_else(|e| {
            errors.push(e);
            Given::Bad
        }));
    }
    let (mut buffers, mut scalars) = (Vec::new(), Vec::new());
    for (param, value) in params.iter().zip(given) {
        let name = param.name.clone();
        match (param.kind, value) {
            (ParamKind::Buffer { elem, access }, value) => {
                let bytes = match value {
                    Some(Given::Bytes(bytes)) => bytes,
                    Some(_) => Vec::new(),
                    None => {
                        errors.push(format!(
                            "missing buffer `{name}` ({elem} {}): --arg {name}=@FILE.bin or \
                             --arg {name}=zeros:COUNT",
                            access.name()
                        ));
                        Vec::new()
                    }
                };
                buffers.push(Buffer {
                    name,
                    elem,
                    access,
                    bytes,
                });
            }
            (ParamKind::Scalar(ty), None) => {
                errors.push(format!(
                    "missing scalar `{name}` ({ty}): --arg {name}=VALUE"
                ));
            }
            (ParamKind::Scalar(_), Some(Given::Bits(bits))) => scalars.push((name, bits)),
            (ParamKind::Scalar(_), Some(_)) => {}
        }
    }
    let mut files: Vec<(usize, PathBuf)> = Vec::new();
    for out in outs {
        let Some((name, file)) = out.split_once('=').filter(|(_, f)| !f.is_empty()) else {
            errors.push(format!("--out `{out}`: expected NAME=FILE.bin"));
            continue;
        };
        let path = PathBuf::from(file);
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty() && !d.is_dir());
        let at = |m: &str| format!("--out `{name}`: {m}");
        match buffers.iter().position(|b| b.name == name) {
            None if names.contains(&name) => errors.push(at("a scalar parameter, not a buffer")),
            None => errors.push(unknown("--out", name)),
            Some(i) if buffers[i].access == Access::ReadOnly => {
                errors.push(at("a read-only buffer: the kernel cannot change it"))
            }
            Some(i) if files.iter().any(|(j, _)| *j == i) => errors.push(at("given twice")),
            Some(_) if dir.is_some() => errors.push(at(&format!(
                "cannot write {}: no directory {}",
                path.display(),
                dir.map(|d| d.display().to_string()).unwrap_or_default()
            ))),
            Some(i) => files.push((i, path)),
        }
    }
    match errors.is_empty() {
        true => Ok((buffers, scalars, files)),
        false => Err(Failure(2, errors)),
    }
}

/// The initial bytes of buffer `name` from `@FILE` or `zeros:COUNT`.
fn buffer_value(
    name: &str,
    elem: ScalarType,
    access: Access,
    value: &str,
) -> Result<Vec<u8>, String> {
    let size = elem.size_bytes().unwrap_or(4) as usize;
    if let Some(file) = value.strip_prefix('@') {
        let bytes =
            std::fs::read(file).map_err(|e| format!("--arg `{name}`: cannot read {file}: {e}"))?;
        if bytes.len() % size != 0 {
            return Err(format!(
                "--arg `{name}`: {file} has {} bytes, not a whole number of {elem} elements \
                 ({size} bytes each)",
                bytes.len()
            ));
        }
        return Ok(bytes);
    }
    if let Some(count) = value.strip_prefix("zeros:") {
        let bytes = parse_unsigned(count)
            .and_then(|n| usize::try_from(n).ok()?.checked_mul(size))
            .filter(|&n| n <= isize::MAX as usize)
            .ok_or_else(|| format!("--arg `{name}`: `{count}` is not an element count"))?;
        let mut zeros = Vec::new();
        zeros
            .try_reserve_exact(bytes)
            .map_err(|_| format!("--arg `{name}`: cannot allocate {bytes} bytes"))?;
        zeros.resize(bytes, 0);
        return Ok(zeros);
    }
    Err(format!(
        "--arg `{name}`: `{name}` is a buffer (global {elem} {}): give it @FILE.bin or zeros:COUNT, \
         not the value `{value}`",
        access.name()
    ))
}

/// A decimal or `0x` hexadecimal unsigned integer (`u128::MAX` when too long for any type, so that the
/// range check reports it).
fn parse_unsigned(text: &str) -> Option<u128> {
    let (digits, radix) = match text.strip_prefix("0x") {
        Some(hex) => (hex, 16),
        None => (text, 10),
    };
    let ok = !digits.is_empty() && digits.chars().all(|c| c.is_digit(radix));
    ok.then(|| u128::from_str_radix(digits, radix).unwrap_or(u128::MAX))
}

/// The bits of scalar `name` of type `ty` (zero-extended, two's complement for signed types).
fn scalar_value(name: &str, ty: ScalarType, text: &str) -> Result<u64, String> {
    let bad = |why: &str| format!("--arg `{name}`: `{text}` {why}");
    if text.starts_with('@') || text.starts_with("zeros:") {
        return Err(bad(&format!(
            "is a buffer's value, but `{name}` is a scalar {ty}"
        )));
    }
    let literal = match ty {
        ScalarType::Bool => match text {
            "true" | "1" => Literal::Bool(true),
            "false" | "0" => Literal::Bool(false),
            _ => return Err(bad("is not a bool (true or false)")),
        },
        ScalarType::F32 if text.starts_with("0x") => {
            let bits = parse_unsigned(text).and_then(|b| u32::try_from(b).ok());
            Literal::F32Bits(bits.ok_or_else(|| bad("is not the 32 bits of an f32 in hex"))?)
        }
        ScalarType::F32 => match text.parse::<f32>() {
            // `inf` and `nan` are asked for; a finite decimal that rounds to infinity does not fit.
            Ok(v) if v.is_finite() || !text.bytes().any(|b| b.is_ascii_digit()) => Literal::f32(v),
            Ok(_) => return Err(bad("does not fit in f32")),
            Err(_) => return Err(bad("is not a decimal number")),
        },
        _ => {
            let (negative, digits) = text.strip_prefix('-').map_or((false, text), |d| (true, d));
            let magnitude = parse_unsigned(digits)
                .ok_or_else(|| bad("is not a decimal or 0x hexadecimal integer"))?;
            let width = ty.bits();
            let max = u128::MAX >> (128 - width);
            let fits = match (negative, ty.is_signed(), digits.starts_with("0x")) {
                (true, false, _) => return Err(bad(&format!("is negative, but {ty} is unsigned"))),
                (true, true, _) => magnitude <= 1 << (width - 1),
                (false, true, false) => magnitude < 1 << (width - 1),
                (false, _, _) => magnitude <= max,
            };
            if !fits {
                return Err(bad(&format!("does not fit in {ty}")));
            }
            let bits = if negative {
                magnitude.wrapping_neg()
            } else {
                magnitude
            };
            Literal::from_bits(ty, (bits & max) as u64)
        }
    };
    Ok(literal.to_bits())
}

/// Why `backend` cannot run the kernel: no device is a fault (exit 1) with a hint, like a device error.
fn cannot_run(backend: Backend, e: LaunchError) -> Failure {
    let hint = match backend {
        Backend::WebGpu if e.is_no_device() => {
            "\n(without a GPU on Linux: apt-get install mesa-vulkan-drivers)"
        }
        Backend::Cuda if e.is_no_device() => {
            "\n(cuda needs an NVIDIA GPU of SM 7.0+ and its driver; --backend sim and ptx-sim run \
             anywhere)"
        }
        _ => "",
    };
    if e.is_arguments() {
        usage(e.to_string())
    } else {
        fault(format!("{e}{hint}"))
    }
}

/// Loads `kernel` on `launcher` and launches it; bad arguments are usage errors, anything else a fault.
fn launch(
    launcher: &Launcher,
    kernel: &Verified<'_>,
    grid: u32,
    buffers: &mut [Buffer],
    scalars: &[u64],
) -> Result<Launched, Failure> {
    let backend = launcher.backend();
    let loaded = launcher.load(kernel).map_err(|e| cannot_run(backend, e))?;
    let mut args: Vec<BufferArg<'_>> = buffers.iter_mut().map(Buffer::arg).collect();
    launcher
        .launch(&loaded, grid, &mut args, scalars)
        .map_err(|e| cannot_run(backend, e))
}
