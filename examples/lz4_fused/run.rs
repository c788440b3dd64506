//! The fused XOR-delta kernels (`warpforge::kernels::lz4::fused`: the LZ4 device functions called
//! inside a kernel that XORs each page with its previous version) beside the batch level-0 kernels on
//! the same pages, through one `Launcher`, every output verified against the CPU. Shared by
//! `examples/lz4_fused` and `gpu_kernel_bench`'s `fused` section (`scripts/gpu-check.sh perf`).

use anyhow::{bail, ensure, Result};
use rayon::prelude::*;
use warpforge::ir::{verify, Kernel};
use warpforge::kernels::lz4::fused::{xor_delta_compress, xor_delta_decompress};
use warpforge::kernels::lz4::{
    encode_page_level, lz4_compress_kernel_level, lz4_decompress_block, lz4_decompress_kernel,
    Lz4Level, PageEncoding, BLOCKS_ALIGN, PAGE_SIZE,
};
use warpforge::runtime::{BufferArg, Launcher};

pub type Page = [u8; PAGE_SIZE];

/// One kernel's figure: the kernel times of every timed launch (the launcher's kernel clock; uploads
/// and downloads are not counted), the page bytes each launch handles, and what was checked.
pub struct Measured {
    /// `batch L0` or `fused XOR-delta`.
    pub kernel: &'static str,
    /// `compress` or `decompress`.
    pub op: &'static str,
    pub seconds: Vec<f64>,
    /// The clock of `seconds` (`CUDA events`, `WebGPU timestamp queries`, `host clock`).
    pub clock: String,
    /// Uncompressed bytes per launch (for decompress: the pages whose record is an LZ4 block).
    pub bytes: u64,
    /// Page bytes ÷ record payload bytes (LZ4 blocks, raw pages, 8-byte patterns), for compress.
    pub ratio: Option<f64>,
    /// Pages whose output was checked.
    pub verified: u64,
}

/// The previous version of each page: the page with one byte in 397 changed, as consecutive
/// snapshots of a guest's memory differ (a synthetic delta: real deltas depend on the workload).
pub fn previous_versions(pages: &[Page]) -> Vec<Page> {
    pages
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut base = *p;
            for k in (i % 397..PAGE_SIZE).step_by(397) {
                base[k] ^= (((i * 31 + k) as u32).wrapping_mul(0x9e37_79b9) >> 24) as u8 | 1;
            }
            base
        })
        .collect()
}

fn xor(a: &Page, b: &Page) -> Page {
    std::array::from_fn(|k| a[k] ^ b[k])
}

fn flat(pages: &[Page]) -> Vec<u8> {
    pages.iter().flatten().copied().collect()
}

fn word(bytes: &[u8], k: usize) -> u32 {
    u32::from_le_bytes(bytes[4 * k..4 * k + 4].try_into().expect("4 bytes"))
}

/// Launches `kernel` `1 + runs` times (the first untimed) on fresh copies of `buffers` (the first
/// `inputs` read-only); returns the last launch's buffers, the timed kernel seconds and their clock.
fn launch(
    launcher: &Launcher,
    kernel: &Kernel,
    blocks: u32,
    buffers: &[Vec<u8>],
    inputs: usize,
    runs: usize,
) -> Result<(Vec<Vec<u8>>, Vec<f64>, String)> {
    let verified = verify(kernel).map_err(|e| anyhow::anyhow!("{e}"))?;
    let loaded = launcher.load(&verified)?;
    let (mut seconds, mut clock, mut out) = (Vec::new(), String::new(), Vec::new());
    for run in 0..=runs {
        out = buffers.to_vec();
        let (read, write) = out.split_at_mut(inputs);
        let mut args: Vec<BufferArg<'_>> = read.iter().map(|b| BufferArg::ReadOnly(b)).collect();
        args.extend(write.iter_mut().map(|b| BufferArg::ReadWrite(b)));
        let launched = launcher.launch(&loaded, blocks, &mut args, &[u64::from(blocks)])?;
        if let Some(report) = &launched.sim {
            ensure!(
                report.findings.is_empty(),
                "{}: the sanitizer found {:?}",
                kernel.name,
                report.findings
            );
        }
        if run > 0 {
            seconds.push(launched.timings.kernel_ns as f64 * 1e-9);
            clock = launched.timings.kernel_clock.to_string();
        }
    }
    Ok((out, seconds, clock))
}

/// Page `g`'s record from a compress kernel's `output` and `meta`.
fn record(output: &[u8], meta: &[u8], g: usize) -> Result<PageEncoding> {
    let m = |k| word(meta, 4 * g + k);
    Ok(match m(0) {
        0 => {
            let len = m(1) as usize;
            ensure!(len < PAGE_SIZE, "page {g}: block length {len}");
            PageEncoding::Lz4(output[g * PAGE_SIZE..g * PAGE_SIZE + len].to_vec())
        }
        1 => PageEncoding::Raw,
        2 => PageEncoding::SameFilled(u64::from(m(2)) | u64::from(m(3)) << 32),
        other => bail!("page {g}: unknown kind {other}"),
    })
}

/// Every record equals the CPU reference's (level 0) for `want` and decodes back to it; returns the
/// records and the compression ratio.
fn check_records(
    what: &str,
    out: &[Vec<u8>],
    (output, meta): (usize, usize),
    want: &[Page],
) -> Result<(Vec<PageEncoding>, f64)> {
    let records: Vec<PageEncoding> = (0..want.len())
        .map(|g| record(&out[output], &out[meta], g))
        .collect::<Result<_>>()?;
    want.par_iter()
        .zip(&records)
        .enumerate()
        .try_for_each(|(g, (page, got))| {
            ensure!(
                *got == encode_page_level(page, Lz4Level::THROUGHPUT),
                "{what}: page {g}: not the CPU reference's record"
            );
            if let PageEncoding::Lz4(block) = got {
                let mut back = [0u8; PAGE_SIZE];
                let n = lz4_decompress_block(block, &mut back)
                    .map_err(|e| anyhow::anyhow!("{what}: page {g}: {e:?}"))?;
                ensure!(
                    n == PAGE_SIZE && back == *page,
                    "{what}: page {g} decodes wrong"
                );
            }
            Ok(())
        })?;
    let payload: usize = records
        .iter()
        .map(|r| match r {
            PageEncoding::Lz4(b) => b.len(),
            PageEncoding::Raw => PAGE_SIZE,
            PageEncoding::SameFilled(_) => 8,
        })
        .sum();
    Ok((records, (want.len() * PAGE_SIZE) as f64 / payload as f64))
}

/// The LZ4 blocks of `records` (their page indices), concatenated at 16-byte aligned starts, and
/// their spans (start, length).
fn blocks_of(records: &[PageEncoding]) -> (Vec<usize>, Vec<u8>, Vec<u8>) {
    let (mut which, mut blocks, mut spans) = (Vec::new(), Vec::new(), Vec::new());
    for (g, r) in records.iter().enumerate() {
        if let PageEncoding::Lz4(block) = r {
            which.push(g);
            spans.extend_from_slice(&(blocks.len() as u32).to_le_bytes());
            spans.extend_from_slice(&(block.len() as u32).to_le_bytes());
            blocks.extend_from_slice(block);
            blocks.resize(blocks.len().next_multiple_of(BLOCKS_ALIGN), 0);
        }
    }
    blocks.resize(blocks.len().max(BLOCKS_ALIGN), 0);
    (which, blocks, spans)
}

/// Decoded page `k` (of `decoded`) is `pages[which[k]]`, and its status word says so.
fn check_decoded(
    what: &str,
    decoded: &[u8],
    status: &[u8],
    which: &[usize],
    pages: &[Page],
) -> Result<()> {
    for (k, &g) in which.iter().enumerate() {
        ensure!(word(status, k) & 0xff == 0, "{what}: page {g}: status");
        ensure!(
            decoded[k * PAGE_SIZE..(k + 1) * PAGE_SIZE] == pages[g],
            "{what}: page {g} differs from the input"
        );
    }
    Ok(())
}

/// The four figures (batch and fused, compress and decompress) of `runs` timed launches each.
pub fn measure(launcher: &Launcher, pages: &[Page], runs: usize) -> Result<Vec<Measured>> {
    ensure!(!pages.is_empty(), "no pages");
    let n = pages.len();
    let bases = previous_versions(pages);
    let deltas: Vec<Page> = pages.iter().zip(&bases).map(|(p, b)| xor(p, b)).collect();
    let figure = |kernel, op, seconds, clock, bytes: usize, ratio, verified: usize| Measured {
        kernel,
        op,
        seconds,
        clock,
        bytes: bytes as u64,
        ratio,
        verified: verified as u64,
    };
    let mut figures = Vec::new();

    let batch = lz4_compress_kernel_level(1, Lz4Level::THROUGHPUT);
    let buffers = [
        flat(pages),
        vec![0; n * PAGE_SIZE],
        vec![0; n * 16],
        vec![0; 16],
    ];
    let (out, seconds, clock) = launch(launcher, &batch, n as u32, &buffers, 1, runs)?;
    let (plain, ratio) = check_records("batch L0 compress", &out, (1, 2), pages)?;
    figures.push(figure(
        "batch L0",
        "compress",
        seconds,
        clock,
        n * PAGE_SIZE,
        Some(ratio),
        n,
    ));

    let buffers = [
        flat(pages),
        flat(&bases),
        vec![0; n * PAGE_SIZE],
        vec![0; n * 16],
    ];
    let (out, seconds, clock) =
        launch(launcher, &xor_delta_compress(), n as u32, &buffers, 2, runs)?;
    let (delta_records, ratio) = check_records("fused XOR-delta compress", &out, (2, 3), &deltas)?;
    figures.push(figure(
        "fused XOR-delta",
        "compress",
        seconds,
        clock,
        n * PAGE_SIZE,
        Some(ratio),
        n,
    ));

    let (which, blocks, spans) = blocks_of(&plain);
    let m = which.len();
    if m > 0 {
        let buffers = [blocks, spans, vec![0; m * PAGE_SIZE], vec![0; m * 4]];
        let (out, seconds, clock) = launch(
            launcher,
            &lz4_decompress_kernel(1),
            m as u32,
            &buffers,
            2,
            runs,
        )?;
        check_decoded("batch decompress", &out[2], &out[3], &which, pages)?;
        figures.push(figure(
            "batch L0",
            "decompress",
            seconds,
            clock,
            m * PAGE_SIZE,
            None,
            m,
        ));
    }

    let (which, blocks, spans) = blocks_of(&delta_records);
    let m = which.len();
    if m > 0 {
        let their_bases: Vec<Page> = which.iter().map(|&g| bases[g]).collect();
        let buffers = [
            blocks,
            spans,
            flat(&their_bases),
            vec![0; m * PAGE_SIZE],
            vec![0; m * 4],
        ];
        let (out, seconds, clock) = launch(
            launcher,
            &xor_delta_decompress(),
            m as u32,
            &buffers,
            3,
            runs,
        )?;
        check_decoded("fused decompress", &out[3], &out[4], &which, pages)?;
        figures.push(figure(
            "fused XOR-delta",
            "decompress",
            seconds,
            clock,
            m * PAGE_SIZE,
            None,
            m,
        ));
    }
    Ok(figures)
}
