//! Host-to-host figures on the host clock: the public `GpuBatchCompressor` (CUDA at every level, and
//! WebGPU), and lz4_flex on every core (`CpuCodec`, the `cpu` row of `warpforge bench`). Every record
//! is checked (LZ4 blocks decoded by lz4_flex, same-filled patterns, raw pages) and every page that
//! comes back compared byte for byte.

use std::time::Instant;

use anyhow::{bail, Context, Result};
use warpforge::archive::{PackedRecords, Record};
use warpforge::codec::{CpuCodec, PageCodec};
use warpforge::gpu::{GpuBackend, GpuBatchCompressor, GpuBatchConfig};
use warpforge::kernels::lz4::{same_filled_pattern, Lz4Level};
use warpforge::{Algorithm, PAGE_SIZE};

use crate::gpu::{par_check, Page};
use crate::report::{Figure, Report, Scope};

/// Every record reproduces its page; returns (pages checked, payload bytes).
fn check_records(pages: &[Page], records: &[Record]) -> Result<(u64, u64)> {
    if records.len() != pages.len() {
        bail!("{} records for {} pages", records.len(), pages.len());
    }
    let payload = par_check(pages.len(), |range| {
        let mut payload = 0u64;
        for i in range {
            payload += match &records[i] {
                Record::Lz4(block) => {
                    let d = lz4_flex::block::decompress(block, PAGE_SIZE)
                        .map_err(|e| anyhow::anyhow!("page {i}: lz4_flex: {e}"))?;
                    if d != pages[i] {
                        bail!("page {i}: the LZ4 block decodes to a different page");
                    }
                    block.len() as u64
                }
                Record::SameFilled(p) => {
                    if same_filled_pattern(&pages[i]) != Some(*p) {
                        bail!("page {i}: wrong same-filled pattern");
                    }
                    8
                }
                Record::Raw(raw) => {
                    if raw[..] != pages[i] {
                        bail!("page {i}: the raw record is not the page");
                    }
                    PAGE_SIZE as u64
                }
            };
        }
        Ok(payload)
    })?;
    Ok((pages.len() as u64, payload))
}

/// Every page of `b` equals the same page of `a`; returns the pages compared.
pub fn same_pages(a: &[Page], b: &[Page]) -> Result<u64> {
    if a.len() != b.len() {
        bail!("{} pages came back for {}", b.len(), a.len());
    }
    par_check(a.len(), |range| {
        for i in range.clone() {
            if a[i] != b[i] {
                bail!("page {i} came back different");
            }
        }
        Ok(range.len() as u64)
    })
}

/// `compressor` on all of `pages`: one warm-up call on the first batch, then `runs` timed whole calls
/// each way; with `registered`, the same on the caller's registered pages too
/// (`registered::batch_api`). Figures labelled `name`.
fn batch_api(
    name: &str,
    mut compressor: GpuBatchCompressor,
    (pages, registered): (&[Page], bool),
    runs: usize,
    report: &mut Report,
) -> Result<()> {
    let bytes = (pages.len() * PAGE_SIZE) as u64;
    let warm = &pages[..pages.len().min(compressor.config().batch_size)];
    let records = compressor.compress_batch(warm)?.pages;
    compressor.decompress_batch(&records)?;
    // The page-locked pages of the pool, allocated untimed: the input pages of the second compress
    // figure (filled untimed, as a reader fills them) and, given back, decompress_batch's output.
    let mut input = compressor.host_pages(pages.len())?;
    input.copy_from_slice(pages);
    drop(compressor.host_pages(pages.len())?);
    let before = compressor.stats().cpu_fallback_pages;
    let (mut cs, mut ds, mut kernel_ns, mut last) = (Vec::new(), Vec::new(), Vec::new(), None);
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let result = compressor.compress_batch(pages)?;
        cs.push(t.elapsed().as_secs_f64());
        kernel_ns.push(result.kernel_time_ns);
        last = Some(result);
    }
    let result = last.context("no run")?;
    let fell_back = compressor.stats().cpu_fallback_pages - before;
    let (checked, payload) = check_records(pages, &result.pages)?;
    let before_locked = compressor.stats().cpu_fallback_pages;
    let mut locked_s = Vec::new();
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let locked = compressor.compress_batch(&input)?;
        locked_s.push(t.elapsed().as_secs_f64());
        if locked.pages != result.pages {
            bail!(
                "compress_batch of host pages gave other records than of the same pages in a Vec"
            );
        }
    }
    let fell_back_locked = compressor.stats().cpu_fallback_pages - before_locked;
    // The packed API on the same host pages: the same launches, the records packed into two reused
    // buffers instead of one allocation each (what compress_batch's owned records cost beside it).
    let mut packed = PackedRecords::new();
    compressor.compress_into(&input, &mut packed)?;
    let before_packed = compressor.stats().cpu_fallback_pages;
    let mut packed_s = Vec::new();
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        compressor.compress_into(&input, &mut packed)?;
        packed_s.push(t.elapsed().as_secs_f64());
    }
    let fell_back_packed = compressor.stats().cpu_fallback_pages - before_packed;
    if !packed.iter().eq(result.pages.iter().map(Record::view)) {
        bail!(
            "compress_into of host pages gave other records than compress_batch of the same pages"
        );
    }
    drop(input);
    let before_d = compressor.stats().cpu_fallback_pages;
    let mut back = None;
    for _ in 0..runs.max(1) {
        drop(back.take()); // its memory back to the pool before the next call
        let t = Instant::now();
        back = Some(compressor.decompress_batch(&result.pages)?);
        ds.push(t.elapsed().as_secs_f64());
    }
    let same = same_pages(pages, back.as_deref().context("no run")?)?;
    let fell_back_d = compressor.stats().cpu_fallback_pages - before_d;
    kernel_ns.sort_unstable();
    let k = kernel_ns[kernel_ns.len() / 2] as f64 / 1e9;
    report.figures.push(Figure {
        backend: name.into(),
        op: "compress".into(),
        scope: Scope::HostToHost,
        clock: "host clock".into(),
        bytes,
        seconds: cs,
        ratio: Some(bytes as f64 / payload as f64),
        fallback_pages: Some(fell_back),
        verified_pages: checked,
        note: format!(
            "whole compress_batch calls ({} pages, batch {}; fallback counts every timed call); median kernel time inside them {:.3} ms \
             ({}, {:.2} GB/s); H2D {:.3} ms, D2H {:.3} ms ({}) in the last call",
            pages.len(),
            compressor.config().batch_size,
            k * 1e3,
            result.kernel_clock,
            bytes as f64 / k / 1e9,
            result.h2d_time_ns as f64 / 1e6,
            result.d2h_time_ns as f64 / 1e6,
            result.transfer_clock
        ),
    });
    report.figures.push(Figure {
        backend: format!("{name}, input in host_pages"),
        op: "compress".into(),
        scope: Scope::HostToHost,
        clock: "host clock".into(),
        bytes,
        seconds: locked_s,
        ratio: Some(bytes as f64 / payload as f64),
        fallback_pages: Some(fell_back_locked),
        verified_pages: checked,
        note: "whole compress_batch calls on the same pages in the compressor's page-locked host_pages \
               (uploaded without the staging copy; filled untimed); records compared with the row above's"
            .into(),
    });
    report.figures.push(Figure {
        backend: format!("{name}, compress_into (packed), input in host_pages"),
        op: "compress".into(),
        scope: Scope::HostToHost,
        clock: "host clock".into(),
        bytes,
        seconds: packed_s,
        ratio: Some(bytes as f64 / payload as f64),
        fallback_pages: Some(fell_back_packed),
        verified_pages: checked,
        note: "whole compress_into calls on the same host_pages, the records packed into two buffers reused \
               from call to call (no allocation per record); after a warm-up call; the last call's records \
               compared with compress_batch's: the row above less the owned records' cost"
            .into(),
    });
    report.figures.push(Figure {
        backend: name.into(),
        op: "decompress".into(),
        scope: Scope::HostToHost,
        clock: "host clock".into(),
        bytes,
        seconds: ds,
        ratio: None,
        fallback_pages: Some(fell_back_d),
        verified_pages: same,
        note: "whole decompress_batch calls, output in the compressor's page-locked host_pages (downloaded \
               into directly; the previous call's pages given back before each call); every page compared \
               byte for byte; fallback counts every timed call"
            .into(),
    });
    drop(back);
    if !registered {
        return Ok(());
    }
    let checked = (
        pages,
        result.pages.as_slice(),
        bytes as f64 / payload as f64,
    );
    crate::registered::batch_api(name, &mut compressor, checked, runs, report)
}

/// The CUDA batch API at every level.
pub fn cuda(pages: &[Page], runs: usize, report: &mut Report) -> Result<()> {
    for level in Lz4Level::ALL {
        let config = GpuBatchConfig {
            algorithm: Algorithm::Lz4Level(level),
            ..GpuBatchConfig::default()
        };
        let compressor = GpuBatchCompressor::new(config)
            .with_context(|| format!("GpuBatchCompressor::new at {level}"))?;
        let name = format!("warpforge batch API CUDA L{}", level.number());
        batch_api(&name, compressor, (pages, true), runs, report).with_context(|| name.clone())?;
    }
    Ok(())
}

/// The WebGPU batch API at the default level, refused on a software adapter (it would not be the GPU).
pub fn webgpu(pages: &[Page], runs: usize, report: &mut Report) -> Result<()> {
    let compressor = match GpuBatchCompressor::with_backend(
        GpuBatchConfig::default(),
        GpuBackend::WebGpu,
    ) {
        Ok(c) => c,
        Err(e) => {
            report.skipped.push(format!(
                    "WebGPU: no adapter could be opened ({e}); on the GPU machine carry .gl (the Vulkan \
                     loader, docs/gpu.md)"
                ));
            return Ok(());
        }
    };
    // How the runtime lowers warps on this adapter (its own device, measured the same way), and
    // every warp collective on it against the simulator, lane by lane.
    let warps = warpforge::auto::webgpu_requirements()
        .map_err(|e| e.to_string())
        .and_then(|req| {
            warpforge::runtime::webgpu::WebGpuDevice::new(&req).map_err(|e| e.to_string())
        })
        .map(|device| {
            let (lowering, why) = device.warp_choice();
            let checked = collectives_match_the_simulator(device);
            report.set(
                "webgpu_collectives",
                match &checked {
                    Ok(n) => format!("{n} lanes of every collective identical to the simulator"),
                    Err(e) => format!("FAILED: {e}"),
                },
            );
            if let Err(e) = checked {
                report
                    .failures
                    .push(format!("WebGPU warp collectives ({lowering}): {e}"));
            }
            format!("{lowering} ({why})")
        })
        .unwrap_or_else(|e| format!("unknown ({e})"));
    report.set("webgpu_warps", warps.clone());
    let adapter = compressor.device().name;
    let lower = adapter.to_lowercase();
    if ["llvmpipe", "lavapipe", "swiftshader", "software"]
        .iter()
        .any(|s| lower.contains(s))
    {
        report.skipped.push(format!(
            "WebGPU: the adapter is `{adapter}`, a software rasterizer, not the GPU (is the NVIDIA Vulkan \
             driver visible? carry .gl and set VK_DRIVER_FILES, docs/gpu.md)"
        ));
        return Ok(());
    }
    report.set("webgpu_adapter", adapter);

    let short = if warps.starts_with("native") {
        "subgroups"
    } else {
        "warps emulated"
    };
    let name = format!(
        "warpforge batch API WebGPU L{} ({short})",
        Lz4Level::DEFAULT.number()
    );
    // Not on the caller's registered pages: WebGPU registers nothing, and its calls are the
    // slowest of the bench.
    batch_api(&name, compressor, (pages, false), runs, report)
}

/// lz4_flex on every core, both ways.
pub fn lz4_flex(pages: &[Page], runs: usize, report: &mut Report) -> Result<()> {
    let bytes = (pages.len() * PAGE_SIZE) as u64;
    let mut codec = CpuCodec;
    let mut records = codec.compress(pages)?;
    let (mut cs, mut ds) = (Vec::new(), Vec::new());
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        records = codec.compress(pages)?;
        cs.push(t.elapsed().as_secs_f64());
    }
    let (checked, payload) = check_records(pages, &records)?;
    let mut out = vec![[0u8; PAGE_SIZE]; pages.len()];
    for _ in 0..runs.max(1) + 1 {
        let t = Instant::now();
        codec
            .decompress(&records, &mut out)?
            .map_err(|e| anyhow::anyhow!("page {}: {}", e.index, e.detail))?;
        ds.push(t.elapsed().as_secs_f64());
    }
    ds.remove(0); // the first touches the output's fresh memory
    let same = same_pages(pages, &out)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let name = format!("lz4_flex ({cores} threads)");
    for (op, seconds, ratio, verified) in [
        ("compress", cs, Some(bytes as f64 / payload as f64), checked),
        ("decompress", ds, None, same),
    ] {
        report.figures.push(Figure {
            ratio,
            verified_pages: verified,
            note: "CpuCodec (`warpforge bench`'s cpu row): pages in host memory, every core".into(),
            ..Figure::host_to_host(&name, op, bytes, seconds)
        });
    }
    Ok(())
}

/// The `warp-collectives` sample (every collective, every lane's result stored; two warps per
/// block, so both halves of a 64-wide subgroup) on `device` as the runtime lowers it, against the IR
/// simulator; returns the lanes compared.
fn collectives_match_the_simulator(
    device: warpforge::runtime::webgpu::WebGpuDevice,
) -> Result<usize> {
    use warpforge::ir::samples::{warp_collectives, WARP_COLLECTIVE_OUTPUTS};
    use warpforge::runtime::sim::SimOptions;
    use warpforge::runtime::{BufferArg, Launcher};
    let kernel = warp_collectives();
    let verified = warpforge::ir::verify(&kernel).map_err(|e| anyhow::anyhow!("{e}"))?;
    let blocks = 64u32;
    let lanes = (blocks * kernel.block_size) as usize;
    let input: Vec<u8> = (0..lanes as u32)
        .flat_map(|t| (t.wrapping_mul(0x9e37_79b9) ^ (t >> 3)).to_le_bytes())
        .collect();
    let run = |launcher: &Launcher| -> Result<Vec<u8>> {
        let loaded = launcher.load(&verified)?;
        let mut out = vec![0u8; lanes * WARP_COLLECTIVE_OUTPUTS as usize * 4];
        let mut args = [BufferArg::ReadOnly(&input), BufferArg::ReadWrite(&mut out)];
        launcher.launch(&loaded, blocks, &mut args, &[])?;
        Ok(out)
    };
    let gpu = run(&Launcher::WebGpu(device))?;
    let sim = run(&Launcher::Sim(SimOptions::default()))?;
    if let Some(i) = (0..gpu.len() / 4).find(|&i| gpu[4 * i..4 * i + 4] != sim[4 * i..4 * i + 4]) {
        let per = WARP_COLLECTIVE_OUTPUTS as usize;
        bail!(
            "thread {}, output {}: {:#x} on WebGPU, {:#x} on the simulator",
            i / per,
            i % per,
            u32::from_le_bytes(gpu[4 * i..4 * i + 4].try_into().expect("4 bytes")),
            u32::from_le_bytes(sim[4 * i..4 * i + 4].try_into().expect("4 bytes"))
        );
    }
    Ok(lanes)
}
