//! Every figure of the run with its labels (backend, scope, clock, fallbacks, verified pages), the text
//! table and the JSON file.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

/// Where the pages were and where the results went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Pages already in GPU memory, results left there: the kernel alone.
    DeviceResident,
    /// Pages in host memory in, results in host memory out: the whole call.
    HostToHost,
    /// A copy between pinned host memory and the device.
    Transfer,
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::DeviceResident => "device-resident",
            Scope::HostToHost => "host-to-host",
            Scope::Transfer => "transfer",
        }
    }
}

/// One measured figure.
#[derive(Clone, Debug)]
pub struct Figure {
    /// What ran: `warpforge CUDA L2`, `nvCOMP 6.0 LZ4`, `lz4_flex (16 threads)`, ...
    pub backend: String,
    /// `compress`, `compact`, `decompress`, `H2D`, `D2H`.
    pub op: String,
    pub scope: Scope,
    /// `CUDA events`, `host clock`, `WebGPU timestamp queries`.
    pub clock: String,
    /// Bytes the rate counts per run: uncompressed page bytes (the LZ4 pages only for a decompress
    /// kernel, which never sees the others), or the bytes copied.
    pub bytes: u64,
    /// Seconds of each timed run.
    pub seconds: Vec<f64>,
    /// Uncompressed bytes ÷ compressed payload bytes (LZ4 blocks, raw pages, 8-byte patterns), where
    /// the figure compresses.
    pub ratio: Option<f64>,
    /// Pages that fell back to the CPU (`None`: no fallback path exists for this figure).
    pub fallback_pages: Option<u64>,
    /// Pages whose output was checked against the input pages (0 for a transfer).
    pub verified_pages: u64,
    /// Anything else a reader needs.
    pub note: String,
}

pub fn median(seconds: &[f64]) -> f64 {
    let mut v = seconds.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return f64::NAN;
    }
    v[v.len() / 2]
}

impl Figure {
    /// A host-to-host figure on the host clock, with no ratio, fallback path, verified pages or note
    /// until the caller sets them.
    pub fn host_to_host(backend: &str, op: &str, bytes: u64, seconds: Vec<f64>) -> Figure {
        Figure {
            backend: backend.into(),
            op: op.into(),
            scope: Scope::HostToHost,
            clock: "host clock".into(),
            bytes,
            seconds,
            ratio: None,
            fallback_pages: None,
            verified_pages: 0,
            note: String::new(),
        }
    }

    /// GB/s (10⁹ B/s) at the median run.
    pub fn gbps(&self) -> f64 {
        self.bytes as f64 / median(&self.seconds) / 1e9
    }

    /// GB/s at the slowest and the fastest run.
    fn range(&self) -> (f64, f64) {
        let max = self.seconds.iter().copied().fold(f64::MIN, f64::max);
        let min = self.seconds.iter().copied().fold(f64::MAX, f64::min);
        (self.bytes as f64 / max / 1e9, self.bytes as f64 / min / 1e9)
    }

    fn json(&self) -> FigureJson<'_> {
        let (lo, hi) = self.range();
        FigureJson {
            backend: &self.backend,
            bytes_per_run: self.bytes,
            clock: &self.clock,
            cpu_fallback_pages: self.fallback_pages,
            gbps_fastest_run: hi,
            gbps_median: self.gbps(),
            gbps_slowest_run: lo,
            median_ms: median(&self.seconds) * 1e3,
            note: &self.note,
            op: &self.op,
            ratio: self.ratio,
            runs: self.seconds.len(),
            scope: self.scope.name(),
            verified_pages: self.verified_pages,
        }
    }
}

/// One figure in perf.json. The keys of perf.json's objects are in alphabetical order, as the file
/// has had them since it was first written.
#[derive(Serialize)]
struct FigureJson<'a> {
    backend: &'a str,
    bytes_per_run: u64,
    clock: &'a str,
    cpu_fallback_pages: Option<u64>,
    gbps_fastest_run: f64,
    gbps_median: f64,
    gbps_slowest_run: f64,
    median_ms: f64,
    note: &'a str,
    op: &'a str,
    ratio: Option<f64>,
    runs: usize,
    scope: &'static str,
    verified_pages: u64,
}

/// perf.json.
#[derive(Serialize)]
struct PerfJson<'a> {
    /// The context by key (a key set twice: the last value).
    context: BTreeMap<&'static str, &'a ContextValue>,
    failures: &'a [String],
    figures: Vec<FigureJson<'a>>,
    skipped: &'a [String],
}

/// A value of the run's context: a sentence or a count.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum ContextValue {
    Text(String),
    Count(u64),
}

impl From<String> for ContextValue {
    fn from(s: String) -> Self {
        ContextValue::Text(s)
    }
}

impl From<u64> for ContextValue {
    fn from(n: u64) -> Self {
        ContextValue::Count(n)
    }
}

impl From<u32> for ContextValue {
    fn from(n: u32) -> Self {
        ContextValue::Count(n.into())
    }
}

impl fmt::Display for ContextValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ContextValue::Text(s) => f.write_str(s),
            ContextValue::Count(n) => write!(f, "{n}"),
        }
    }
}

/// Everything the run produced.
#[derive(Default)]
pub struct Report {
    /// Device, pages, rotation, what ceilings to read the figures against.
    pub context: Vec<(&'static str, ContextValue)>,
    pub figures: Vec<Figure>,
    /// Sections not measured here, and why.
    pub skipped: Vec<String>,
    /// Sections that failed (a failed check included); any makes the exit status 1.
    pub failures: Vec<String>,
}

impl Report {
    pub fn set(&mut self, key: &'static str, value: impl Into<ContextValue>) {
        self.context.push((key, value.into()));
    }

    pub fn json(&self) -> String {
        let doc = PerfJson {
            context: self.context.iter().map(|(k, v)| (*k, v)).collect(),
            failures: &self.failures,
            figures: self.figures.iter().map(Figure::json).collect(),
            skipped: &self.skipped,
        };
        serde_json::to_string_pretty(&doc).expect("JSON of plain values") + "\n"
    }

    pub fn text(&self) -> String {
        let mut s = String::from("== gpu_kernel_bench summary\n");
        for (k, v) in &self.context {
            s += &format!("{k}: {v}\n");
        }
        s += &format!(
            "{:<30} {:<10} {:<15} {:<13} {:>9} {:>17} {:>5} {:>7} {:>9} {:>9}\n",
            "backend",
            "op",
            "scope",
            "clock",
            "GB/s",
            "(slowest-fastest)",
            "runs",
            "ratio",
            "fallback",
            "verified"
        );
        for f in &self.figures {
            let (lo, hi) = f.range();
            s += &format!(
                "{:<30} {:<10} {:<15} {:<13} {:>9.2} {:>17} {:>5} {:>7} {:>9} {:>9}\n",
                f.backend,
                f.op,
                f.scope.name(),
                f.clock,
                f.gbps(),
                format!("({lo:.2}-{hi:.2})"),
                f.seconds.len(),
                f.ratio.map_or("-".into(), |r| format!("{r:.3}")),
                f.fallback_pages.map_or("n/a".into(), |p| p.to_string()),
                f.verified_pages
            );
            if !f.note.is_empty() {
                s += &format!("    {}\n", f.note);
            }
        }
        s += "GB/s: 10^9 bytes of uncompressed pages per second at the median run (decompress kernels: \
              the LZ4 pages they decode; transfers: bytes copied). ratio: page bytes / compressed \
              payload (LZ4 blocks, raw pages, 8-byte patterns; nvCOMP: its chunks). fallback: pages \
              the CPU redid (n/a: no fallback path). verified: pages checked against the input.\n";
        for why in &self.skipped {
            s += &format!("SKIPPED: {why}\n");
        }
        for why in &self.failures {
            s += &format!("FAILED: {why}\n");
        }
        s += if self.failures.is_empty() {
            "gpu_kernel_bench: every measured output verified\n"
        } else {
            "gpu_kernel_bench: FAILED (see above)\n"
        };
        s
    }
}
