//! `cp.async.bulk` (global to shared, completing on an mbarrier), as nvcc 13 writes
//! `cuda::memcpy_async` of a whole block on sm_90: the tile arrives, the waiting threads read it,
//! and the sanitizer sees what goes wrong — reading before the wait, a size that is not a
//! multiple of 16, a source past its buffer.

use warpforge_sim::ptx::{run, PtxArg, PtxKernel, PtxLaunch};
use warpforge_sim::{BufferArg, FindingKind, SimOptions, SimReport};

const BULK: &str = include_str!("../fixtures/bulk/bulk_copy.sm90.ptx");

fn launch(text: &str, input_floats: usize, sanitize: bool) -> (Vec<f32>, SimReport) {
    let kernel = PtxKernel::load(text, "bulk_copy").expect("decodes");
    let input: Vec<u8> = (0..input_floats)
        .flat_map(|i| (i as f32).to_le_bytes())
        .collect();
    let mut out = vec![0u8; 512 * 4];
    let mut buffers = [BufferArg::ReadOnly(&input), BufferArg::ReadWrite(&mut out)];
    let shape = PtxLaunch {
        grid: [2, 1, 1],
        block: [256, 1, 1],
        dynamic_shared: 0,
    };
    let options = SimOptions {
        sanitize,
        ..SimOptions::default()
    };
    let report = run(
        &kernel,
        &shape,
        &[PtxArg::Buffer, PtxArg::Buffer],
        &mut buffers,
        &options,
    )
    .expect("launches");
    let out = out
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    (out, report)
}

#[test]
fn a_tile_copied_in_bulk_is_read_after_the_wait() {
    for sanitize in [true, false] {
        let (out, report) = launch(BULK, 512, sanitize);
        assert!(report.is_clean(), "{:?}", report.findings);
        let want: Vec<f32> = (0..512)
            .map(|i| 2.0 * (i / 256 * 256 + 255 - i % 256) as f32)
            .collect();
        assert_eq!(out, want, "sanitizer {sanitize}");
    }
}

#[test]
fn misuse_is_a_finding_with_the_line() {
    let kinds = |r: &SimReport| r.findings.iter().map(|f| f.kind).collect::<Vec<_>>();
    // Reading the tile without waiting for the mbarrier: the copy is not ordered before the reads.
    let no_wait = BULK.replacen("@%p3 bra \t$L__BB0_7;", "", 1);
    assert_ne!(no_wait, BULK);
    let (_, report) = launch(&no_wait, 512, true);
    assert!(
        kinds(&report).contains(&FindingKind::SharedRace),
        "{:?}",
        report.findings
    );
    // 1,000 bytes: not a multiple of 16.
    let odd = BULK.replacen("mov.u32 \t%r21, 1024;", "mov.u32 \t%r21, 1000;", 1);
    assert_ne!(odd, BULK);
    let (_, report) = launch(&odd, 512, true);
    let f = report.errors().next().expect("a finding");
    assert_eq!(f.kind, FindingKind::Misaligned, "{f}");
    assert!(f.to_string().contains("cp.async.bulk"), "{f}");
    // The second block's tile lies past a 1,536-byte input.
    let (_, report) = launch(BULK, 384, true);
    let f = report.errors().next().expect("a finding");
    assert_eq!(f.kind, FindingKind::OutOfBounds, "{f}");
}
