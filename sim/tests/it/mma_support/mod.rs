//! Shared by the matrix-instruction tests (`ptx_mma.rs`, `ptx_ldmatrix.rs`, `ptx_mma_nvcc.rs`):
//! the numpy-computed cases of `fixtures/mma/expected.json` (written by `make_expected.py`), a
//! launch that insists on a clean report, and the tolerance of float results.
#![allow(dead_code)]

use std::sync::OnceLock;

use serde_json::Value;
use warpforge_sim::ptx::{self, PtxArg, PtxKernel, PtxLaunch};
use warpforge_sim::{BufferArg, SimOptions, SimReport};

/// Case `name` of `fixtures/mma/expected.json`.
pub fn case(name: &str) -> &'static Value {
    static ALL: OnceLock<Value> = OnceLock::new();
    let all = ALL.get_or_init(|| {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/mma/expected.json"
        );
        let text = std::fs::read_to_string(path).expect("expected.json");
        serde_json::from_str(&text).expect("expected.json is JSON")
    });
    &all[name]
}

/// A JSON array of integers (u64 bit patterns or signed values, as two's complement).
pub fn ints(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| {
            x.as_u64()
                .or(x.as_i64().map(|i| i as u64))
                .expect("an integer")
        })
        .collect()
}

/// A JSON array of numbers.
pub fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

/// `words` as little-endian bytes of `width` bytes each.
pub fn bytes_of(words: &[u64], width: usize) -> Vec<u8> {
    words
        .iter()
        .flat_map(|w| w.to_le_bytes()[..width].to_vec())
        .collect()
}

/// Little-endian words of `width` bytes.
pub fn words_of(bytes: &[u8], width: usize) -> Vec<u64> {
    bytes
        .chunks(width)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..width].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect()
}

/// Runs `kernel` on `grid` blocks of `threads` threads.
pub fn run(
    kernel: &PtxKernel,
    grid: [u32; 3],
    threads: u32,
    args: &[PtxArg],
    buffers: &mut [BufferArg<'_>],
) -> SimReport {
    let launch = PtxLaunch {
        grid,
        block: [threads, 1, 1],
        dynamic_shared: 0,
    };
    ptx::run(kernel, &launch, args, buffers, &SimOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", kernel.name()))
}

/// [`run`], insisting on no finding.
pub fn run_clean(
    kernel: &PtxKernel,
    grid: [u32; 3],
    threads: u32,
    args: &[PtxArg],
    buffers: &mut [BufferArg<'_>],
) -> SimReport {
    let report = run(kernel, grid, threads, args, buffers);
    let findings: Vec<String> = report.findings.iter().map(|f| f.to_string()).collect();
    assert!(
        report.is_clean() && findings.is_empty(),
        "{}: {findings:#?}",
        kernel.name()
    );
    report
}

/// Checks a float result against the exact value: within `tol · scale` (`scale` = |c| + Σ|a·b|;
/// `tol` 2^-24 for an `f32` result rounded once, 2^-11 for `f16`).
pub fn assert_close(what: &str, got: f64, exact: f64, scale: f64, tol: f64) {
    let bound = tol * scale;
    assert!(
        (got - exact).abs() <= bound,
        "{what}: {got} but the exact result is {exact} (allowed error {bound})"
    );
}

/// 2^-24: half an ulp of `f32` relative to the error scale.
pub const F32_TOL: f64 = 1.0 / (1u64 << 24) as f64;
/// 2^-11: half an ulp of `f16`.
pub const F16_TOL: f64 = 1.0 / 2048.0;
/// A few roundings of `f64`.
pub const F64_TOL: f64 = 1.0 / (1u64 << 50) as f64;
