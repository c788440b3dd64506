//! `warpforge demo`: compress an embedded sample of real memory pages on the best available backend,
//! verify every page with an independent decoder, and report ratio and throughput per page kind.

use std::time::Instant;

use anyhow::Context;
use clap::Args;
use warpforge::archive::Record;
use warpforge::codec::{Page, PageCodec};
use warpforge::kernels::lz4::Lz4Level;

use super::codec_args::{backend_choice, open_codec, BackendChoice};
use warpforge::kernels::lz4::{encode_page, lz4_decompress_block, PageEncoding};
use warpforge::PAGE_SIZE;

/// `warpforge demo`'s arguments.
#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Which implementation compresses (auto: as for `compress`; the line after the table says
    /// which ran and why the better ones did not).
    #[arg(long, default_value = "auto", value_parser = backend_choice())]
    backend: BackendChoice,
}

/// Runs the demo on the embedded sample and prints its table.
pub fn run(args: DemoArgs) -> anyhow::Result<()> {
    let pages = warpforge::sample_pages()?;
    let (mut codec, auto) = open_codec(args.backend, Lz4Level::DEFAULT)?;
    let rows = kind_rows(codec.as_mut(), &pages)?;
    print!("{}", text(&rows, &codec.describe()));
    let fell_back = codec.cpu_fallback_pages();
    if fell_back > 0 {
        println!(
            "{fell_back} pages were redone on the CPU after GPU failures (each said on stderr): \
             their records are the reference's, their times not the GPU's"
        );
    }
    if let Some(line) = auto {
        println!("{line}");
    }
    Ok(())
}

/// Figures for one kind of page.
#[derive(Clone, Debug, PartialEq)]
pub struct KindRow {
    /// `same-filled`, `compressible` or `incompressible` (what the reference makes of the page).
    pub kind: &'static str,
    /// Pages of that kind.
    pub pages: usize,
    /// Bytes stored (records).
    pub stored: usize,
    /// Compression time.
    pub seconds: f64,
}

/// Compresses the sample with `codec` kind by kind, checks every record decodes to its page with the
/// reference decoder and (for the kernels' format) equals the reference's record.
fn kind_rows(codec: &mut dyn PageCodec, pages: &[Page]) -> anyhow::Result<Vec<KindRow>> {
    type IsKind = fn(&PageEncoding) -> bool;
    let kinds: [(&str, IsKind); 3] = [
        ("same-filled", |e| matches!(e, PageEncoding::SameFilled(_))),
        ("compressible", |e| matches!(e, PageEncoding::Lz4(_))),
        ("incompressible", |e| matches!(e, PageEncoding::Raw)),
    ];
    let encodings: Vec<PageEncoding> = pages.iter().map(encode_page).collect();
    let identical = matches!(
        codec.backend(),
        warpforge::codec::Backend::Reference
            | warpforge::codec::Backend::Sim
            | warpforge::codec::Backend::WebGpu
            | warpforge::codec::Backend::Cuda
    );
    let mut rows = Vec::new();
    for (kind, is) in kinds {
        let group: Vec<Page> = pages
            .iter()
            .zip(&encodings)
            .filter(|(_, e)| is(e))
            .map(|(p, _)| *p)
            .collect();
        let start = Instant::now();
        let records = codec.compress(&group)?;
        let seconds = start.elapsed().as_secs_f64();
        for (i, (record, page)) in records.iter().zip(&group).enumerate() {
            let mut back = [0u8; PAGE_SIZE];
            match record {
                Record::Lz4(block) => {
                    let n = lz4_decompress_block(block, &mut back)
                        .with_context(|| format!("{kind} page {i}"))?;
                    anyhow::ensure!(n == PAGE_SIZE, "{kind} page {i}: decodes to {n} bytes");
                }
                other => {
                    warpforge::codec::fill_simple(other, &mut back);
                }
            }
            anyhow::ensure!(
                &back == page,
                "{kind} page {i}: the record does not decode to the page"
            );
            if identical {
                let want = warpforge::codec::record_of(encode_page(page), page);
                anyhow::ensure!(
                    record == &want,
                    "{kind} page {i}: differs from the reference encoding"
                );
            }
        }
        rows.push(KindRow {
            kind,
            pages: group.len(),
            stored: records.iter().map(Record::encoded_len).sum(),
            seconds,
        });
    }
    Ok(rows)
}

/// The report for a terminal.
pub fn text(rows: &[KindRow], backend: &str) -> String {
    let mut s = format!(
        "{:<16} {:>6} {:>10} {:>10} {:>8} {:>10}\n",
        "page kind", "pages", "bytes", "stored", "ratio", "MB/s"
    );
    let (mut pages, mut stored, mut seconds) = (0, 0, 0.0);
    for r in rows {
        let bytes = r.pages * PAGE_SIZE;
        s += &format!(
            "{:<16} {:>6} {:>10} {:>10} {:>8.2} {:>10.1}\n",
            r.kind,
            r.pages,
            bytes,
            r.stored,
            bytes as f64 / r.stored.max(1) as f64,
            bytes as f64 / 1e6 / r.seconds.max(1e-9)
        );
        pages += r.pages;
        stored += r.stored;
        seconds += r.seconds;
    }
    let bytes = pages * PAGE_SIZE;
    s += &format!(
        "{:<16} {:>6} {:>10} {:>10} {:>8.2} {:>10.1}\n",
        "all",
        pages,
        bytes,
        stored,
        bytes as f64 / stored.max(1) as f64,
        bytes as f64 / 1e6 / seconds.max(1e-9)
    );
    s + &format!("backend: {backend}; every page decoded with the reference decoder and compared byte for byte\n")
}
