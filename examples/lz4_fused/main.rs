//! The LZ4 device functions inside someone else's kernel: an XOR-delta page codec
//! (`warpforge::kernels::lz4::fused`, each page XORed with its previous version in shared memory and
//! compressed from there in the same launch; the inverse decodes into shared memory and XORs back),
//! run on any backend beside the batch level-0 kernels on the same pages. Every record is compared
//! with the CPU reference byte for byte and decoded back; every decoded page with the input.
//!
//! ```text
//! cargo run --release --example lz4_fused -- [--backend sim|ptx-sim|webgpu|cuda] [--pages FILE] [--count N] [--runs N]
//! ```
//!
//! `--pages`: a file of whole 4 KiB pages (default: the embedded sample of real pages), the first
//! `--count` (default 256) used; `--runs` timed launches per kernel after one untimed (default 3).
//! Times are the launcher's kernel clock (CUDA events, WebGPU timestamps, or the host clock around a
//! simulator launch): the kernel alone, pages already on the device. The previous versions are
//! synthetic (one byte in 397 changed), so the delta ratio shows the mechanism, not a workload.

mod run;

use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use warpforge::kernels::lz4::PAGE_SIZE;
use warpforge::runtime::{open, Backend};

use run::Page;

struct Args {
    backend: Backend,
    pages: Option<String>,
    count: usize,
    runs: usize,
}

fn parse() -> Result<Args> {
    let mut a = Args {
        backend: Backend::Sim,
        pages: None,
        count: 256,
        runs: 3,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().with_context(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--backend" => a.backend = value.parse().map_err(anyhow::Error::msg)?,
            "--pages" => a.pages = Some(value),
            "--count" => a.count = value.parse().with_context(|| format!("--count {value}"))?,
            "--runs" => a.runs = value.parse().with_context(|| format!("--runs {value}"))?,
            other => bail!("unknown argument {other} (see the example's docs)"),
        }
    }
    if a.count == 0 || a.runs == 0 {
        bail!("--count and --runs must be at least 1");
    }
    Ok(a)
}

fn pages(args: &Args) -> Result<Vec<Page>> {
    let mut pages: Vec<Page> = match &args.pages {
        Some(path) => {
            let bytes = std::fs::read(path).with_context(|| format!("reading {path}"))?;
            if bytes.is_empty() || bytes.len() % PAGE_SIZE != 0 {
                bail!(
                    "{path}: {} bytes is not a whole number of 4 KiB pages",
                    bytes.len()
                );
            }
            bytes
                .chunks_exact(PAGE_SIZE)
                .map(|c| c.try_into().expect("a page"))
                .collect()
        }
        None => warpforge::sample_pages()?,
    };
    pages.truncate(args.count);
    Ok(pages)
}

fn main_result() -> Result<()> {
    let args = parse()?;
    let pages = pages(&args)?;
    let kernels = [
        warpforge::kernels::lz4::fused::xor_delta_compress(),
        warpforge::kernels::lz4::fused::xor_delta_decompress(),
    ];
    let verified: Vec<_> = kernels
        .iter()
        .map(|k| warpforge::ir::verify(k).map_err(|e| anyhow::anyhow!("{e}")))
        .collect::<Result<_>>()?;
    let launcher = open(args.backend, &verified.iter().collect::<Vec<_>>())?;
    println!(
        "{} pages on {} ({}), {} timed launches per kernel",
        pages.len(),
        args.backend.name(),
        launcher.device_name(),
        args.runs
    );
    println!(
        "{:<17} {:<11} {:>7} {:>11} {:>9} {:>7}  clock",
        "kernel", "op", "pages", "median ms", "GB/s", "ratio"
    );
    for f in run::measure(&launcher, &pages, args.runs)? {
        let median = {
            let mut s = f.seconds.clone();
            s.sort_by(f64::total_cmp);
            s[s.len() / 2]
        };
        let ratio = f.ratio.map_or("-".into(), |r| format!("{r:.2}"));
        println!(
            "{:<17} {:<11} {:>7} {:>11.3} {:>9.3} {:>7}  {}",
            f.kernel,
            f.op,
            f.verified,
            median * 1e3,
            f.bytes as f64 / median / 1e9,
            ratio,
            f.clock
        );
    }
    println!("every record equals the CPU reference's and decodes back; every page restored");
    Ok(())
}

fn main() -> ExitCode {
    match main_result() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lz4_fused: {e:#}");
            ExitCode::FAILURE
        }
    }
}
