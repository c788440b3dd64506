//! `warpforge run`: one launch of a kernel (a `.wfir` file or a catalog kernel) on the simulator, its
//! emitted PTX on the PTX simulator (`ptx-sim`), a WebGPU adapter or a CUDA GPU, through the
//! runtime's launch API, with its arguments from the command line and from files — or of an entry of
//! a PTX file on the PTX simulator (`ptx.rs`). It prints the sanitizer's findings (and the
//! simulator's counters with `--stats`), optionally checks another backend against the simulator byte
//! for byte, and writes read_write buffers to files after the run.
//!
//! Exit status: 0 when it ran clean, 1 on a sanitizer error, a kernel fault, a `--check` mismatch or a
//! backend that could not run, 2 on bad usage (every bad argument is named, one line each).

use warpforge::catalog;
use warpforge::ir::{parse_kernel, verify, Kernel, Verified};
use warpforge::runtime::sim::{SimOptions, SimReport};
use warpforge::runtime::{open, Backend, BufferArg, LaunchError, Launched, Launcher};

mod accept;
mod args;
mod buffer;
mod dims;
mod failure;
mod finish;
mod help;
mod profile;
mod ptx;
mod ptx_cuda;
mod report;
mod values;

pub use args::RunArgs;
use buffer::Buffer;
use failure::{fault, usage, Failure};
use finish::finish;
use report::{first_difference, millis, Outcome, Ran};
use values::parse_arguments;
use warpforge::ptx::Sm;

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
        let launched = launch(&sim, &verified, args.grid.0, &mut buffers, &bits)?;
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
        let launched = launch(&launcher, &verified, args.grid.0, &mut buffers, &bits)?;
        let (report, check) = match sim_buffers.as_mut() {
            Some(sim_buffers) => {
                let report = launch(&sim, &verified, args.grid.0, sim_buffers, &bits)?.sim;
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
    let mut outcome = outcome;
    if let Some(path) = &args.accept {
        accept::apply(path, &kernel.name, &mut outcome)?;
    }
    let clean = outcome.report.as_ref().is_none_or(SimReport::is_clean)
        && !matches!(outcome.check, Some(Some(_)));
    let ran = Ran {
        name: &kernel.name,
        block_size: kernel.block_size,
    };
    finish(args, &ran, outcome, &buffers, outs, clean)
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
    grid: [u32; 3],
    buffers: &mut [Buffer],
    scalars: &[u64],
) -> Result<Launched, Failure> {
    let backend = launcher.backend();
    let loaded = launcher.load(kernel).map_err(|e| cannot_run(backend, e))?;
    let mut args: Vec<BufferArg<'_>> = buffers.iter_mut().map(Buffer::arg).collect();
    launcher
        .launch_grid(&loaded, grid, &mut args, scalars)
        .map_err(|e| cannot_run(backend, e))
}
