//! Every kernel of the repository on the CPU simulator (`sim`) matches a plain Rust implementation of the
//! same computation on fresh random inputs — in both launch shapes (CUDA's four warps per block and
//! WebGPU's one) — and the sanitizer finds nothing in them.

use crate::catalog_cases;
use catalog_cases::{first_difference, strategy, Case};

use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use warpforge::catalog;
use warpforge::ir::{verify, Access, Kernel, ParamKind};
use warpforge::runtime::sim::{self, SimOptions, SimReport};
use warpforge::runtime::BufferArg;

/// Runs `case` on the simulator; the outputs and the report.
fn run_case(
    kernel: &Kernel,
    blocks: u32,
    case: &Case,
) -> Result<(Vec<Vec<u8>>, SimReport), String> {
    let verified = verify(kernel).map_err(|e| e.to_string())?;
    let mut outputs = case.outputs.clone();
    let mut inputs = case.inputs.iter();
    let mut outs = outputs.iter_mut();
    let mut args: Vec<BufferArg<'_>> = Vec::new();
    for (_, param) in kernel.params.iter() {
        if let ParamKind::Buffer { access, .. } = param.kind {
            args.push(match access {
                Access::ReadOnly => BufferArg::ReadOnly(inputs.next().ok_or("too few inputs")?),
                Access::ReadWrite => BufferArg::ReadWrite(outs.next().ok_or("too few outputs")?),
            });
        }
    }
    let report = sim::run(
        &verified,
        blocks,
        &mut args,
        &case.scalars,
        &SimOptions::default(),
    )
    .map_err(|e| e.to_string())?;
    drop(args);
    Ok((outputs, report))
}

/// Blocks of a launch of `kernel` for `case` (built for one warp per block where the shapes differ).
fn blocks_for(kernel: &Kernel, webgpu: &Kernel, case: &Case) -> u32 {
    let per_block = kernel.block_size / webgpu.block_size;
    case.blocks.div_ceil(per_block).max(1)
}

#[test]
fn every_kernel_matches_its_rust_reference_on_sim_with_no_finding() {
    for entry in catalog::entries() {
        let webgpu = entry.webgpu_build();
        for (shape, kernel) in [("cuda", entry.build()), ("webgpu", webgpu.clone())] {
            let cases = std::env::var("PROPTEST_CASES")
                .ok()
                .and_then(|n| n.parse().ok())
                .unwrap_or(12);
            let mut runner = TestRunner::new(ProptestConfig::with_cases(cases));
            let result = runner.run(&strategy(entry.name), |case| {
                let blocks = blocks_for(&kernel, &webgpu, &case);
                let (got, report) =
                    run_case(&kernel, blocks, &case).map_err(TestCaseError::fail)?;
                if let Some(f) = report.findings.first() {
                    return Err(TestCaseError::fail(format!(
                        "{} ({shape}): {f}",
                        entry.name
                    )));
                }
                if let Some(message) = first_difference(entry.name, &got, &case) {
                    return Err(TestCaseError::fail(format!("{message} ({shape} shape)")));
                }
                Ok(())
            });
            if let Err(e) = result {
                panic!("{} ({shape} shape): {e}", entry.name);
            }
        }
    }
}

/// The LZ4 kernels on the simulator, through the codec `compress --backend sim` uses: the 512 sample
/// pages give the records the CPU reference gives, decode back to the pages, and the sanitizer (on by
/// default) has nothing to say about either launch — not even a warning.
#[test]
fn lz4_kernels_on_sim_give_the_reference_archive_on_the_sample_pages_with_no_finding() {
    use warpforge::codec::{KernelCodec, PageCodec, ReferenceCodec};
    let pages = warpforge::sample_pages().expect("the embedded sample pages decode");
    assert_eq!(pages.len(), 512);
    let mut sim = KernelCodec::sim();
    let records = sim.compress(&pages).expect("the simulator compresses");
    let reference = ReferenceCodec::default()
        .compress(&pages)
        .expect("the reference compresses");
    assert_eq!(records.len(), reference.len());
    for (i, (s, r)) in records.iter().zip(&reference).enumerate() {
        assert!(
            s == r,
            "page {i}: sim record {s:?} differs from the reference's {r:?}"
        );
    }
    let report = sim.last_compress_report().expect("a compress launch ran");
    assert!(
        report.findings.is_empty(),
        "compress kernel findings: {:?}",
        report.findings
    );
    assert!(report.counters.warp_instructions() > 0);
    let mut out = vec![[0u8; warpforge::PAGE_SIZE]; pages.len()];
    sim.decompress(&records, &mut out)
        .expect("the simulator decompresses")
        .expect("every block decodes");
    assert!(out == pages, "the round trip on sim changed the pages");
    let report = sim
        .last_decompress_report()
        .expect("a decompress launch ran");
    assert!(
        report.findings.is_empty(),
        "decompress kernel findings: {:?}",
        report.findings
    );
}

/// The other levels' compress kernels on the simulator (sanitizer on): the reference's records at that
/// level on the first 96 sample pages (the whole sample runs at every level on lavapipe, and the
/// development corpus once, docs/lz4.md), with no finding.
#[test]
fn every_lz4_level_on_sim_gives_the_reference_records_with_no_finding() {
    use warpforge::codec::{KernelCodec, PageCodec, ReferenceCodec};
    use warpforge::kernels::lz4::Lz4Level;
    use warpforge::runtime::{sim::SimOptions, Launcher};
    let pages = warpforge::sample_pages().expect("the embedded sample pages decode");
    let pages = &pages[..96];
    for level in [Lz4Level::FAST, Lz4Level::HIGH] {
        let mut sim = KernelCodec::at_level(Launcher::Sim(SimOptions::default()), level)
            .expect("the kernels load on the simulator");
        let records = sim.compress(pages).expect("the simulator compresses");
        let reference = ReferenceCodec::at_level(level)
            .compress(pages)
            .expect("the reference compresses");
        for (i, (s, r)) in records.iter().zip(&reference).enumerate() {
            assert!(s == r, "{level}, page {i}: sim {s:?} differs from {r:?}");
        }
        let report = sim.last_compress_report().expect("a compress launch ran");
        assert!(report.findings.is_empty(), "{level}: {:?}", report.findings);
    }
}
