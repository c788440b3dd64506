//! The CLI's file pipeline host to host: `warpforge compress` / `decompress` as the command runs them
//! (`pipeline::compress_file` / `decompress_file`), files in the temp directory, through the codec
//! behind `--backend cuda` (the batch API's ring) and, as the baseline in the same run, `--backend cpu`
//! (lz4_flex on every core). The wall time of each whole call counts reading, compressing, CRCs,
//! writing, the early writeback and the final `fsync` before the rename. Every run's output is
//! checked: the decompressed file byte for byte against the page file; the archive through that.

use std::path::Path;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use indicatif::ProgressBar;
use warpforge::codec::{open, Backend, PageCodec};
use warpforge::pipeline::{compress_file, decompress_file};
use warpforge::PAGE_SIZE;

use crate::gpu::Page;
use crate::report::{Figure, Report};

/// The first `mib` MiB of `pages` through the CLI pipeline on `backends`, `runs` timed calls each way
/// after one untimed round trip.
pub fn run(
    pages: &[Page],
    mib: usize,
    runs: usize,
    backends: &[Backend],
    report: &mut Report,
) -> Result<()> {
    let count = pages.len().min((mib << 20) / PAGE_SIZE).max(1);
    let pages = &pages[..count];
    // A folder of the run's files, removed when dropped.
    let scratch = tempfile::Builder::new()
        .prefix("gpu_kernel_bench-cli-")
        .tempdir()
        .context("cannot create a scratch folder")?;
    let input = scratch.path().join("in.pages");
    std::fs::write(&input, pages.as_flattened())
        .with_context(|| format!("cannot write {}", input.display()))?;
    for &backend in backends {
        let mut codec = open(backend).with_context(|| format!("--backend {backend}"))?;
        one_backend(codec.as_mut(), &input, scratch.path(), pages, runs, report)
            .with_context(|| format!("--backend {backend}"))?;
    }
    Ok(())
}

fn one_backend(
    codec: &mut dyn PageCodec,
    input: &Path,
    dir: &Path,
    pages: &[Page],
    runs: usize,
    report: &mut Report,
) -> Result<()> {
    let (archive, back) = (dir.join("out.wfpa"), dir.join("back.pages"));
    let hidden = ProgressBar::hidden();
    // One untimed round trip: the codec's buffers and the page cache warm, as in a long run.
    compress_file(input, &archive, codec, &hidden)?;
    decompress_file(&archive, &back, codec, &hidden)?;
    let before = codec.cpu_fallback_pages();
    let (mut cs, mut ds, mut summary) = (Vec::new(), Vec::new(), None);
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        summary = Some(compress_file(input, &archive, codec, &hidden)?);
        cs.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        decompress_file(&archive, &back, codec, &hidden)?;
        ds.push(t.elapsed().as_secs_f64());
        let got = std::fs::read(&back).context("reading the decompressed file")?;
        if got != pages.as_flattened() {
            bail!("the decompressed file is not the page file");
        }
    }
    let summary = summary.context("no run")?;
    let fell_back = codec.cpu_fallback_pages() - before;
    let bytes = (pages.len() * PAGE_SIZE) as u64;
    let name = format!(
        "warpforge compress/decompress --backend {}",
        codec.backend()
    );
    let files = format!(
        "{} pages in {}; each whole call reads, compresses or decodes, checks CRCs, writes, syncs and \
         renames ({}); the decompressed file compared byte for byte after every run",
        pages.len(),
        dir.display(),
        codec.describe()
    );
    for (op, seconds, ratio) in [
        ("compress", cs, Some(summary.ratio())),
        ("decompress", ds, None),
    ] {
        report.figures.push(Figure {
            ratio,
            fallback_pages: Some(fell_back),
            verified_pages: pages.len() as u64,
            note: format!(
                "the CLI's file pipeline, files to files; ratio over the whole archive (framing, CRCs \
                 and footer included); fallback counts both directions of every timed run; {files}"
            ),
            ..Figure::host_to_host(&name, op, bytes, seconds)
        });
    }
    Ok(())
}
