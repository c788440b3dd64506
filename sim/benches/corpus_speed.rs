//! The PTX simulator's speed on the simulator corpus (`corpus/` at the repository root: 398 launches
//! of PTX that nvcc 13, NVRTC 12.9 and Triton 3.9 wrote), one worker thread, sanitizer on and off:
//! for each entry the simulator passes, warp-instructions per second of `ptx::run` (host clock; the
//! PTX is decoded and the inputs generated before the clock starts). The corpus is run in rounds,
//! every entry once per round in each configuration, and each entry's fastest run counts: the
//! rounds spread each entry's runs over the whole benchmark, so that a minute in which this shared
//! machine runs slow (its speed moves by half between minutes) does not decide an entry's figure,
//! and the first run of an entry (which also allocates what later launches reuse) does not either.
//! Each round's own median is printed too: the spread is the machine's, not the simulator's.
//! The first round compares every entry's outputs with the corpus's expected values. Prints the
//! median and quartiles over the entries and the largest entries by warp-instructions.
//! Run: `cargo bench -p warpforge-sim --bench corpus_speed` (`CORPUS_ONLY=<substring>[,<substring>…]`
//! to filter, `CORPUS_ROWS=1` for every entry's warp-instructions and nanoseconds off and on on
//! stderr, `CORPUS_REPEAT=N` for N rounds instead of 10, `CORPUS_SANITIZE=off|on` for one
//! configuration only: both to profile).

#[path = "../tests/it/corpus_support/mod.rs"]
mod corpus_support;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use corpus_support::{expected_mismatch, inputs, Buffers, Entry};
use warpforge_ptx::parse::{parse, Module};
use warpforge_sim::ptx::{self, PtxArg, PtxKernel, PtxLaunch};
use warpforge_sim::{BufferArg, SimOptions};

/// One entry ready to run: its decoded kernel, inputs and launch.
struct Prepared {
    entry: Entry,
    kernel: PtxKernel,
    inputs: Buffers,
    args: Vec<PtxArg>,
    launch: PtxLaunch,
}

/// One run of `p` with the sanitizer on or off: (warp-instructions, ns of `ptx::run`), or why it
/// does not count (an error, a finding, or — when `check` — outputs that differ from the corpus's).
fn run_once(dir: &Path, p: &Prepared, sanitize: bool, check: bool) -> Result<(u64, u64), String> {
    let options = SimOptions {
        sanitize,
        threads: 1,
        step_limit: 250_000,
        ..SimOptions::default()
    };
    let mut data = p.inputs.clone();
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
    let report = ptx::run(&p.kernel, &p.launch, &p.args, &mut buffers, &options)
        .map_err(|err| err.to_string())?;
    drop(buffers);
    if !report.is_clean() {
        return Err("findings".into());
    }
    if check {
        if let Some(m) = expected_mismatch(dir, &p.entry, &data) {
            return Err(m);
        }
    }
    Ok((
        report.counters.warp_instructions(),
        report.elapsed_ns.max(1),
    ))
}

/// Rounds over the corpus (`CORPUS_REPEAT`, 10 by default).
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
    let mut prepared = Vec::new();
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
        let entry: Entry = serde_json::from_str(&text).expect("a launch entry");
        let module = modules.entry(entry.ptx.clone()).or_insert_with(|| {
            let text = std::fs::read_to_string(dir.join(&entry.ptx)).expect("a PTX file");
            parse(&text).ok()
        });
        let Some(Ok(kernel)) = module
            .as_ref()
            .map(|m| PtxKernel::from_module(m, &entry.entry))
        else {
            skipped += 1;
            continue;
        };
        let (inputs, params) = inputs(&dir, &entry);
        let args = params
            .iter()
            .map(|p| p.map_or(PtxArg::Buffer, PtxArg::Scalar))
            .collect();
        let launch = PtxLaunch {
            grid: entry.grid,
            block: entry.block,
            dynamic_shared: entry.dynamic_shared,
        };
        prepared.push(Prepared {
            entry,
            kernel,
            inputs,
            args,
            launch,
        });
    }
    let configs: Vec<bool> = match timed {
        Some(sanitize) => vec![sanitize],
        None => vec![false, true],
    };
    // Per entry and configuration: warp-instructions and the fastest run so far (None: it failed).
    let mut best: Vec<Vec<Option<(u64, u64)>>> = vec![vec![Some((0, u64::MAX)); 2]; prepared.len()];
    // Each round's median rate per configuration, to show how much this machine's speed moved.
    let mut round_medians: Vec<[f64; 2]> = Vec::new();
    let rate = |n: u64, ns: u64| n as f64 * 1e3 / ns as f64;
    for round in 0..runs {
        let mut rates = [Vec::new(), Vec::new()];
        for (p, slots) in prepared.iter().zip(best.iter_mut()) {
            for &sanitize in &configs {
                let slot = &mut slots[usize::from(sanitize)];
                let Some((_, fastest)) = *slot else {
                    continue;
                };
                *slot = match run_once(&dir, p, sanitize, round == 0) {
                    Ok((n, ns)) => {
                        rates[usize::from(sanitize)].push(rate(n, ns));
                        Some((n, fastest.min(ns)))
                    }
                    Err(_) => None,
                };
            }
        }
        round_medians.push(rates.map(|r| if r.is_empty() { 0.0 } else { quartiles(r).1 }));
    }
    let mut rows = Vec::new();
    for (p, slots) in prepared.iter().zip(&best) {
        let pick = |s: bool| slots[usize::from(s)];
        let (off, on) = match timed {
            Some(s) => (pick(s), pick(s)),
            None => (pick(false), pick(true)),
        };
        match (off, on) {
            (Some((n, off)), Some((_, on))) => rows.push((p.entry.id.clone(), n, off, on)),
            _ => skipped += 1,
        }
    }
    let off = quartiles(rows.iter().map(|r| rate(r.1, r.2)).collect());
    let on = quartiles(rows.iter().map(|r| rate(r.1, r.3)).collect());
    println!(
        "simulator corpus, {} entries ({} skipped: not passing), 1 worker thread, host clock, \
         fastest of {} rounds",
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
    // How far this machine's speed moved between rounds: each round's own median.
    for (k, label) in [(0, "off"), (1, "on")] {
        let medians: Vec<f64> = round_medians.iter().map(|m| m[k]).collect();
        let (lo, hi) = medians
            .iter()
            .fold((f64::MAX, 0f64), |(lo, hi), &m| (lo.min(m), hi.max(m)));
        if hi > 0.0 {
            println!("one round's median, sanitizer {label}: {lo:.2} to {hi:.2}");
        }
    }
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
