//! `warpforge bench`: every codec on the same pages in one run, side by side, against single-thread
//! lz4_flex, with liblz4's ratio for reference. The simulators (`sim`, and `ptx-sim`: the CUDA host pipeline
//! on the PTX simulator; sanitizer off) run on the first
//! `sim_pages` pages only (it is slow); every row gives pages/s, so the rates compare.

use std::time::Instant;

use serde::Serialize;

use warpforge::codec::{store_page, CpuCodec, KernelCodec, Page, PageCodec, ReferenceCodec};
use warpforge::kernels::lz4::Lz4Level;
use warpforge::runtime::sim::SimOptions;
use warpforge::PAGE_SIZE;

/// One codec's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// What ran.
    pub name: String,
    /// Median compression throughput over the runs, GB/s of pages.
    pub compress_gbps: f64,
    /// Median decompression throughput, GB/s of pages.
    pub decompress_gbps: f64,
    /// Pages ÷ compressed bytes (records as the archive stores them, without header and footer).
    pub ratio: f64,
    /// Runs measured.
    pub runs: usize,
    /// Pages each run processed (the sim row measures a prefix of the corpus).
    pub pages: usize,
}

impl Row {
    /// Compression rate in pages per second.
    pub fn compress_pages_per_s(&self) -> f64 {
        self.compress_gbps * 1e9 / PAGE_SIZE as f64
    }

    /// Decompression rate in pages per second.
    pub fn decompress_pages_per_s(&self) -> f64 {
        self.decompress_gbps * 1e9 / PAGE_SIZE as f64
    }
}

/// The whole table.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// Pages measured.
    pub pages: usize,
    /// Cores available.
    pub cores: usize,
    /// One row per codec, the baseline first.
    pub rows: Vec<Row>,
    /// liblz4's default block compression, page by page, stored as warpforge stores pages
    /// (same-filled pages as their pattern, incompressible ones raw): ratio.
    pub liblz4_ratio: f64,
    /// The same with LZ4HC at level 9 (`LZ4_compress_HC`): the CPU's high-ratio LZ4.
    pub liblz4_hc9_ratio: f64,
    /// Why a backend was not measured.
    pub skipped: Vec<String>,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Times `f` at least `min_runs` times and until `budget_s` seconds have passed (at most 15 runs).
fn time_runs(min_runs: usize, budget_s: f64, mut f: impl FnMut()) -> Vec<f64> {
    let start = Instant::now();
    let mut times = Vec::new();
    while times.len() < min_runs || (start.elapsed().as_secs_f64() < budget_s && times.len() < 15) {
        let t = Instant::now();
        f();
        times.push(t.elapsed().as_secs_f64());
    }
    times
}

fn gbps(bytes: usize, seconds: f64) -> f64 {
    bytes as f64 / seconds / 1e9
}

fn measure(
    codec: &mut dyn PageCodec,
    name: &str,
    pages: &[Page],
    budget_s: f64,
) -> anyhow::Result<Row> {
    let bytes = pages.len() * PAGE_SIZE;
    let mut records = codec.compress(pages)?;
    let stored: usize = records.iter().map(|r| r.encoded_len()).sum();
    let c = time_runs(3, budget_s, || {
        records = codec.compress(pages).expect("compressed once already")
    });
    let mut out = vec![[0u8; PAGE_SIZE]; pages.len()];
    codec
        .decompress(&records, &mut out)?
        .map_err(|e| anyhow::anyhow!("page {}: {}", e.index, e.detail))?;
    anyhow::ensure!(
        out.as_slice() == pages,
        "{name}: the round trip changed the pages"
    );
    let d = time_runs(3, budget_s, || {
        codec
            .decompress(&records, &mut out)
            .expect("decoded once already")
            .expect("decoded once already");
    });
    Ok(Row {
        name: name.to_owned(),
        compress_gbps: gbps(bytes, median(c.clone())),
        decompress_gbps: gbps(bytes, median(d.clone())),
        ratio: bytes as f64 / stored as f64,
        runs: c.len().min(d.len()),
        pages: pages.len(),
    })
}

/// lz4_flex on one thread: the baseline.
struct SingleThreadLz4Flex;

impl PageCodec for SingleThreadLz4Flex {
    fn backend(&self) -> warpforge::codec::Backend {
        warpforge::codec::Backend::Cpu
    }
    fn compress(&mut self, pages: &[Page]) -> anyhow::Result<Vec<warpforge::archive::Record>> {
        Ok(pages
            .iter()
            .map(warpforge::codec::cpu_compress_page)
            .collect())
    }
    fn decompress(
        &mut self,
        records: &[warpforge::archive::Record],
        out: &mut [Page],
    ) -> anyhow::Result<Result<(), warpforge::codec::DecodeError>> {
        for (i, (record, page)) in records.iter().zip(out.iter_mut()).enumerate() {
            if let warpforge::archive::Record::Lz4(block) = record {
                if lz4_flex::block::decompress_into(block, page).map_err(|e| e.to_string())
                    != Ok(PAGE_SIZE)
                {
                    return Ok(Err(warpforge::codec::DecodeError {
                        index: i,
                        detail: "lz4_flex failed".into(),
                    }));
                }
            } else {
                warpforge::codec::fill_simple(record, page);
            }
        }
        Ok(Ok(()))
    }
}

/// liblz4's compression of each page (`hc`: LZ4HC at that level, else the default), stored as warpforge
/// stores pages: a same-filled page as its 8-byte pattern, a page whose block is not shorter than the
/// page raw. Total bytes of the records.
fn liblz4_bytes(pages: &[Page], hc: Option<i32>) -> usize {
    let mut out = vec![0u8; warpforge::kernels::lz4::lz4_compress_bound(PAGE_SIZE)];
    let mut liblz4 = |p: &Page| {
        let (src, dst) = (p.as_ptr().cast(), out.as_mut_ptr().cast());
        let (len, cap) = (PAGE_SIZE as i32, out.len() as i32);
        // SAFETY: `p` is PAGE_SIZE readable bytes and `out` is `out.len()` writable bytes; liblz4
        // writes at most the capacity it is given.
        let n = unsafe {
            match hc {
                Some(level) => lz4_sys::LZ4_compress_HC(src, dst, len, cap, level),
                None => lz4_sys::LZ4_compress_default(src, dst, len, cap),
            }
        };
        (n > 0).then(|| out[..n as usize].to_vec())
    };
    pages
        .iter()
        .map(|p| store_page(p, &mut liblz4).encoded_len())
        .sum()
}

/// Measures every available codec on `pages`, spending about `budget_s` seconds per measurement; the
/// simulator on the first `sim_pages` pages (0: not at all).
pub fn run(
    pages: &[Page],
    budget_s: f64,
    with_webgpu: bool,
    sim_pages: usize,
) -> anyhow::Result<Report> {
    let mut rows = vec![measure(
        &mut SingleThreadLz4Flex,
        "lz4_flex (1 thread)",
        pages,
        budget_s,
    )?];
    rows.push(measure(
        &mut CpuCodec,
        "cpu (lz4_flex, all cores)",
        pages,
        budget_s,
    )?);
    for level in Lz4Level::ALL {
        let default = if level == Lz4Level::DEFAULT {
            ", default"
        } else {
            ""
        };
        let name = format!("reference L{}{default} (all cores)", level.number());
        rows.push(measure(
            &mut ReferenceCodec::at_level(level),
            &name,
            pages,
            budget_s,
        )?);
    }
    let mut skipped = Vec::new();
    if sim_pages > 0 {
        let prefix = &pages[..sim_pages.min(pages.len())];
        let mut codec = KernelCodec::sim_with(SimOptions {
            sanitize: false,
            ..SimOptions::default()
        });
        let name = format!("sim (CPU simulator, L2, first {} pages)", prefix.len());
        rows.push(measure(&mut codec, &name, prefix, 0.0)?);
        // The same pages through the CUDA engine's host pipeline, the kernels' sm_80 PTX executed.
        let mut ptx = warpforge::codec::BatchCodec::ptx_sim_with(
            SimOptions {
                sanitize: false,
                ..SimOptions::default()
            },
            Lz4Level::DEFAULT,
        )?;
        let name = format!("ptx-sim (CUDA pipeline, L2, first {} pages)", prefix.len());
        rows.push(measure(&mut ptx, &name, prefix, 0.0)?);
        let fell_back = ptx.cpu_fallback_pages();
        if fell_back > 0 {
            anyhow::bail!("ptx-sim: {fell_back} pages fell back to the CPU during the bench");
        }
    } else {
        skipped.push("sim, ptx-sim: --sim-pages 0".into());
    }
    match warpforge::gpu::cuda_probe() {
        Ok(_) => match warpforge::codec::BatchCodec::new(0) {
            Ok(mut codec) => {
                let name = codec.describe();
                rows.push(measure(&mut codec, &name, pages, budget_s)?);
                let fell_back = codec.cpu_fallback_pages();
                if fell_back > 0 {
                    skipped.push(format!(
                        "cuda: {fell_back} pages were compressed on the CPU after GPU failures; its row is not a GPU figure"
                    ));
                }
            }
            Err(e) => skipped.push(format!("cuda: {e}")),
        },
        Err(why) => skipped.push(format!("cuda: {why}")),
    }
    if with_webgpu {
        // The batch API's ring, as `--backend webgpu` runs it; the name says how warps are lowered.
        match warpforge::codec::BatchCodec::webgpu_at(Lz4Level::DEFAULT) {
            Ok(mut codec) => {
                let name = codec.describe();
                rows.push(measure(&mut codec, &name, pages, budget_s)?);
                let fell_back = codec.cpu_fallback_pages();
                if fell_back > 0 {
                    skipped.push(format!(
                        "webgpu: {fell_back} pages were redone on the CPU after GPU failures; its row is not a GPU figure"
                    ));
                }
            }
            Err(e) => skipped.push(format!("webgpu: {e:#}")),
        }
    } else {
        skipped.push("webgpu: --no-webgpu".into());
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    Ok(Report {
        pages: pages.len(),
        cores,
        rows,
        liblz4_ratio: (pages.len() * PAGE_SIZE) as f64 / liblz4_bytes(pages, None) as f64,
        liblz4_hc9_ratio: (pages.len() * PAGE_SIZE) as f64 / liblz4_bytes(pages, Some(9)) as f64,
        skipped,
    })
}

impl Report {
    /// The table for a terminal.
    pub fn text(&self) -> String {
        let mut s = format!(
            "{} pages ({} MB), {} cores; throughput: GB/s and pages/s of pages, median run, host clock around each whole call (GPU rows include transfers)\n",
            self.pages,
            self.pages * PAGE_SIZE / 1_000_000,
            self.cores
        );
        s += &format!(
            "{:<44} {:>10} {:>10} {:>11} {:>11} {:>7} {:>5} {:>9}\n",
            "codec", "comp GB/s", "dec GB/s", "comp pg/s", "dec pg/s", "ratio", "runs", "vs base"
        );
        let base = self.rows[0].compress_gbps;
        for r in &self.rows {
            s += &format!(
                "{:<44} {:>10.3} {:>10.3} {:>11.0} {:>11.0} {:>7.3} {:>5} {:>8.2}x\n",
                r.name,
                r.compress_gbps,
                r.decompress_gbps,
                r.compress_pages_per_s(),
                r.decompress_pages_per_s(),
                r.ratio,
                r.runs,
                r.compress_gbps / base
            );
        }
        for (name, ratio) in [
            ("liblz4 (default, per page; ratio only)", self.liblz4_ratio),
            ("liblz4 HC 9 (per page; ratio only)", self.liblz4_hc9_ratio),
        ] {
            s += &format!(
                "{:<44} {:>10} {:>10} {:>11} {:>11} {:>7.3}\n",
                name, "-", "-", "-", "-", ratio
            );
        }
        s += "(ratios: pages ÷ records as the archive stores them, same-filled and raw pages alike for \
              every row; L1-L3: warpforge's levels)\n";
        for why in &self.skipped {
            s += &format!("not measured: {why}\n");
        }
        s
    }

    /// The same as JSON, on one line.
    pub fn json(&self) -> String {
        serde_json::to_string(self).expect("plain data serializes")
    }
}

/// `bench --json`: the table with each row's rates in pages per second too.
#[derive(Serialize)]
struct ReportJson<'a> {
    pages: usize,
    cores: usize,
    liblz4_ratio: f64,
    liblz4_hc9_ratio: f64,
    rows: Vec<RowJson<'a>>,
    skipped: &'a [String],
}

/// One row of [`ReportJson`].
#[derive(Serialize)]
struct RowJson<'a> {
    name: &'a str,
    pages: usize,
    compress_gbps: f64,
    decompress_gbps: f64,
    compress_pages_per_s: f64,
    decompress_pages_per_s: f64,
    ratio: f64,
    runs: usize,
}

impl Serialize for Report {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let rows = (self.rows.iter())
            .map(|r| RowJson {
                name: &r.name,
                pages: r.pages,
                compress_gbps: r.compress_gbps,
                decompress_gbps: r.decompress_gbps,
                compress_pages_per_s: r.compress_pages_per_s(),
                decompress_pages_per_s: r.decompress_pages_per_s(),
                ratio: r.ratio,
                runs: r.runs,
            })
            .collect();
        ReportJson {
            pages: self.pages,
            cores: self.cores,
            liblz4_ratio: self.liblz4_ratio,
            liblz4_hc9_ratio: self.liblz4_hc9_ratio,
            rows,
            skipped: &self.skipped,
        }
        .serialize(serializer)
    }
}
