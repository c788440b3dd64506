//! `warpforge bench --stats`: the simulator's counters per page for both LZ4 kernels — the cost model of
//! the kernels until a GPU measures them (a model: 32 banks of 4 bytes, 32-byte sectors, no caches, no
//! timing).

use serde::Serialize;

use super::measure::Report;
use warpforge::codec::{KernelCodec, Page, PageCodec, ReferenceCodec};
use warpforge::kernels::lz4::Lz4Level;
use warpforge::runtime::sim::{Counters, SimOptions, SimReport};
use warpforge::runtime::Launcher;

/// One kernel's counters over the pages it ran on (one block, one warp, per page); serialized (in
/// `bench --stats --json`) in this order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelCounters {
    /// `lz4-compress L1` (one row per level) or `lz4-decompress`.
    pub kernel: String,
    /// Pages (blocks) the kernel ran on: every page for compress, the LZ4 pages for decompress.
    pub pages: usize,
    /// The page with the most warp-instructions.
    pub max_warp_instructions: u64,
    /// The sum over those pages.
    pub total: Counters,
}

impl KernelCounters {
    fn from_report(kernel: String, report: &SimReport) -> Self {
        KernelCounters {
            kernel,
            pages: report.blocks.len(),
            max_warp_instructions: report
                .blocks
                .iter()
                .map(Counters::warp_instructions)
                .max()
                .unwrap_or(0),
            total: report.counters,
        }
    }

    fn per_page(&self, n: u64) -> f64 {
        n as f64 / self.pages.max(1) as f64
    }
}

/// Runs the compress kernel of every level and the decompress kernel (on the default level's blocks)
/// on `pages` on the simulator with counters on, sanitizer off; every level's records are checked
/// against the CPU reference's and decoded back to the pages.
pub fn sim_counters(pages: &[Page]) -> anyhow::Result<Vec<KernelCounters>> {
    let options = SimOptions {
        sanitize: false,
        stats: true,
        ..SimOptions::default()
    };
    let mut rows = Vec::new();
    let mut decompress = None;
    for level in Lz4Level::ALL {
        let mut codec = KernelCodec::at_level(Launcher::Sim(options.clone()), level)?;
        let records = codec.compress(pages)?;
        anyhow::ensure!(
            records == ReferenceCodec::at_level(level).compress(pages)?,
            "the simulator's compress kernel at {level} differs from the CPU reference"
        );
        let mut out = vec![[0u8; warpforge::PAGE_SIZE]; pages.len()];
        codec
            .decompress(&records, &mut out)?
            .map_err(|e| anyhow::anyhow!("page {}: {}", e.index, e.detail))?;
        anyhow::ensure!(out == pages, "the simulator's round trip changed the pages");
        if let Some(r) = codec.last_compress_report() {
            let default = if level == Lz4Level::DEFAULT {
                " (default)"
            } else {
                ""
            };
            let name = format!("lz4-compress L{}{default}", level.number());
            rows.push(KernelCounters::from_report(name, r));
        }
        if level == Lz4Level::DEFAULT {
            decompress = codec.last_decompress_report().cloned();
        }
    }
    if let Some(r) = &decompress {
        rows.push(KernelCounters::from_report("lz4-decompress".into(), r));
    }
    Ok(rows)
}

/// The counters as a table for a terminal.
pub fn text(rows: &[KernelCounters]) -> String {
    let mut s = String::from(
        "simulator counters per page (a model of the kernels' cost, not a GPU measurement; sim, \
         one warp per page):\n",
    );
    s += &format!(
        "{:<26} {:>6} {:>12} {:>10} {:>9} {:>10} {:>10} {:>10} {:>9} {:>9}\n",
        "kernel",
        "pages",
        "warp-instr",
        "max",
        "SIMT eff",
        "shared",
        "wavefronts",
        "conflicts",
        "sect/acc",
        "barriers"
    );
    for r in rows {
        let t = &r.total;
        s += &format!(
            "{:<26} {:>6} {:>12.0} {:>10} {:>8.1}% {:>10.0} {:>10.0} {:>10.1} {:>9.2} {:>9.1}\n",
            r.kernel,
            r.pages,
            r.per_page(t.warp_instructions()),
            r.max_warp_instructions,
            100.0 * t.simt_efficiency(),
            r.per_page(t.shared),
            r.per_page(t.shared_wavefronts),
            r.per_page(t.bank_conflicts),
            t.sectors_per_global_access(),
            r.per_page(t.barriers)
        );
    }
    s += "(per page: mean warp-instructions, the largest page's, shared-memory warp-instructions, their \
          wavefronts and the extra ones bank conflicts cost; sect/acc: 32-byte sectors per global warp \
          access)\n";
    s
}

/// `bench --stats --json`: the table and the counters.
#[derive(Serialize)]
struct BenchJson<'a> {
    bench: &'a Report,
    sim_counters: &'a [KernelCounters],
}

/// The bench's table and the counters as one JSON object on one line: `{"bench": {...},
/// "sim_counters": [...]}`, per kernel the pages, the page maximum and the totals.
pub fn json(bench: &Report, rows: &[KernelCounters]) -> String {
    let both = BenchJson {
        bench,
        sim_counters: rows,
    };
    serde_json::to_string(&both).expect("plain data serializes")
}
