//! The simulator corpus (`corpus/` at the repository root: PTX that nvcc 13, NVRTC 12.9 and
//! Triton 3.9 compiled from kernels written for warpforge in the style of everyday CUDA and Triton
//! code) on the PTX simulator, sanitizer on. Every entry (kernel, compiler, arch) has a
//! launch file, `launch/<id>.json`: the entry point, grid, block, dynamic shared memory and every
//! parameter (a scalar, or a buffer filled by a seeded generator or from a file); the outputs are
//! compared with expected values that numpy computed when the corpus was generated, independently
//! of the simulator: integers exactly, floats within the bound the file states.
//!
//! Prints a report — passed, wrong, refused (by instruction family), faulted, could not launch; the
//! held-out part separately — and enforces: at least [`PASSED_FLOOR`] passed; and every entry that
//! does not pass is listed, with its outcome (wrong, refused, faulted, unlaunchable) and
//! instruction or output, in `corpus/not_passing.tsv` — a new wrong output, refusal or fault and a
//! newly passing entry both fail, with the file to copy over the old one.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::corpus_support;

use corpus_support::{expected_mismatch, inputs, recorded, Entry};
use warpforge_sim::ptx::{self, PtxArg, PtxError, PtxKernel, PtxLaunch};
use warpforge_sim::{BufferArg, SimOptions};

/// Entries that passed when the corpus was last changed (raise it as the simulator learns more).
const PASSED_FLOOR: usize = 394;
/// Entries in the corpus (the goal is 300; see the corpus README for what is left).
const ENTRIES_FLOOR: usize = 398;
/// Warp-instructions a block may execute: every entry is small (a block that runs longer is stuck,
/// and is reported as faulted, not waited for).
const STEP_LIMIT: u64 = 250_000;

/// What happened to one entry.
enum Outcome {
    Passed,
    Wrong(String),
    /// The instruction (its opcode) and the simulator's message.
    Refused(String, String),
    Faulted(String),
    Unlaunchable(String),
}

impl Outcome {
    fn kind(&self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Wrong(_) => "wrong",
            Outcome::Refused(..) => "refused",
            Outcome::Faulted(_) => "faulted",
            Outcome::Unlaunchable(_) => "unlaunchable",
        }
    }
}

fn run_entry(dir: &Path, e: &Entry, modules: &mut HashMap<String, PtxModuleText>) -> Outcome {
    let module = modules.entry(e.ptx.clone()).or_insert_with(|| {
        let text = std::fs::read_to_string(dir.join(&e.ptx)).expect("a PTX file");
        warpforge_ptx::parse::parse(&text).map_err(|err| err.to_string())
    });
    let module = match module {
        Ok(m) => m,
        Err(err) => return Outcome::Refused("(parse)".into(), err.clone()),
    };
    let kernel = match PtxKernel::from_module(module, &e.entry) {
        Ok(k) => k,
        Err(PtxError::Unsupported { text, message, .. }) => {
            let opcode = text.split_whitespace().next().unwrap_or("?").to_owned();
            return Outcome::Refused(opcode, message);
        }
        Err(err) => return Outcome::Unlaunchable(err.to_string()),
    };
    let (mut data, params) = inputs(dir, e);
    let args: Vec<PtxArg> = params
        .iter()
        .map(|p| p.map_or(PtxArg::Buffer, PtxArg::Scalar))
        .collect();
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
    let launch = PtxLaunch {
        grid: e.grid,
        block: e.block,
        dynamic_shared: e.dynamic_shared,
    };
    let options = SimOptions {
        step_limit: STEP_LIMIT,
        ..SimOptions::default()
    };
    let report = match ptx::run(&kernel, &launch, &args, &mut buffers, &options) {
        Ok(r) => r,
        Err(err) => return Outcome::Unlaunchable(err.to_string()),
    };
    drop(buffers);
    if !report.is_clean() {
        let first = report.errors().next().map_or_else(
            || format!("{} blocks stopped", report.stopped_blocks),
            |f| f.to_string(),
        );
        return Outcome::Faulted(first);
    }
    let written = data.iter().filter(|(_, w)| *w).count();
    assert!(written > 0, "{}: no output buffer", e.id);
    if let Some(m) = expected_mismatch(dir, e, &data) {
        return Outcome::Wrong(m);
    }
    Outcome::Passed
}

type PtxModuleText = Result<warpforge_ptx::parse::Module, String>;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

#[test]
fn corpus_entries_run_on_the_simulator() {
    let dir = corpus_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("launch"))
        .expect("corpus/launch")
        .map(|f| f.expect("a directory entry").path())
        .collect();
    files.sort();
    let only = std::env::var("CORPUS_ONLY").ok();
    let mut modules = HashMap::new();
    let mut results: Vec<(Entry, Outcome)> = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("a launch file");
        let e: Entry =
            serde_json::from_str(&text).unwrap_or_else(|err| panic!("{}: {err}", f.display()));
        if only.as_ref().is_some_and(|o| !e.id.contains(o.as_str())) {
            continue;
        }
        let start = std::time::Instant::now();
        let outcome = run_entry(&dir, &e, &mut modules);
        if std::env::var_os("CORPUS_TIMES").is_some() {
            eprintln!(
                "{:>8.3}s {} {}",
                start.elapsed().as_secs_f64(),
                outcome.kind(),
                e.id
            );
        }
        results.push((e, outcome));
    }
    let report = report(&results);
    eprintln!("{report}");
    if only.is_some() {
        return;
    }
    assert!(
        results.len() >= ENTRIES_FLOOR,
        "{} entries, fewer than {ENTRIES_FLOOR}: launch files missing?",
        results.len()
    );
    let passed = results
        .iter()
        .filter(|(_, o)| matches!(o, Outcome::Passed))
        .count();
    assert!(
        passed >= PASSED_FLOOR,
        "{passed} passed, fewer than the floor {PASSED_FLOOR}"
    );
    check_not_passing(&dir, &results);
}

/// Every entry that does not pass is in `not_passing.tsv` with the same outcome and instruction,
/// and every entry there still fails that way.
fn check_not_passing(dir: &Path, results: &[(Entry, Outcome)]) {
    let want = recorded(dir);
    let mut now = BTreeMap::new();
    let mut file = String::from(
        "# corpus entries that do not pass on the PTX simulator today, checked by \
         sim/tests/it/corpus_run.rs\n# columns: id  outcome (wrong, refused, faulted, unlaunchable)  \
         what (the opcode when refused, the output when wrong)  message\n",
    );
    for (e, o) in results {
        let (what, msg) = match o {
            Outcome::Passed => continue,
            Outcome::Wrong(m) => (m.split('`').nth(1).unwrap_or("-").to_owned(), m.clone()),
            Outcome::Refused(op, m) => (op.clone(), m.clone()),
            Outcome::Faulted(m) | Outcome::Unlaunchable(m) => ("-".to_owned(), m.clone()),
        };
        let msg = msg.replace(['\t', '\n'], " ");
        let _ = writeln!(file, "{}\t{}\t{what}\t{msg}", e.id, o.kind());
        now.insert(e.id.clone(), (o.kind().to_owned(), what));
    }
    let mut diffs = Vec::new();
    for (id, got) in &now {
        match want.get(id) {
            None => diffs.push(format!("{id}: now {} `{}` (not listed)", got.0, got.1)),
            Some(w) if w != got => diffs.push(format!(
                "{id}: now {} `{}`, listed as {} `{}`",
                got.0, got.1, w.0, w.1
            )),
            Some(_) => {}
        }
    }
    for (id, w) in &want {
        if !now.contains_key(id) {
            diffs.push(format!("{id}: listed as {} `{}`, now passes", w.0, w.1));
        }
    }
    if !diffs.is_empty() {
        let new = Path::new(env!("CARGO_TARGET_TMPDIR")).join("not_passing.tsv");
        std::fs::write(&new, &file).expect("write the new list");
        panic!(
            "{} entries differ from corpus/not_passing.tsv:\n  {}\nIf that is intended \
             (the simulator learnt or lost an instruction), update the list:\n  cp {} {}",
            diffs.len(),
            diffs.join("\n  "),
            new.display(),
            dir.join("not_passing.tsv").display()
        );
    }
}

fn report(results: &[(Entry, Outcome)]) -> String {
    let mut s = String::from("\ncorpus on the PTX simulator\n");
    for (part, held) in [("tuned", false), ("held-out", true)] {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        let part_results = results.iter().filter(|(e, _)| e.heldout == held);
        let mut n = 0;
        for (_, o) in part_results {
            n += 1;
            *counts.entry(o.kind()).or_default() += 1;
        }
        let _ = writeln!(s, "  {part}: {n} entries {counts:?}");
    }
    let mut builds: BTreeMap<String, BTreeMap<&str, usize>> = BTreeMap::new();
    for (e, o) in results {
        *builds
            .entry(format!("{}.{}", e.compiler, e.arch))
            .or_default()
            .entry(o.kind())
            .or_default() += 1;
    }
    for (b, c) in &builds {
        let _ = writeln!(s, "  {b}: {c:?}");
    }
    let mut families: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for (_, o) in results {
        if let Outcome::Refused(op, m) = o {
            let fam = op.split('.').next().unwrap_or(op).to_owned();
            *families
                .entry(fam)
                .or_default()
                .entry(format!("`{op}`: {m}"))
                .or_default() += 1;
        }
    }
    let _ = writeln!(s, "  refused, by instruction family:");
    for (fam, msgs) in &families {
        let total: usize = msgs.values().sum();
        let _ = writeln!(s, "    {fam}: {total}");
        for (m, k) in msgs {
            let _ = writeln!(s, "      {k} × {m}");
        }
    }
    for (e, o) in results {
        match o {
            Outcome::Wrong(m) => {
                let _ = writeln!(s, "  WRONG {}: {m}", e.id);
            }
            Outcome::Faulted(m) => {
                let _ = writeln!(s, "  faulted {}: {m}", e.id);
            }
            Outcome::Unlaunchable(m) => {
                let _ = writeln!(s, "  could not launch {}: {m}", e.id);
            }
            _ => {}
        }
    }
    s
}
