//! Host-to-host figures on the caller's own pages registered with the compressor
//! (`GpuBatchCompressor::register`: `cuMemHostRegister` on CUDA), registered once before the timed
//! calls and the registration's own time reported beside them: `compress_batch` uploads from the
//! pages where they are, `decompress_into` downloads straight into them. Every record is compared
//! with those of the same pages in a `Vec` and every decoded page with its input.

use std::time::Instant;

use anyhow::{bail, Result};
use warpforge::archive::Record;
use warpforge::gpu::GpuBatchCompressor;
use warpforge::PAGE_SIZE;

use crate::gpu::Page;
use crate::report::{Figure, Report};

/// `runs` timed calls each way on registered copies of `pages`; `want` are the records of the same
/// pages in a `Vec` (already checked against the pages, compressing at `ratio`). Figures labelled
/// `name`.
pub fn batch_api(
    name: &str,
    compressor: &mut GpuBatchCompressor,
    (pages, want, ratio): (&[Page], &[Record], f64),
    runs: usize,
    report: &mut Report,
) -> Result<()> {
    let bytes = (pages.len() * PAGE_SIZE) as u64;
    let mut caller_in = pages.to_vec();
    let mut caller_out = vec![[0u8; PAGE_SIZE]; pages.len()];
    // A refused registration is this section's failure, reported; the other sections still run.
    let mut refused = |what: &str, e: warpforge::gpu::GpuError| {
        report.failures.push(format!(
            "{name}: registering the caller's {what} pages: {e}"
        ));
        Ok(())
    };
    let t = Instant::now();
    let input = match compressor.register(&mut caller_in) {
        Ok(input) => input,
        Err(e) => return refused("input", e),
    };
    let register_in_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let mut output = match compressor.register(&mut caller_out) {
        Ok(output) => output,
        Err(e) => return refused("output", e),
    };
    let register_out_s = t.elapsed().as_secs_f64();
    let in_place = input.in_place() && output.in_place();
    let before = compressor.stats().cpu_fallback_pages;
    let mut cs = Vec::new();
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let result = compressor.compress_batch(&input)?;
        cs.push(t.elapsed().as_secs_f64());
        if result.pages != want {
            bail!("compress_batch of registered pages gave other records than of the same pages in a Vec");
        }
    }
    let fell_back = compressor.stats().cpu_fallback_pages - before;
    let before = compressor.stats().cpu_fallback_pages;
    let mut ds = Vec::new();
    for _ in 0..runs.max(1) {
        output.iter_mut().for_each(|p| p.fill(0xa5)); // untimed: every page must be written again
        let t = Instant::now();
        compressor.decompress_into(&want, &mut output)?;
        ds.push(t.elapsed().as_secs_f64());
    }
    let verified = crate::host::same_pages(pages, &output)?;
    let fell_back_d = compressor.stats().cpu_fallback_pages - before;
    drop((input, output));
    let gib = bytes as f64 / f64::from(1u32 << 30);
    let registration = format!(
        "registered once before the timed calls ({}): {:.1} ms for the input, {:.1} ms for the output \
         ({:.1} / {:.1} ms per GiB)",
        if in_place { "in place" } else { "nothing to register on this backend" },
        register_in_s * 1e3,
        register_out_s * 1e3,
        register_in_s * 1e3 / gib,
        register_out_s * 1e3 / gib,
    );
    report.figures.push(Figure {
        ratio: Some(ratio),
        fallback_pages: Some(fell_back),
        verified_pages: pages.len() as u64,
        note: format!(
            "whole compress_batch calls on the caller's pages in a Vec, {registration}; records \
             compared with those of the same pages unregistered"
        ),
        ..Figure::host_to_host(
            &format!("{name}, caller's pages registered"),
            "compress",
            bytes,
            cs,
        )
    });
    report.figures.push(Figure {
        fallback_pages: Some(fell_back_d),
        verified_pages: verified,
        note: format!(
            "whole decompress_into calls (owned records in) into the caller's pages in a Vec, \
             {registration}; every page compared byte for byte after the last call"
        ),
        ..Figure::host_to_host(
            &format!("{name}, caller's pages registered"),
            "decompress",
            bytes,
            ds,
        )
    });
    Ok(())
}
