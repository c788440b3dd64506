//! `warpforge host-bench`'s CLI pipeline rows: `warpforge compress` and `decompress` as the CLI runs
//! them, through the batch API's codec (`BatchCodec`) on the replay driver. `compress_file` reads the
//! page file into the compressor's host pages, compresses and writes the archive (a CRC per page,
//! synced, then renamed); `decompress_file` reads the archive back, decodes, checks every page's CRC
//! and writes the pages (synced, then renamed). The files are in the temp directory. Host work is the
//! call's wall time minus the driver's device stand-in time, so it includes the file system's work and
//! the syncs' waits on this machine's disk: what the CLI costs beside the in-memory APIs on the same
//! pages. Work the pipeline runs on pool threads beside the compress call (the next batch's read,
//! the CRCs) is hidden behind that call, device stand-in included, as it would be behind a GPU's
//! work; on this project's 2-vCPU VM the stand-in's copies compete with it for the cores. After
//! every timed run, outside the timed region, the archive is compared with the recorded one and the
//! pages written with the input.

use std::path::Path;
use std::sync::Arc;

use anyhow::{ensure, Context};
use indicatif::ProgressBar;

use warpforge::codec::{BatchCodec, Page, PageCodec};
use warpforge::gpu::{GpuBatchCompressor, GpuBatchConfig, ReplayTape};
use warpforge::pipeline::{compress_file, decompress_file};
use warpforge::PAGE_SIZE;

use super::direction::{Direction, Runs};

/// The CLI pipeline's two rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Pipeline {
    /// `compress_file`: page file to archive.
    pub compress: Direction,
    /// `decompress_file`: archive to page file.
    pub decompress: Direction,
    /// Pages redone on the CPU (must be 0).
    pub cpu_fallback_pages: u64,
}

/// Times `runs` round trips of `pages` through the CLI pipeline (after one untimed recording run).
pub fn run(pages: &[Page], runs: usize, config: GpuBatchConfig) -> anyhow::Result<Pipeline> {
    ensure!(
        !pages.is_empty() && runs > 0,
        "the pipeline rows need pages and runs"
    );
    // A directory of its own in the temp directory, removed when dropped.
    let scratch = tempfile::Builder::new()
        .prefix("warpforge-host-bench-pipeline-")
        .tempdir()
        .with_context(|| {
            format!(
                "cannot create a scratch directory in {}",
                std::env::temp_dir().display()
            )
        })?;
    let input = scratch.path().join("pages.bin");
    let archive = scratch.path().join("pages.wfpa");
    let output = scratch.path().join("decoded.bin");
    std::fs::write(&input, pages.as_flattened())
        .with_context(|| format!("cannot write {}", input.display()))?;
    let tape = ReplayTape::new(config.algorithm.lz4_level());
    let mut codec =
        BatchCodec::with_compressor(GpuBatchCompressor::replaying(config, Arc::clone(&tape))?);
    let hidden = ProgressBar::hidden();
    // Recording run (untimed): the kernels' outputs computed on the CPU.
    compress_file(&input, &archive, &mut codec, &hidden).context("recording compress_file")?;
    decompress_file(&archive, &output, &mut codec, &hidden).context("recording decompress_file")?;
    let recorded = std::fs::read(&archive)?;
    same_pages(&output, pages)?;
    tape.replay();

    let (mut compress, mut decompress) = (Runs::default(), Runs::default());
    let device = || tape.device_ns();
    for run in 0..runs {
        tape.rewind();
        compress.time(device, || {
            compress_file(&input, &archive, &mut codec, &hidden).map(drop)
        })?;
        decompress.time(device, || {
            decompress_file(&archive, &output, &mut codec, &hidden).map(drop)
        })?;
        ensure!(
            std::fs::read(&archive)? == recorded,
            "run {run}: compress_file wrote another archive than the recorded run"
        );
        same_pages(&output, pages).with_context(|| format!("run {run}"))?;
    }
    let bytes = pages.len() * PAGE_SIZE;
    Ok(Pipeline {
        compress: compress.direction(bytes),
        decompress: decompress.direction(bytes),
        cpu_fallback_pages: codec.cpu_fallback_pages(),
    })
}

fn same_pages(file: &Path, pages: &[Page]) -> anyhow::Result<()> {
    let written = std::fs::read(file)?;
    ensure!(
        written == pages.as_flattened(),
        "decompress_file did not give back the pages"
    );
    Ok(())
}

impl Pipeline {
    /// The rows as text, after a line that says what they time; `staged` is the same run's
    /// `compress_staged` row.
    pub fn text(&self, staged: &Direction) -> String {
        format!(
            "CLI pipeline (warpforge compress / decompress through the batch API on the replay driver, \
             files in the temp directory; host work includes reading, writing, CRCs and the syncs' waits):\n{}{}\
             CLI pipeline CPU fallbacks: {} pages\n",
            self.compress.row("compress_file", staged),
            self.decompress.row("decompress_file", staged),
            self.cpu_fallback_pages
        )
    }
}
