//! What a compression level buys and costs: for each setting, the archive-record bytes of the CPU
//! reference on a corpus (the ratio), its single-thread speed (host clock), and the compress kernel's
//! simulator counters on the corpus's first pages (the cost model; the kernel's records are checked
//! against the reference's on those pages).
//!
//! ```sh
//! cargo run --release --example level_sweep -- dev.pages 256 [DEPTH,LAZY,NICE ...]
//! ```
//!
//! Without settings it sweeps the levels and a grid around them. Every figure names what it measured.

use std::time::Instant;

use warpforge::codec::{record_of, KernelCodec, PageCodec};
use warpforge::kernels::lz4::{encode_page_level, Lz4Level};
use warpforge::runtime::sim::SimOptions;
use warpforge::runtime::Launcher;
use warpforge::PAGE_SIZE;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(corpus), Some(sim_pages)) = (args.first(), args.get(1)) else {
        return Err("usage: level_sweep CORPUS SIM_PAGES [DEPTH,LAZY,NICE ...]".into());
    };
    let bytes = std::fs::read(corpus).map_err(|e| format!("{corpus}: {e}"))?;
    if bytes.is_empty() || bytes.len() % PAGE_SIZE != 0 {
        return Err(format!("{corpus}: not a whole number of 4096-byte pages").into());
    }
    let pages: Vec<[u8; PAGE_SIZE]> = bytes
        .chunks_exact(PAGE_SIZE)
        .map(|c| c.try_into().expect("a page"))
        .collect();
    let sim_pages: usize = sim_pages.parse()?;
    let prefix = &pages[..sim_pages.clamp(1, pages.len())];
    let mut levels: Vec<Lz4Level> = Vec::new();
    for setting in &args[2..] {
        let v: Vec<u32> = setting
            .split(',')
            .map(str::parse)
            .collect::<Result<_, _>>()
            .map_err(|_| format!("`{setting}`: expected DEPTH,LAZY,NICE"))?;
        let [depth, lazy, nice] = v[..] else {
            return Err(format!("`{setting}`: expected DEPTH,LAZY,NICE").into());
        };
        levels.push(Lz4Level::custom(depth, lazy, nice)?);
    }
    if levels.is_empty() {
        levels.extend(Lz4Level::ALL);
        for (depth, lazy, nice) in [
            (4, 0, 32),
            (16, 0, 32),
            (16, 1, 32),
            (32, 1, 32),
            (64, 0, 32),
        ] {
            levels.push(Lz4Level::custom(depth, lazy, nice)?);
        }
        levels.extend(
            [(64, 2, 32), (64, 1, 64), (128, 1, 64)]
                .map(|(d, l, n)| Lz4Level::custom(d, l, n).expect("a valid setting")),
        );
    }
    println!(
        "{} pages; reference: archive-record bytes (no header/footer) and single-thread pages/s (host \
         clock); sim: compress kernel counters per page on the first {} pages (a model, not a GPU \
         measurement)",
        pages.len(),
        prefix.len()
    );
    println!(
        "{:<40} {:>10} {:>7} {:>10} {:>11} {:>9} {:>10} {:>10}",
        "setting", "bytes", "ratio", "ref pg/s", "warp-instr", "SIMT eff", "shared", "conflicts"
    );
    for level in levels {
        let start = Instant::now();
        let records: Vec<_> = pages
            .iter()
            .map(|p| record_of(encode_page_level(p, level), p))
            .collect();
        let seconds = start.elapsed().as_secs_f64();
        let stored: usize = records.iter().map(|r| r.encoded_len()).sum();
        let options = SimOptions {
            sanitize: false,
            stats: true,
            ..SimOptions::default()
        };
        let mut sim = KernelCodec::at_level(Launcher::Sim(options), level)?;
        let got = sim.compress(prefix)?;
        if got[..] != records[..prefix.len()] {
            return Err(
                format!("{level}: the kernel's records differ from the reference's").into(),
            );
        }
        let report = sim.last_compress_report().ok_or("no compress launch")?;
        let c = report.counters;
        let per_page = |n: u64| n as f64 / prefix.len() as f64;
        println!(
            "{:<40} {:>10} {:>7.3} {:>10.0} {:>11.0} {:>8.1}% {:>10.0} {:>10.0}",
            level.to_string(),
            stored,
            (pages.len() * PAGE_SIZE) as f64 / stored as f64,
            pages.len() as f64 / seconds,
            per_page(c.warp_instructions()),
            100.0 * c.simt_efficiency(),
            per_page(c.shared),
            per_page(c.bank_conflicts)
        );
    }
    Ok(())
}
