//! Every kernel of the repository as its emitted PTX on the PTX simulator (`ptx-sim`) for sm_70, sm_80
//! and sm_90 gives byte for byte what the IR simulator gives — in both launch shapes (CUDA's four
//! warps per block and WebGPU's one), with no sanitizer finding on either — on fresh random inputs,
//! and the LZ4 kernels do on the real sample pages (compressed through the same codec as
//! `compress --backend sim`, then decompressed).

use crate::catalog_cases;
use catalog_cases::{first_difference, strategy, Case};

use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use warpforge::catalog;
use warpforge::codec::{KernelCodec, PageCodec};
use warpforge::ir::{verify, Access, Kernel, ParamKind};
use warpforge::ptx::Sm;
use warpforge::runtime::sim::{SimOptions, SimReport};
use warpforge::runtime::{BufferArg, Launcher};

/// Runs `case` on `launcher`; the outputs and the report.
fn run_case(
    launcher: &Launcher,
    kernel: &Kernel,
    blocks: u32,
    case: &Case,
) -> Result<(Vec<Vec<u8>>, SimReport), String> {
    let verified = verify(kernel).map_err(|e| e.to_string())?;
    let loaded = launcher.load(&verified).map_err(|e| e.to_string())?;
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
    let launched = launcher
        .launch(&loaded, blocks, &mut args, &case.scalars)
        .map_err(|e| e.to_string())?;
    drop(args);
    Ok((outputs, launched.sim.ok_or("a simulator report")?))
}

#[test]
fn every_kernel_on_ptx_sim_equals_the_ir_simulator_with_no_finding() {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        // 4 fresh cases a run (PROPTEST_CASES for more): each runs every kernel in both shapes on the
        // IR simulator and on ptx-sim for three targets, 216 simulated launches.
        .unwrap_or(4);
    let ir = Launcher::Sim(SimOptions::default());
    for entry in catalog::entries() {
        let webgpu = entry.webgpu_build();
        for (shape, kernel) in [("cuda", entry.build()), ("webgpu", webgpu.clone())] {
            let per_block = kernel.block_size / webgpu.block_size;
            let mut runner = TestRunner::new(ProptestConfig::with_cases(cases));
            let result = runner.run(&strategy(entry.name), |case| {
                let blocks = case.blocks.div_ceil(per_block).max(1);
                let (want, report) =
                    run_case(&ir, &kernel, blocks, &case).map_err(TestCaseError::fail)?;
                if let Some(f) = report.findings.first() {
                    return Err(TestCaseError::fail(format!("sim: {f}")));
                }
                if let Some(m) = first_difference(entry.name, &want, &case) {
                    return Err(TestCaseError::fail(format!("sim: {m}")));
                }
                for sm in Sm::ALL {
                    let ptx = Launcher::PtxSim(SimOptions::default(), sm);
                    let (got, report) =
                        run_case(&ptx, &kernel, blocks, &case).map_err(TestCaseError::fail)?;
                    if let Some(f) = report.findings.first() {
                        return Err(TestCaseError::fail(format!("ptx-sim {sm}: {f}")));
                    }
                    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
                        if let Some(at) = (0..w.len()).find(|&b| w[b] != g[b]) {
                            return Err(TestCaseError::fail(format!(
                                "ptx-sim {sm}: output {i} differs from sim at byte {at}"
                            )));
                        }
                    }
                }
                Ok(())
            });
            if let Err(e) = result {
                panic!("{} ({shape} shape): {e}", entry.name);
            }
        }
    }
}

/// The LZ4 kernels' PTX on the sample pages (the first 256 for sm_70, the first 64 for sm_80 and
/// sm_90): the records the IR simulator gives, back to the pages, and no finding. (All 512 go through
/// `compress`/`decompress --backend ptx-sim` in `.ci/run`, byte-identical to the reference.) The IR simulator's
/// records are the CPU reference's (`sim::lz4_kernels_on_sim_give_the_reference_archive_on_the_sample_pages_with_no_finding`
/// proves it on these pages), so they are taken from the reference, not simulated a second time.
#[test]
fn lz4_kernels_on_ptx_sim_give_the_simulators_records_on_the_sample_pages() {
    use warpforge::codec::ReferenceCodec;
    let pages = warpforge::sample_pages().expect("the embedded sample pages decode");
    assert_eq!(pages.len(), 512);
    let records = ReferenceCodec::default()
        .compress(&pages)
        .expect("the reference compresses");
    for (sm, count) in [(Sm::Sm70, 256), (Sm::Sm80, 64), (Sm::Sm90, 64)] {
        let pages = &pages[..count];
        let launcher = Launcher::PtxSim(SimOptions::default(), sm);
        let mut codec = KernelCodec::new(launcher).expect("the kernels load on ptx-sim");
        let got = codec.compress(pages).expect("ptx-sim compresses");
        for (i, (g, w)) in got.iter().zip(&records).enumerate() {
            assert!(g == w, "{sm} page {i}: ptx-sim {g:?}, sim {w:?}");
        }
        let report = codec.last_compress_report().expect("a compress launch");
        assert!(report.findings.is_empty(), "{sm}: {:?}", report.findings);
        let mut out = vec![[0u8; warpforge::PAGE_SIZE]; pages.len()];
        codec
            .decompress(&got, &mut out)
            .expect("ptx-sim decompresses")
            .expect("every block decodes");
        assert!(out == pages, "{sm}: the round trip changed the pages");
        let report = codec.last_decompress_report().expect("a decompress launch");
        assert!(report.findings.is_empty(), "{sm}: {:?}", report.findings);
        assert!(report.counters.warp_instructions() > 0);
    }
}

/// Lanes that `continue` a loop whose other lanes may still `break` after them: their branch's
/// immediate post-dominator is after the loop, yet the IR has every lane meet at the loop's
/// full-mask shuffle again, and so does PTX, whose `shfl.sync` waits for the lanes of its mask.
/// The PTX simulator lets the sibling path run to the shuffle instead of reporting the mask.
const CONTINUE_THEN_BREAK: &str = "\
kernel continue_then_break {
    block_size 64
    param out: global u32 read_write
    local i: u32
    local acc: u32
    %0: u32 = special thread_index
    %1: u32 = const 0
    %2: u32 = const 1
    %3: u32 = const 4
    %4: u32 = special lane_id
    set i = %1
    set acc = %0
    loop {
        %5: u32 = local acc
        %6: u32 = shuffle xor %5, %2 mask 0xffffffff
        %7: u32 = add %5, %6
        set acc = %7
        %8: u32 = local i
        %9: u32 = add %8, %2
        set i = %9
        %10: bool = cmp ge %9, %3
        if %10 {
            break
        }
        %11: u32 = and %4, %2
        %12: bool = cmp eq %11, %1
        if %12 {
            continue
        }
        %13: u32 = local acc
        %14: u32 = mul %13, %3
        set acc = %14
        %15: u32 = const 1000000000
        %16: bool = cmp gt %14, %15
        if %16 {
            break
        }
    }
    %17: u32 = local acc
    store global out[%0], %17
}";

#[test]
fn lanes_that_continue_meet_the_others_at_the_loops_shuffle_on_ptx_sim() {
    let kernel = warpforge::ir::parse_kernel(CONTINUE_THEN_BREAK).expect("parses");
    let verified = verify(&kernel).expect("verifies");
    let mut want = vec![0u8; 64 * 4];
    let sim = Launcher::Sim(SimOptions::default());
    let loaded = sim.load(&verified).expect("loads");
    let report = sim
        .launch(&loaded, 1, &mut [BufferArg::ReadWrite(&mut want)], &[])
        .expect("runs")
        .sim
        .expect("a report");
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    for sm in Sm::ALL {
        let ptx = Launcher::PtxSim(SimOptions::default(), sm);
        let loaded = ptx.load(&verified).expect("loads");
        let text = loaded.ptx_text().expect("PTX").to_owned();
        let mut got = vec![0u8; 64 * 4];
        let report = ptx
            .launch(&loaded, 1, &mut [BufferArg::ReadWrite(&mut got)], &[])
            .expect("runs")
            .sim
            .expect("a report");
        assert!(
            report.findings.is_empty(),
            "{sm}: {:?}\n{text}",
            report.findings
        );
        assert!(got == want, "{sm}: ptx-sim and sim differ");
        assert!(
            report.counters.simt_efficiency() < 1.0,
            "the lanes did diverge"
        );
    }
}
