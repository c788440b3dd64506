//! Side by side on one GPU, in one run, on the same pages (issue 21): warpforge's page kernels
//! device-resident at every level, nvCOMP's batched LZ4, the batch API host to host (CUDA at every
//! level, WebGPU), lz4_flex on every core, and the pinned PCIe bandwidth. Every output is verified.
//!
//! ```text
//! gpu_kernel_bench --pages FILE [--mib 1024] [--sets 8] [--runs 40] [--warmup 8] [--host-runs 3]
//!                  [--nvcomp libnvcomp.so.6] [--only ours,nvcomp,pcie,host,latency,cli,fused,cpu,webgpu]
//!                  [--latency-calls 1000] [--fused-pages 16384] [--cli-mib 256] [--json OUT.json]
//! gpu_kernel_bench --nvcomp-info libnvcomp.so.6   # open nvCOMP, print its version and sizes (no GPU)
//! ```
//!
//! `--only cpu,webgpu,cli` needs no CUDA device (`cli` then runs `--backend cpu` alone). `cli`: the
//! CLI's file pipeline (`warpforge compress`/`decompress`, files in the temp directory, synced) on the
//! first `--cli-mib` MiB, `--backend cuda` beside `--backend cpu`. `latency`: `--latency-calls` round
//! trips of one 64-page batch through the CUDA batch API (p50/p99 of the wall time per call). `fused`: the LZ4 device
//! functions inside the fused XOR-delta kernels beside the batch level-0 kernels, on the first
//! `--fused-pages` pages (`examples/lz4_fused`).
//!
//! `--pages` is a file of whole 4 KiB pages, repeated (each repeat rotated by 37 pages) up to `--mib`
//! MiB and split into `--sets` rotation sets in separate device buffers; consecutive timed runs use
//! different sets, so L2 holds none of a run's input. Device-resident figures: CUDA events around each
//! launch, median of `--runs`. Host-to-host figures: host clock around whole calls. Exit status: 0 when
//! every section ran and verified, 1 when one failed, 2 for bad arguments or no usable CUDA device.
//! `scripts/gpu-check.sh perf` runs it (docs/gpu.md).

mod cli;
mod extra;
mod from_input;
#[path = "../lz4_fused/run.rs"]
mod fused_run;
mod gpu;
mod host;
mod nvcomp;
mod ours;
mod registered;
mod report;

use std::process::ExitCode;

use anyhow::Result;
use warpforge::codec::Backend;
use warpforge::PAGE_SIZE;

use gpu::{Gpu, Page, Sets};
use ours::Runs;
use report::{Figure, Report, Scope};

const SECTIONS: [&str; 9] = [
    "ours", "nvcomp", "pcie", "host", "latency", "cli", "fused", "cpu", "webgpu",
];

struct Args {
    pages: String,
    mib: usize,
    sets: usize,
    runs: Runs,
    host_runs: usize,
    latency_calls: usize,
    fused_pages: usize,
    cli_mib: usize,
    nvcomp: Option<String>,
    only: Vec<String>,
    json: Option<String>,
    /// Only open nvCOMP and print what it says (no GPU needed).
    nvcomp_info: Option<String>,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        pages: String::new(),
        mib: 1024,
        sets: 8,
        runs: Runs {
            warmup: 8,
            timed: 40,
        },
        host_runs: 3,
        latency_calls: 1000,
        fused_pages: 16384,
        cli_mib: 256,
        nvcomp: None,
        only: SECTIONS.iter().map(|s| s.to_string()).collect(),
        json: None,
        nvcomp_info: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        let num = |v: String| v.parse::<usize>().map_err(|e| format!("{flag} {v}: {e}"));
        match flag.as_str() {
            "--pages" => a.pages = value()?,
            "--mib" => a.mib = num(value()?)?,
            "--sets" => a.sets = num(value()?)?,
            "--runs" => a.runs.timed = num(value()?)?,
            "--warmup" => a.runs.warmup = num(value()?)?,
            "--host-runs" => a.host_runs = num(value()?)?,
            "--latency-calls" => a.latency_calls = num(value()?)?,
            "--fused-pages" => a.fused_pages = num(value()?)?,
            "--cli-mib" => a.cli_mib = num(value()?)?,
            "--nvcomp" => a.nvcomp = Some(value()?),
            "--json" => a.json = Some(value()?),
            "--nvcomp-info" => a.nvcomp_info = Some(value()?),
            "--only" => {
                a.only = value()?.split(',').map(str::to_owned).collect();
                if let Some(bad) = a.only.iter().find(|s| !SECTIONS.contains(&s.as_str())) {
                    return Err(format!(
                        "--only {bad}: the sections are {}",
                        SECTIONS.join(",")
                    ));
                }
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if a.pages.is_empty() && a.nvcomp_info.is_none() {
        return Err("--pages FILE is required (a file of whole 4 KiB pages)".into());
    }
    if a.mib == 0
        || a.sets == 0
        || a.runs.timed == 0
        || a.latency_calls == 0
        || a.fused_pages == 0
        || a.cli_mib == 0
    {
        return Err(
            "--mib, --sets, --runs, --latency-calls, --fused-pages and --cli-mib must be at least 1"
                .into(),
        );
    }
    if a.only.iter().any(|s| s == "nvcomp") && a.nvcomp.is_none() && a.nvcomp_info.is_none() {
        return Err(
            "--nvcomp PATH (libnvcomp.so.6) is required unless --only leaves nvcomp out".into(),
        );
    }
    Ok(a)
}

/// The corpus repeated up to `mib` MiB (a whole number of pages per set), each repeat rotated by 37
/// pages so that the sets are not copies of one another.
fn load_pages(path: &str, mib: usize, sets: usize) -> Result<Vec<Page>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    if bytes.is_empty() || bytes.len() % PAGE_SIZE != 0 {
        return Err(format!(
            "{path}: {} bytes is not a whole, non-zero number of 4 KiB pages",
            bytes.len()
        ));
    }
    let corpus: Vec<&[u8]> = bytes.chunks_exact(PAGE_SIZE).collect();
    let m = corpus.len();
    let count = ((mib << 20) / PAGE_SIZE / sets).max(1) * sets;
    Ok((0..count)
        .map(|i| {
            let rep = i / m;
            corpus[(i % m + rep * 37) % m].try_into().expect("a page")
        })
        .collect())
}

/// Runs one section, saying on stderr when it starts and ends (a run cut short still shows where).
fn section(report: &mut Report, name: &str, run: impl FnOnce(&mut Report) -> Result<()>) {
    eprintln!("gpu_kernel_bench: {name} ...");
    let start = std::time::Instant::now();
    let result = run(report);
    eprintln!(
        "gpu_kernel_bench: {name}: {} after {:.1} s",
        if result.is_ok() { "done" } else { "FAILED" },
        start.elapsed().as_secs_f64()
    );
    if let Err(e) = result {
        eprintln!("gpu_kernel_bench: {name} FAILED: {e:#}");
        report.failures.push(format!("{name}: {e:#}"));
    }
}

fn write_json(report: &Report, path: Option<&str>) {
    if let Some(path) = path {
        if let Err(e) = std::fs::write(path, report.json()) {
            eprintln!("gpu_kernel_bench: cannot write {path}: {e}");
        }
    }
}

fn pcie(gpu: &Gpu, report: &mut Report) -> Result<()> {
    let bytes = 256 << 20;
    let (h2d, d2h) = gpu.pinned_copies(bytes, 10)?;
    for (op, seconds) in [("H2D", h2d), ("D2H", d2h)] {
        report.figures.push(Figure {
            backend: "CUDA pinned copy".into(),
            op: op.into(),
            scope: Scope::Transfer,
            clock: "CUDA events".into(),
            bytes: bytes as u64,
            seconds,
            ratio: None,
            fallback_pages: None,
            verified_pages: 0,
            note: "256 MiB per copy, pinned host memory: the ceiling of every host-to-host GPU figure; \
                   the round trip's bytes checked"
                .into(),
        });
    }
    Ok(())
}

fn run(args: Args) -> Result<ExitCode> {
    let on = |s: &str| args.only.iter().any(|o| o == s);
    if let Some(lib) = &args.nvcomp_info {
        println!("{}", nvcomp::describe(lib)?);
        return Ok(ExitCode::SUCCESS);
    }
    let pages = match load_pages(&args.pages, args.mib, args.sets) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("gpu_kernel_bench: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let needs_cuda = ["ours", "nvcomp", "pcie", "host", "latency", "fused"]
        .iter()
        .any(|s| on(s));
    if !needs_cuda {
        let mut report = Report::default();
        report.set(
            "pages",
            format!(
                "{} pages ({} MiB) from {}",
                pages.len(),
                (pages.len() * PAGE_SIZE) >> 20,
                args.pages
            ),
        );
        if on("cpu") {
            section(&mut report, "lz4_flex", |r| {
                host::lz4_flex(&pages, args.host_runs, r)
            });
        }
        if on("webgpu") {
            section(&mut report, "WebGPU batch API", |r| {
                host::webgpu(&pages, args.host_runs, r)
            });
        }
        if on("cli") {
            section(&mut report, "CLI pipeline", |r| {
                cli::run(&pages, args.cli_mib, args.host_runs, &[Backend::Cpu], r)
            });
        }
        write_json(&report, args.json.as_deref());
        print!("{}", report.text());
        return Ok(if report.failures.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        });
    }
    if let Err(why) = warpforge::runtime::cuda::cuda_probe() {
        eprintln!(
            "gpu_kernel_bench: no usable CUDA device: {why}. This bench measures on an NVIDIA GPU \
             (SM 7.0+) with its driver; nothing was measured."
        );
        return Ok(ExitCode::from(2));
    }
    let mut report = Report::default();
    let gpu = Gpu::open()?;
    let info = &gpu.info;
    let total = pages.len() * PAGE_SIZE;
    report.set("device", info.label());
    report.set("l2_bytes", info.l2_cache_size);
    report.set("multiprocessors", info.multiprocessors);
    report.set(
        "pages",
        format!(
            "{} pages ({} MiB) from {} in {} rotation sets of {} MiB",
            pages.len(),
            total >> 20,
            args.pages,
            args.sets,
            (total / args.sets) >> 20
        ),
    );
    report.set(
        "runs",
        format!(
            "device-resident: {} warm-up + {} timed launches per figure, rotating sets; host-to-host: \
             {} timed whole calls after a warm-up",
            args.runs.warmup, args.runs.timed, args.host_runs
        ),
    );
    if (total as u64) < 4 * info.l2_cache_size {
        report.skipped.push(format!(
            "note: {} MiB of pages is under 4x the L2 ({} MiB): device-resident figures may be cache figures",
            total >> 20,
            info.l2_cache_size >> 20
        ));
    }
    let sets = Sets::upload(&gpu, &pages, args.sets)?;
    if on("ours") {
        section(&mut report, "warpforge kernels", |r| {
            ours::run(&gpu, &pages, &sets, args.runs, r)
        });
        write_json(&report, args.json.as_deref());
    }
    if let (true, Some(lib)) = (on("nvcomp"), &args.nvcomp) {
        section(&mut report, "nvCOMP", |r| {
            nvcomp::run(&gpu, lib, &pages, &sets, args.runs, r)
        });
        write_json(&report, args.json.as_deref());
    }
    if on("pcie") {
        section(&mut report, "pinned copies", |r| pcie(&gpu, r));
    }
    drop(sets);
    gpu.sync()?;
    if on("host") {
        section(&mut report, "CUDA batch API", |r| {
            host::cuda(&pages, args.host_runs, r)
        });
        write_json(&report, args.json.as_deref());
    }
    if on("latency") {
        section(&mut report, "64-page latency", |r| {
            extra::latency(&pages, args.latency_calls, r)
        });
        write_json(&report, args.json.as_deref());
    }
    if on("cli") {
        section(&mut report, "CLI pipeline", |r| {
            cli::run(
                &pages,
                args.cli_mib,
                args.host_runs,
                &[Backend::Cuda, Backend::Cpu],
                r,
            )
        });
        write_json(&report, args.json.as_deref());
    }
    if on("fused") {
        section(&mut report, "device functions (fused kernels)", |r| {
            extra::fused(&pages, args.fused_pages, args.runs.timed.min(10), r)
        });
        write_json(&report, args.json.as_deref());
    }
    if on("cpu") {
        section(&mut report, "lz4_flex", |r| {
            host::lz4_flex(&pages, args.host_runs, r)
        });
        write_json(&report, args.json.as_deref());
    }
    if on("webgpu") {
        section(&mut report, "WebGPU batch API", |r| {
            host::webgpu(&pages, args.host_runs, r)
        });
    }
    write_json(&report, args.json.as_deref());
    print!("{}", report.text());
    Ok(if report.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("gpu_kernel_bench: {e}");
            return ExitCode::from(2);
        }
    };
    match run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("gpu_kernel_bench: {e:#}");
            ExitCode::FAILURE
        }
    }
}
