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

use serde::Deserialize;
use warpforge_sim::ptx::{self, PtxArg, PtxError, PtxKernel, PtxLaunch};
use warpforge_sim::{BufferArg, SimOptions};

/// Entries that passed when the corpus was last changed (raise it as the simulator learns more).
const PASSED_FLOOR: usize = 252;
/// Entries in the corpus (the goal is 300; see the corpus README for what is left).
const ENTRIES_FLOOR: usize = 254;
/// Warp-instructions a block may execute: every entry is small (a block that runs longer is stuck,
/// and is reported as faulted, not waited for).
const STEP_LIMIT: u64 = 250_000;

#[derive(Deserialize)]
struct Entry {
    id: String,
    ptx: String,
    compiler: String,
    arch: String,
    heldout: bool,
    entry: String,
    grid: [u32; 3],
    block: [u32; 3],
    dynamic_shared: u32,
    params: Vec<Param>,
}

#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Param {
    Scalar {
        #[serde(rename = "type")]
        ty: String,
        value: serde_json::Number,
    },
    Buffer {
        name: String,
        #[serde(rename = "type")]
        ty: String,
        len: usize,
        init: Init,
        output: bool,
        #[serde(default)]
        writable: bool,
        expected: Option<String>,
        compare: Option<Compare>,
    },
}

/// How a buffer is filled (see `corpus/tools/corpus.py`, which mirrors this).
#[derive(Deserialize)]
#[serde(untagged)]
enum Init {
    Zeros {
        #[allow(dead_code)]
        zeros: bool,
    },
    Fill {
        fill: f64,
    },
    Iota {
        iota: f64,
        step: f64,
    },
    File {
        file: String,
    },
    Random {
        splitmix64: u64,
        dist: String,
        #[serde(default)]
        lo: f64,
        #[serde(default)]
        hi: f64,
    },
}

/// How an output is compared: `exact` (bytes), or `float` (see [`mismatch`]); elements listed in
/// `ignore` are not compared (their value depends on the order of atomics).
#[derive(Deserialize, Default)]
struct Compare {
    mode: String,
    #[serde(default, rename = "abs")]
    abs_tol: f64,
    #[serde(default)]
    rel: f64,
    #[serde(default)]
    ulp: u64,
    #[serde(default)]
    ignore: Vec<usize>,
}

/// A splitmix64 stream.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn width(ty: &str) -> usize {
    match ty {
        "u8" | "i8" => 1,
        "u16" | "i16" | "f16" => 2,
        "u32" | "i32" | "f32" => 4,
        "u64" | "i64" | "f64" => 8,
        _ => panic!("unknown element type `{ty}`"),
    }
}

/// `v` as one element of type `ty`, little-endian (integers wrap like numpy's `astype`; floats
/// round to nearest).
fn element(ty: &str, v: f64, int: Option<i128>) -> Vec<u8> {
    let i = int.unwrap_or(v as i128);
    match ty {
        "f32" => (v as f32).to_le_bytes().to_vec(),
        "f64" => v.to_le_bytes().to_vec(),
        "f16" => panic!("f16 buffers are given as files"),
        _ => i.to_le_bytes()[..width(ty)].to_vec(),
    }
}

fn generate(dir: &Path, init: &Init, ty: &str, len: usize) -> Vec<u8> {
    let w = width(ty);
    match init {
        Init::Zeros { .. } => vec![0; len * w],
        Init::Fill { fill } => (0..len).flat_map(|_| element(ty, *fill, None)).collect(),
        Init::Iota { iota, step } => (0..len)
            .flat_map(|i| element(ty, iota + i as f64 * step, None))
            .collect(),
        Init::File { file } => std::fs::read(dir.join(file)).expect("an input file"),
        Init::Random {
            splitmix64,
            dist,
            lo,
            hi,
        } => {
            let mut rng = SplitMix(*splitmix64);
            (0..len)
                .flat_map(|_| {
                    let z = rng.next();
                    match dist.as_str() {
                        "int" => {
                            let k = *lo as i128 + i128::from(z % ((hi - lo) as u64));
                            element(ty, k as f64, Some(k))
                        }
                        "uniform" => {
                            let u = (z >> 11) as f64 / 9_007_199_254_740_992.0;
                            element(ty, lo + (hi - lo) * u, None)
                        }
                        "bits" => z.to_le_bytes()[..w].to_vec(),
                        other => panic!("unknown distribution `{other}`"),
                    }
                })
                .collect()
        }
    }
}

fn scalar_bits(ty: &str, value: &serde_json::Number) -> u64 {
    match ty {
        "f32" => u64::from((value.as_f64().expect("a number") as f32).to_bits()),
        "f64" => value.as_f64().expect("a number").to_bits(),
        _ => {
            let v = value
                .as_i64()
                .map(|v| v as u64)
                .or(value.as_u64())
                .expect("an integer");
            match width(ty) {
                8 => v,
                w => v & ((1u64 << (8 * w)) - 1),
            }
        }
    }
}

/// Where `got` and `want` (elements of `ty`) differ beyond `cmp`: the first such element.
/// `multiset`: the same elements in any order (atomically appended outputs).
fn mismatch(ty: &str, got: &[u8], want: &[u8], cmp: &Compare) -> Option<String> {
    let w = width(ty);
    if cmp.mode == "multiset" {
        let sorted = |b: &[u8]| {
            let mut v: Vec<Vec<u8>> = b.chunks(w).map(<[u8]>::to_vec).collect();
            v.sort_unstable();
            v
        };
        return (sorted(got) != sorted(want))
            .then(|| "not the same elements (in any order) as expected".to_owned());
    }
    for (i, (g, e)) in got.chunks(w).zip(want.chunks(w)).enumerate() {
        if cmp.ignore.contains(&i) {
            continue;
        }
        let ok = match (cmp.mode.as_str(), ty) {
            ("multiset", _) => true, // compared as a whole below
            ("float", "f32" | "f64") => {
                let (gv, ev, gi, ei) = if ty == "f32" {
                    let (g, e) = (f32_of(g), f32_of(e));
                    (
                        f64::from(g),
                        f64::from(e),
                        i128::from(ordered32(g)),
                        i128::from(ordered32(e)),
                    )
                } else {
                    let (g, e) = (f64_of(g), f64_of(e));
                    (g, e, ordered64(g), ordered64(e))
                };
                (gv.is_nan() && ev.is_nan())
                    || gv == ev
                    || (gv - ev).abs() <= cmp.abs_tol + cmp.rel * ev.abs()
                    || gi.abs_diff(ei) <= u128::from(cmp.ulp)
            }
            _ => g == e,
        };
        if !ok {
            let show = |b: &[u8]| match ty {
                "f32" => format!("{}", f32_of(b)),
                "f64" => format!("{}", f64_of(b)),
                _ => format!("{b:02x?}"),
            };
            return Some(format!("element {i}: got {}, want {}", show(g), show(e)));
        }
    }
    None
}

fn f32_of(b: &[u8]) -> f32 {
    f32::from_le_bytes(b.try_into().expect("4 bytes"))
}

fn f64_of(b: &[u8]) -> f64 {
    f64::from_le_bytes(b.try_into().expect("8 bytes"))
}

/// Float bits mapped to integers in the order of the floats (ulp distance = difference).
fn ordered32(x: f32) -> i64 {
    let b = i64::from(x.to_bits() as i32);
    if b < 0 {
        i64::from(i32::MIN) - b
    } else {
        b
    }
}

fn ordered64(x: f64) -> i128 {
    let b = i128::from(x.to_bits() as i64);
    if b < 0 {
        i128::from(i64::MIN) - b
    } else {
        b
    }
}

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
    let mut args = Vec::new();
    let mut data: Vec<(Vec<u8>, bool)> = Vec::new();
    for p in &e.params {
        match p {
            Param::Scalar { ty, value } => args.push(PtxArg::Scalar(scalar_bits(ty, value))),
            Param::Buffer {
                ty,
                len,
                init,
                output,
                writable,
                ..
            } => {
                let bytes = generate(dir, init, ty, *len);
                assert_eq!(bytes.len(), len * width(ty), "{}: buffer size", e.id);
                args.push(PtxArg::Buffer);
                data.push((bytes, *output || *writable));
            }
        }
    }
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
    let outputs = e.params.iter().filter_map(|p| match p {
        Param::Buffer {
            name,
            ty,
            output: true,
            expected,
            compare,
            ..
        } => Some((name, ty, expected, compare)),
        _ => None,
    });
    let written = data.iter().filter(|(_, w)| *w).count();
    assert!(written > 0, "{}: no output buffer", e.id);
    let mut bufs = e
        .params
        .iter()
        .filter(|p| matches!(p, Param::Buffer { .. }))
        .zip(&data);
    for (name, ty, expected, compare) in outputs {
        let (_, (got, _)) = bufs
            .find(|(p, _)| matches!(p, Param::Buffer { name: n, .. } if n == name))
            .expect("the output's buffer");
        let want = std::fs::read(dir.join(expected.as_ref().expect("expected outputs")))
            .expect("an expected-output file");
        let exact = Compare::default();
        let cmp = compare.as_ref().unwrap_or(&exact);
        if let Some(m) = mismatch(ty, got, &want, cmp) {
            return Outcome::Wrong(format!("`{name}` {m}"));
        }
    }
    Outcome::Passed
}

type PtxModuleText = Result<warpforge_ptx::parse::Module, String>;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

/// `not_passing.tsv`: id, outcome, instruction, message (tab-separated; `#` comments).
fn recorded(dir: &Path) -> BTreeMap<String, (String, String)> {
    let text = std::fs::read_to_string(dir.join("not_passing.tsv")).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            assert!(c.len() >= 3, "not_passing.tsv: fewer than 3 columns: {l}");
            (c[0].to_owned(), (c[1].to_owned(), c[2].to_owned()))
        })
        .collect()
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
         sim/tests/corpus_run.rs\n# columns: id  outcome (wrong, refused, faulted, unlaunchable)  \
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
