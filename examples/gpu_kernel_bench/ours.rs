//! warpforge's page kernels, device-resident: at every level of `Lz4Level::ALL`, the compress kernel on
//! pages already in device memory, the compact kernel on its output, and the decompress kernel on the
//! compacted blocks, each timed alone with CUDA events while the rotation sets take turns. Afterwards
//! every output is downloaded once and checked on the CPU: each LZ4 block decoded by lz4_flex and
//! compared with its page, same-filled patterns with their pages, the compacted blocks with the
//! kernel's slots, the decoded pages byte for byte.

use anyhow::{anyhow, bail, Context, Result};
use warpforge::ir::{verify, Kernel as IrKernel};
use warpforge::kernel_io::PageMeta;
use warpforge::kernels::lz4::{
    compress_scratch_bytes, decode_status, lz4_decompress_kernel_one_at_a_time,
    same_filled_pattern, Lz4Level,
};
use warpforge::kernels::{
    blocks_for, warps_per_block, Kernel, Lz4CompactKernel, Lz4WarpCompressKernel,
    Lz4WarpDecompressKernel,
};
use warpforge::runtime::cuda::CudaKernel;
use warpforge::runtime::cudarc::driver::{CudaSlice, PushKernelArg};
use warpforge::runtime::Backend;
use warpforge::PAGE_SIZE;

use crate::from_input;
use crate::gpu::{par_check, Gpu, Page, Sets};
use crate::report::{Figure, Report, Scope};

/// Warm-up and timed runs per kernel.
#[derive(Clone, Copy)]
pub struct Runs {
    pub warmup: usize,
    pub timed: usize,
}

pub fn load(gpu: &Gpu, kernel: &dyn Kernel) -> Result<CudaKernel> {
    load_ir(gpu, &kernel.ir_for(Backend::Cuda))
}

fn load_ir(gpu: &Gpu, ir: &IrKernel) -> Result<CudaKernel> {
    let verified = verify(ir).map_err(|e| anyhow!("{}: {e:?}", ir.name))?;
    CudaKernel::load(&gpu.ctx, &gpu.info, &verified, gpu.info.sm())
        .with_context(|| format!("loading {}", ir.name))
}

/// One launch of a page kernel over `pages` pages: its buffers in parameter order, then the count.
pub fn launch(
    gpu: &Gpu,
    kernel: &CudaKernel,
    pages: usize,
    buffers: &[&CudaSlice<u8>],
) -> Result<()> {
    let cfg = kernel.config(u64::from(blocks_for(pages, Backend::Cuda)))?;
    let count = u32::try_from(pages).context("page count")?;
    let mut builder = gpu.stream.launch_builder(&kernel.function);
    for b in buffers {
        builder.arg(*b);
    }
    builder.arg(&count);
    // SAFETY: the page kernels take their buffers in this order and then the page count (as the
    // batch API's driver launches them); every buffer holds the whole set the kernel touches: pages
    // in, 4 KiB slots and 16-byte meta words out, the chain-level scratch of 8 KiB per page (compress); slots, meta, 4-byte offsets in and the
    // compacted blocks out (compact, the offsets computed from the same meta words); blocks padded
    // to 16 bytes, 8-byte spans in, pages and 4-byte statuses out (decompress).
    unsafe { builder.launch(cfg) }
        .with_context(|| format!("cuLaunchKernel({})", kernel.launch.entry))?;
    Ok(())
}

/// Times `launch_set(s)` `runs.warmup + runs.timed` times, rotating through the sets (every set is
/// launched at least once, so every set's output is there to check).
pub fn timed(
    gpu: &Gpu,
    sets: usize,
    runs: Runs,
    mut launch_set: impl FnMut(usize) -> Result<()>,
) -> Result<Vec<f64>> {
    let mut seconds = Vec::new();
    let total = (runs.warmup + runs.timed).max(sets);
    let first_timed = total - runs.timed;
    for run in 0..total {
        let t = gpu.time(|| launch_set(run % sets))?;
        if run >= first_timed {
            seconds.push(t);
        }
    }
    Ok(seconds)
}

#[derive(Default)]
struct Checked {
    pages: u64,
    lz4: u64,
    payload: u64,
}

impl std::ops::AddAssign for Checked {
    fn add_assign(&mut self, o: Checked) {
        self.pages += o.pages;
        self.lz4 += o.lz4;
        self.payload += o.payload;
    }
}

pub fn meta_of(meta: &[u32], i: usize) -> Result<PageMeta> {
    PageMeta::decode([
        meta[4 * i],
        meta[4 * i + 1],
        meta[4 * i + 2],
        meta[4 * i + 3],
    ])
    .map_err(|e| anyhow!("page {i}: {e}"))
}

/// Every page of one set's compress output: LZ4 blocks decode (lz4_flex) to the page, same-filled
/// patterns fill the page, raw pages are the page.
fn check_compressed(pages: &[Page], slots: &[u8], meta: &[u32]) -> Result<Checked> {
    par_check(pages.len(), |range| {
        let mut c = Checked::default();
        for i in range {
            match meta_of(meta, i)? {
                PageMeta::Lz4(len) => {
                    let block = &slots[i * PAGE_SIZE..i * PAGE_SIZE + len];
                    let decoded = lz4_flex::block::decompress(block, PAGE_SIZE).map_err(|e| {
                        anyhow!("page {i}: lz4_flex rejects the kernel's block: {e}")
                    })?;
                    if decoded != pages[i] {
                        bail!("page {i}: the kernel's LZ4 block decodes to a different page");
                    }
                    c.lz4 += 1;
                    c.payload += len as u64;
                }
                PageMeta::SameFilled(p) => {
                    if same_filled_pattern(&pages[i]) != Some(p) {
                        bail!("page {i}: the kernel's same-filled pattern {p:#x} is not the page");
                    }
                    c.payload += 8;
                }
                PageMeta::Raw => c.payload += PAGE_SIZE as u64,
            }
            c.pages += 1;
        }
        Ok(c)
    })
}

/// Buffers of one set for one level.
struct SetBuffers {
    slots: CudaSlice<u8>,
    meta: CudaSlice<u8>,
    offsets: CudaSlice<u8>,
    compact: CudaSlice<u8>,
    spans: CudaSlice<u8>,
    decoded: CudaSlice<u8>,
    status: CudaSlice<u8>,
    /// Index in the set of each LZ4 page, in block order.
    lz4_pages: Vec<usize>,
    /// (offset, length) of each LZ4 page's block in `compact`.
    blocks: Vec<(usize, usize)>,
}

pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

/// The decompress kernel on every set's compacted LZ4 blocks, timed (each run scaled to a whole
/// set's page bytes) and then checked: every status OK, every page byte for byte. `None` when no
/// page of any set compressed to LZ4.
fn time_decompress(
    gpu: &Gpu,
    kernel: &CudaKernel,
    name: &str,
    pages: &[Page],
    sets: &Sets,
    runs: Runs,
    bufs: &[SetBuffers],
) -> Result<Option<Figure>> {
    let n = sets.pages_per_set;
    let set_bytes = (n * PAGE_SIZE) as u64;
    let mut seconds = Vec::new();
    let total = (runs.warmup + runs.timed).max(sets.len());
    for run in 0..total {
        let b = &bufs[run % sets.len()];
        let lz4 = b.lz4_pages.len();
        if lz4 == 0 {
            continue;
        }
        let t = gpu.time(|| {
            launch(
                gpu,
                kernel,
                lz4,
                &[&b.compact, &b.spans, &b.decoded, &b.status],
            )
        })?;
        if run >= total - runs.timed {
            seconds.push(t / (lz4 * PAGE_SIZE) as f64 * set_bytes as f64);
        }
    }
    let mut decoded_pages = 0u64;
    for (s, b) in bufs.iter().enumerate() {
        let lz4 = b.lz4_pages.len();
        let decoded = gpu.download(&b.decoded, lz4 * PAGE_SIZE)?;
        let status = words(&gpu.download(&b.status, lz4 * 4)?);
        let set = &pages[sets.range(s)];
        decoded_pages += par_check(lz4, |range| {
            let mut ok = 0u64;
            for k in range {
                let i = b.lz4_pages[k];
                if status[k] & 0xff != decode_status::OK {
                    bail!(
                        "{name} decompress, set {s}: page {i}: status {:#x}",
                        status[k]
                    );
                }
                if decoded[k * PAGE_SIZE..(k + 1) * PAGE_SIZE] != set[i] {
                    bail!("{name} decompress, set {s}: page {i} decodes to a different page");
                }
                ok += 1;
            }
            Ok(ok)
        })?;
    }
    if seconds.is_empty() {
        return Ok(None);
    }
    Ok(Some(Figure {
        backend: name.into(),
        op: "decompress".into(),
        scope: Scope::DeviceResident,
        clock: "CUDA events".into(),
        bytes: set_bytes,
        seconds,
        ratio: None,
        fallback_pages: Some(0),
        verified_pages: decoded_pages,
        note: "decodes the level's compacted LZ4 blocks (raw and same-filled pages need no kernel); \
               each run's time scaled to a whole set's page bytes; every page compared byte for byte"
            .into(),
    }))
}

/// Every level's three kernels on the sets; figures into `report`.
pub fn run(gpu: &Gpu, pages: &[Page], sets: &Sets, runs: Runs, report: &mut Report) -> Result<()> {
    let n = sets.pages_per_set;
    let set_bytes = (n * PAGE_SIZE) as u64;
    let compact = load(gpu, &Lz4CompactKernel::new(n))?;
    let decompress = load(gpu, &Lz4WarpDecompressKernel::new(n))?;
    let one_at_a_time = load_ir(
        gpu,
        &lz4_decompress_kernel_one_at_a_time(warps_per_block(Backend::Cuda)),
    )?;
    // The compress kernel's working memory: one buffer, since the launches run one after another.
    let scratch: CudaSlice<u8> = gpu.zeros(compress_scratch_bytes(Lz4Level::DEFAULT, n))?;
    let mut bufs = (0..sets.len())
        .map(|_| {
            Ok(SetBuffers {
                slots: gpu.zeros(n * PAGE_SIZE)?,
                meta: gpu.zeros(n * 16)?,
                offsets: gpu.zeros(n * 4)?,
                compact: gpu.zeros(n * PAGE_SIZE)?,
                spans: gpu.zeros(n * 8)?,
                decoded: gpu.zeros(n * PAGE_SIZE)?,
                status: gpu.zeros(n * 4)?,
                lz4_pages: Vec::new(),
                blocks: Vec::new(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    for level in Lz4Level::ALL {
        let name = format!("warpforge CUDA L{}", level.number());
        let kernel = load(gpu, &Lz4WarpCompressKernel::at_level(n, level))?;
        let seconds = timed(gpu, sets.len(), runs, |s| {
            launch(
                gpu,
                &kernel,
                n,
                &[&sets.inputs[s], &bufs[s].slots, &bufs[s].meta, &scratch],
            )
        })?;
        // Every set's output, downloaded once and checked; the offsets and spans for the next kernels.
        let mut checked = Checked::default();
        // The default level's outputs, for the from-input kernel's row to be compared with.
        let mut written = Vec::new();
        for (s, b) in bufs.iter_mut().enumerate() {
            let slots = gpu.download(&b.slots, n * PAGE_SIZE)?;
            let meta = words(&gpu.download(&b.meta, n * 16)?);
            let c = check_compressed(&pages[sets.range(s)], &slots, &meta)
                .with_context(|| format!("{name} compress, set {s}"))?;
            checked += c;
            let (mut offsets, mut spans) = (Vec::with_capacity(n), Vec::new());
            b.lz4_pages.clear();
            b.blocks.clear();
            let mut total = 0usize;
            for i in 0..n {
                offsets.push(total as u32);
                if let PageMeta::Lz4(len) = meta_of(&meta, i)? {
                    b.lz4_pages.push(i);
                    b.blocks.push((total, len));
                    spans.extend_from_slice(&[total as u32, len as u32]);
                    total += len;
                }
            }
            let bytes = |w: &[u32]| w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
            gpu.stream
                .memcpy_htod(&bytes(&offsets), &mut b.offsets)
                .context("cuMemcpyHtoD(offsets)")?;
            let spans = bytes(&spans);
            if !spans.is_empty() {
                gpu.stream
                    .memcpy_htod(&spans, &mut b.spans.slice_mut(..spans.len()))
                    .context("cuMemcpyHtoD(spans)")?;
            }
            if level == Lz4Level::DEFAULT {
                written.push(from_input::Written { slots, meta });
            }
        }
        gpu.sync()?;
        let total_pages = (n * sets.len()) as u64;
        let ratio = Some((total_pages * PAGE_SIZE as u64) as f64 / checked.payload as f64);
        report.figures.push(Figure {
            backend: name.clone(),
            op: "compress".into(),
            scope: Scope::DeviceResident,
            clock: "CUDA events".into(),
            bytes: set_bytes,
            seconds,
            ratio,
            fallback_pages: Some(0),
            verified_pages: checked.pages,
            note: format!(
                "{level}; {} of {total_pages} pages LZ4, the rest raw or same-filled; every LZ4 block decoded by lz4_flex",
                checked.lz4
            ),
        });
        if level == Lz4Level::DEFAULT {
            // The same kernel without its shared copy of the page, beside it: what occupancy buys.
            let figure = from_input::run(gpu, sets, runs, &scratch, &written, ratio)
                .context("warpforge CUDA L2 (page read from input)")?;
            report.figures.push(figure);
        }

        let seconds = timed(gpu, sets.len(), runs, |s| {
            let b = &bufs[s];
            launch(
                gpu,
                &compact,
                n,
                &[&b.slots, &b.meta, &b.offsets, &b.compact],
            )
        })?;
        let mut compacted = 0u64;
        for (s, b) in bufs.iter().enumerate() {
            let slots = gpu.download(&b.slots, n * PAGE_SIZE)?;
            let total = b.blocks.last().map_or(0, |&(o, l)| o + l);
            let out = gpu.download(&b.compact, total)?;
            for (k, &(off, len)) in b.blocks.iter().enumerate() {
                let i = b.lz4_pages[k];
                if out[off..off + len] != slots[i * PAGE_SIZE..i * PAGE_SIZE + len] {
                    bail!("{name} compact, set {s}: page {i}'s block differs from its slot");
                }
            }
            compacted += b.blocks.len() as u64;
        }
        report.figures.push(Figure {
            backend: name.clone(),
            op: "compact".into(),
            scope: Scope::DeviceResident,
            clock: "CUDA events".into(),
            bytes: set_bytes,
            seconds,
            ratio: None,
            fallback_pages: Some(0),
            verified_pages: compacted,
            note:
                "moves each LZ4 block from its 4 KiB slot to its offset (the batch API's download \
                   step); GB/s over all pages of the set; verified: blocks equal to their slots"
                    .into(),
        });

        let Some(figure) = time_decompress(gpu, &decompress, &name, pages, sets, runs, &bufs)?
        else {
            report
                .skipped
                .push(format!("{name} decompress: no page compressed to LZ4"));
            continue;
        };
        report.figures.push(figure);
        if level == Lz4Level::DEFAULT {
            // The same blocks through the kernel without its window parse: what the window buys.
            let one = format!("{name} (one sequence at a time)");
            if let Some(mut figure) =
                time_decompress(gpu, &one_at_a_time, &one, pages, sets, runs, &bufs)?
            {
                figure.note = format!(
                    "the decompress kernel without its window parse (lz4_decompress_kernel_one_at_a_time) \
                     on the same blocks, beside the row above; {}",
                    figure.note
                );
                report.figures.push(figure);
            }
        }
    }
    Ok(())
}
