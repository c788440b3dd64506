//! The PTX simulator's speed on the simulator corpus (`corpus/` at the repository root: 398 launches
//! of PTX that nvcc 13, NVRTC 12.9 and Triton 3.9 wrote), one worker thread, sanitizer on and off:
//! for each entry the simulator passes, warp-instructions per second of `ptx::run` (host clock, the
//! fastest of ten runs: the first run of an entry also allocates what later
//! launches reuse; the PTX is decoded and the inputs generated before the clock starts). Every
//! timed configuration's outputs are compared with the corpus's expected values first. Prints the
//! median and quartiles over the entries and the largest entries by warp-instructions.
//! Run: `cargo bench -p warpforge-sim --bench corpus_speed` (`CORPUS_ONLY=<substring>[,<substring>…]` to filter,
//! `CORPUS_ROWS=1` for every entry's warp-instructions and nanoseconds off and on on stderr,
//! `CORPUS_REPEAT=N` for N runs of each instead of 10, `CORPUS_SANITIZE=off|on` for one
//! configuration only: both to profile).

#[path = "../tests/it/corpus_support/mod.rs"]
mod corpus_support;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use corpus_support::{expected_mismatch, inputs, Entry};
use warpforge_ptx::parse::{parse, Module};
use warpforge_sim::ptx::{self, PtxArg, PtxKernel, PtxLaunch};
use warpforge_sim::{BufferArg, SimOptions};

/// One entry, one configuration, `runs` times: (warp-instructions, fastest run in ns), or why it
/// was skipped.
fn measure(
    dir: &Path,
    e: &Entry,
    kernel: &PtxKernel,
    sanitize: bool,
    runs: usize,
) -> Result<(u64, u64), String> {
    let (inputs, params) = inputs(dir, e);
    let args: Vec<PtxArg> = params
        .iter()
        .map(|p| p.map_or(PtxArg::Buffer, PtxArg::Scalar))
        .collect();
    let launch = PtxLaunch {
        grid: e.grid,
        block: e.block,
        dynamic_shared: e.dynamic_shared,
    };
    let options = SimOptions {
        sanitize,
        threads: 1,
        step_limit: 250_000,
        ..SimOptions::default()
    };
    let mut best = u64::MAX;
    let mut count = 0;
    for run in 0..runs {
        let mut data = inputs.clone();
        let mut buffers: Vec<BufferArg<'_>> = data
            .iter_mut()
            .map(|(b, w)| {
                if *w {
                    BufferArg::ReadWrite(b)
                } else {
                    BufferArg::ReadOnly(b)
                }
            })
            .collect();
        let report = ptx::run(kernel, &launch, &args, &mut buffers, &options)
            .map_err(|err| err.to_string())?;
        drop(buffers);
        if !report.is_clean() {
            return Err("findings".into());
        }
        if run == 0 {
            if let Some(m) = expected_mismatch(dir, e, &data) {
                return Err(m);
            }
        }
        best = best.min(report.elapsed_ns.max(1));
        count = report.counters.warp_instructions();
    }
    Ok((count, best))
}

/// Runs per entry and configuration (`CORPUS_REPEAT`, 10 by default).
fn repeats() -> usize {
    std::env::var("CORPUS_REPEAT")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(10usize)
        .max(1)
}

fn quartiles(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    (at(0.25), at(0.5), at(0.75))
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is taken from the command line.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("launch"))
        .expect("corpus/launch")
        .map(|f| f.expect("a directory entry").path())
        .collect();
    files.sort();
    let only = std::env::var("CORPUS_ONLY").ok();
    let runs = repeats();
    // `CORPUS_SANITIZE=off` or `on` times one configuration only (to profile it); both columns
    // then hold it.
    let timed = match std::env::var("CORPUS_SANITIZE").as_deref() {
        Ok("off") => Some(false),
        Ok("on") => Some(true),
        _ => None,
    };
    // Builds share PTX files: each parsed once.
    let mut modules: HashMap<String, Option<Module>> = HashMap::new();
    let mut rows = Vec::new();
    let mut skipped = 0;
    for f in &files {
        // The file is named for the entry's id.
        let name = f.file_name().map(|n| n.to_string_lossy().into_owned());
        if only.as_ref().is_some_and(|o| {
            !name
                .as_ref()
                .is_some_and(|n| o.split(',').any(|o| n.contains(o)))
        }) {
            continue;
        }
        let text = std::fs::read_to_string(f).expect("a launch file");
        let e: Entry = serde_json::from_str(&text).expect("a launch entry");
        let module = modules.entry(e.ptx.clone()).or_insert_with(|| {
            let text = std::fs::read_to_string(dir.join(&e.ptx)).expect("a PTX file");
            parse(&text).ok()
        });
        let Some(Ok(kernel)) = module.as_ref().map(|m| PtxKernel::from_module(m, &e.entry)) else {
            skipped += 1;
            continue;
        };
        let (off, on) = match timed {
            Some(sanitize) => {
                let m = measure(&dir, &e, &kernel, sanitize, runs);
                (m.clone(), m)
            }
            None => (
                measure(&dir, &e, &kernel, false, runs),
                measure(&dir, &e, &kernel, true, runs),
            ),
        };
        match (off, on) {
            (Ok((n, off)), Ok((_, on))) => rows.push((e.id.clone(), n, off, on)),
            _ => skipped += 1,
        }
    }
    let rate = |n: u64, ns: u64| n as f64 * 1e3 / ns as f64;
    let off = quartiles(rows.iter().map(|r| rate(r.1, r.2)).collect());
    let on = quartiles(rows.iter().map(|r| rate(r.1, r.3)).collect());
    println!(
        "simulator corpus, {} entries ({} skipped: not passing), 1 worker thread, host clock, fastest of {}",
        rows.len(),
        skipped,
        runs
    );
    println!("M warp-instructions/s      25%   median     75%");
    println!(
        "sanitizer off          {:>7.2} {:>8.2} {:>7.2}",
        off.0, off.1, off.2
    );
    println!(
        "sanitizer on           {:>7.2} {:>8.2} {:>7.2}",
        on.0, on.1, on.2
    );
    rows.sort_by_key(|r| std::cmp::Reverse(r.1));
    if std::env::var_os("CORPUS_ROWS").is_some() {
        for (id, n, off, on) in &rows {
            eprintln!("{id}\t{n}\t{off}\t{on}");
        }
    }
    println!("largest entries: warp-instructions, M/s off, M/s on");
    for (id, n, off, on) in rows.iter().take(8) {
        println!("  {id}: {n}, {:.2}, {:.2}", rate(*n, *off), rate(*n, *on));
    }
}
