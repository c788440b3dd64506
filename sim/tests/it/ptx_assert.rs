//! Device `assert()` on the PTX simulator: nvcc 13's PTX of `sim/tests/fixtures/assert/
//! checked_scale.cu` (`nvcc -ptx -O3 -std=c++17 -arch=sm_80`), which calls the CUDA runtime's
//! `__assertfail` (declared `.extern`, no body in the module). Inputs that hold the assertion run to
//! the right output with no finding; a negative input is an `assert` finding naming the assertion,
//! the file and line, the function and the failing thread, and the kernel aborts.

use crate::common::ptx::{run_in_out, shape, words};
use warpforge_sim::FindingKind;

fn fixture() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/assert/checked_scale.nvcc13.sm80.ptx");
    std::fs::read_to_string(path).expect("the fixture")
}

fn bytes(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[test]
fn an_assertion_that_holds_changes_nothing() {
    let input: Vec<i32> = (0..100).collect();
    let (report, out) = run_in_out(
        &fixture(),
        "checked_scale",
        &shape(2, 64),
        &bytes(&input),
        128 * 4,
        &[100],
    );
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    let out = words(&out);
    for (i, v) in input.iter().enumerate() {
        assert_eq!(out[i] as i32, 2 * v, "out[{i}]");
    }
    assert!(out[100..].iter().all(|&w| w == 0), "past n: untouched");
}

#[test]
fn a_failed_assertion_is_a_finding_naming_it() {
    let mut input: Vec<i32> = (0..100).collect();
    input[70] = -5;
    let (report, _) = run_in_out(
        &fixture(),
        "checked_scale",
        &shape(2, 64),
        &bytes(&input),
        128 * 4,
        &[100],
    );
    let asserts: Vec<_> = (report.findings.iter())
        .filter(|f| f.kind == FindingKind::Assert)
        .collect();
    assert_eq!(asserts.len(), 1, "{:#?}", report.findings);
    let f = asserts[0];
    // Thread 70 is thread 6 of block 1: warp 0, lane 6.
    assert_eq!((f.block, f.warp, f.lanes), (1, 0, 1 << 6), "{f}");
    for needle in [
        "`assert(in[i] >= 0)`",
        "checked_scale.cu:8",
        "checked_scale",
        "thread 6 of block 1",
        "cudaErrorAssert",
    ] {
        assert!(f.detail.contains(needle), "`{needle}` in {}", f.detail);
    }
    assert!(report.stopped_blocks >= 1, "the block aborts");
}
