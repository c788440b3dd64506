//! Tensor-core PTX that nvcc 13 emitted for sm_80 and sm_90 (`fixtures/mma/*.cu`, compiled with
//! `nvcc -arch=sm_XX -ptx -O3`) runs on the PTX simulator with numpy's results
//! (`fixtures/mma/make_expected.py`) and no sanitizer finding: `nvcuda::wmma` GEMMs of 32x32
//! tiles (f16 with f32 and f16 accumulators, bf16, tf32 staged through shared memory, s8, u8; row-
//! and column-major operands; `load_matrix_sync` of C and element-wise scaling of the
//! accumulator), and CUTLASS-style inline `ldmatrix` + `mma.sync` (f16, bf16, s8 `.satfinite`,
//! tf32, f16 accumulators written back with `stmatrix` on sm_90, f64).

use crate::mma_support;

use mma_support::{assert_close, bytes_of, case, floats, ints, run_clean, words_of};
use mma_support::{F16_TOL, F32_TOL, F64_TOL};
use warpforge_sim::ptx::{PtxArg, PtxKernel};
use warpforge_sim::BufferArg;

const ARCHS: [&str; 2] = ["sm80", "sm90"];

fn fixture(stem: &str, arch: &str, entry: &str) -> PtxKernel {
    let path = format!(
        "{}/tests/fixtures/mma/{stem}.{arch}.ptx",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    PtxKernel::load(&text, entry).unwrap_or_else(|e| panic!("{entry} ({arch}): {e}"))
}

/// `v` (rows x cols, row-major) in column-major order.
fn transpose(v: &[u64], rows: usize, cols: usize) -> Vec<u64> {
    (0..rows * cols)
        .map(|i| v[(i % rows) * cols + i / rows])
        .collect()
}

/// Float results against the exact values `exact` (scaled by `factor`) within `tol`.
fn check_floats(what: &str, got: &[f64], exact: &[f64], scale: &[f64], factor: f64, tol: f64) {
    assert_eq!(got.len(), exact.len(), "{what}");
    for (i, ((g, e), s)) in got.iter().zip(exact).zip(scale).enumerate() {
        assert_close(&format!("{what}[{i}]"), *g, e * factor, s * factor, tol);
    }
}

fn f32s(bytes: &[u8]) -> Vec<f64> {
    words_of(bytes, 4)
        .iter()
        .map(|w| f64::from(f32::from_bits(*w as u32)))
        .collect()
}

fn f16s(bytes: &[u8]) -> Vec<f64> {
    words_of(bytes, 2)
        .iter()
        .map(|w| half::f16::from_bits(*w as u16).to_f64())
        .collect()
}

/// A 32x32 wmma GEMM: the kernel's inputs (already in its layouts) and output bytes.
fn gemm(entry: &str, arch: &str, inputs: &[Vec<u8>], out_bytes: usize, k: u64) -> Vec<u8> {
    let kernel = fixture("wmma_gemm", arch, entry);
    let mut out = vec![0u8; out_bytes];
    let mut buffers: Vec<BufferArg<'_>> = inputs.iter().map(|b| BufferArg::ReadOnly(b)).collect();
    buffers.insert(2, BufferArg::ReadWrite(&mut out));
    if inputs.len() == 3 {
        // (A, B, C, D): the output is the fourth buffer.
        buffers.swap(2, 3);
    }
    let mut args = vec![PtxArg::Buffer; buffers.len()];
    args.extend([PtxArg::Scalar(32), PtxArg::Scalar(32), PtxArg::Scalar(k)]);
    run_clean(&kernel, [2, 2, 1], 32, &args, &mut buffers);
    drop(buffers);
    out
}

#[test]
fn wmma_f16_gemms_row_and_column_major() {
    let c = case("wmma_f16");
    let (a, b) = (ints(&c["a"]), ints(&c["b"]));
    let (exact, scale) = (floats(&c["d"]), floats(&c["scale"]));
    for arch in ARCHS {
        // A and B row-major, f32 accumulators.
        let out = gemm(
            "wmma_f16_rr",
            arch,
            &[bytes_of(&a, 2), bytes_of(&b, 2)],
            4096,
            80,
        );
        check_floats(
            &format!("wmma_f16_rr {arch}"),
            &f32s(&out),
            &exact,
            &scale,
            1.0,
            F32_TOL,
        );
        // A row-major, B column-major, f16 accumulators (rounded after each of the 5 steps).
        let out = gemm(
            "wmma_f16_h",
            arch,
            &[bytes_of(&a, 2), bytes_of(&transpose(&b, 80, 32), 2)],
            2048,
            80,
        );
        let what = format!("wmma_f16_h {arch}");
        check_floats(&what, &f16s(&out), &exact, &scale, 1.0, 5.0 * F16_TOL);
    }
    // Column-major A, B, C and D; D = 2 (A B + C).
    let c = case("wmma_f16_c");
    let a = transpose(&ints(&c["a"]), 32, 80);
    let b = transpose(&ints(&c["b"]), 80, 32);
    let cc = transpose(&ints(&c["c"]), 32, 32);
    let (exact, scale) = (floats(&c["d"]), floats(&c["scale"]));
    for arch in ARCHS {
        let inputs = [bytes_of(&a, 2), bytes_of(&b, 2), bytes_of(&cc, 4)];
        let out = gemm("wmma_f16_cc", arch, &inputs, 4096, 80);
        let got = transpose(&words_of(&out, 4), 32, 32);
        let got: Vec<f64> = got
            .iter()
            .map(|w| f64::from(f32::from_bits(*w as u32)))
            .collect();
        check_floats(
            &format!("wmma_f16_cc {arch}"),
            &got,
            &exact,
            &scale,
            2.0,
            F32_TOL,
        );
    }
}

#[test]
fn wmma_bf16_tf32_and_integer_gemms() {
    let c = case("wmma_bf16");
    for arch in ARCHS {
        let b = transpose(&ints(&c["b"]), 80, 32);
        let out = gemm(
            "wmma_bf16",
            arch,
            &[bytes_of(&ints(&c["a"]), 2), bytes_of(&b, 2)],
            4096,
            80,
        );
        let (exact, scale) = (floats(&c["d"]), floats(&c["scale"]));
        check_floats(
            &format!("wmma_bf16 {arch}"),
            &f32s(&out),
            &exact,
            &scale,
            1.0,
            F32_TOL,
        );
    }
    let c = case("wmma_tf32");
    for arch in ARCHS {
        let inputs = [bytes_of(&ints(&c["a"]), 4), bytes_of(&ints(&c["b"]), 4)];
        let out = gemm("wmma_tf32", arch, &inputs, 4096, 24);
        // The kernel rounds the fragments to tf32 (`cvt.rna.tf32.f32`) before the multiply.
        let (exact, scale) = (floats(&c["d_rna"]), floats(&c["scale_rna"]));
        check_floats(
            &format!("wmma_tf32 {arch}"),
            &f32s(&out),
            &exact,
            &scale,
            1.0,
            F32_TOL,
        );
    }
    for name in ["wmma_s8", "wmma_u8"] {
        let c = case(name);
        let b = transpose(&ints(&c["b"]), 80, 32);
        for arch in ARCHS {
            let out = gemm(
                name,
                arch,
                &[bytes_of(&ints(&c["a"]), 1), bytes_of(&b, 1)],
                4096,
                80,
            );
            let got: Vec<f64> = words_of(&out, 4)
                .iter()
                .map(|w| f64::from(*w as u32 as i32))
                .collect();
            assert_eq!(got, floats(&c["d"]), "{name} {arch}");
        }
    }
}

/// One warp of `entry` in `mma_asm` on (A, B, C) → D.
fn asm(entry: &str, arch: &str, a: &[u8], b: &[u8], c: &[u8], d_bytes: usize) -> Vec<u8> {
    let kernel = fixture("mma_asm", arch, entry);
    let mut d = vec![0u8; d_bytes];
    let mut buffers = [
        BufferArg::ReadOnly(a),
        BufferArg::ReadOnly(b),
        BufferArg::ReadOnly(c),
        BufferArg::ReadWrite(&mut d),
    ];
    run_clean(
        &kernel,
        [1, 1, 1],
        32,
        &[const { PtxArg::Buffer }; 4],
        &mut buffers,
    );
    d
}

#[test]
fn cutlass_style_ldmatrix_and_mma_sync() {
    for arch in ARCHS {
        for (entry, name, width) in [
            ("mma_f16_ldmatrix", "asm_f16", 2),
            ("mma_bf16_ldmatrix", "asm_bf16", 2),
            ("mma_tf32", "asm_tf32", 4),
        ] {
            let c = case(name);
            let (a, b) = (
                bytes_of(&ints(&c["a"]), width),
                bytes_of(&ints(&c["b"]), width),
            );
            let d = asm(entry, arch, &a, &b, &bytes_of(&ints(&c["c"]), 4), 512);
            let (exact, scale) = (floats(&c["d"]), floats(&c["scale"]));
            check_floats(
                &format!("{entry} {arch}"),
                &f32s(&d),
                &exact,
                &scale,
                1.0,
                F32_TOL,
            );
        }
        let c = case("asm_f16_acc");
        let (a, b, cc) = (ints(&c["a"]), ints(&c["b"]), ints(&c["c"]));
        let d = asm(
            "mma_f16_acc",
            arch,
            &bytes_of(&a, 2),
            &bytes_of(&b, 2),
            &bytes_of(&cc, 2),
            256,
        );
        let (exact, scale) = (floats(&c["d"]), floats(&c["scale"]));
        check_floats(
            &format!("mma_f16_acc {arch}"),
            &f16s(&d),
            &exact,
            &scale,
            1.0,
            F16_TOL,
        );

        let c = case("asm_s8");
        let bt = transpose(&ints(&c["b"]), 32, 8);
        let d = asm(
            "mma_s8_ldmatrix",
            arch,
            &bytes_of(&ints(&c["a"]), 1),
            &bytes_of(&bt, 1),
            &bytes_of(&ints(&c["c"]), 4),
            512,
        );
        let got: Vec<f64> = words_of(&d, 4)
            .iter()
            .map(|w| f64::from(*w as u32 as i32))
            .collect();
        assert_eq!(got, floats(&c["d"]), "mma_s8_ldmatrix {arch}");

        let c = case("asm_f64");
        let d = asm(
            "mma_f64",
            arch,
            &bytes_of(&ints(&c["a"]), 8),
            &bytes_of(&ints(&c["b"]), 8),
            &bytes_of(&ints(&c["c"]), 8),
            512,
        );
        let got: Vec<f64> = words_of(&d, 8).iter().map(|w| f64::from_bits(*w)).collect();
        let (exact, scale) = (floats(&c["d"]), floats(&c["scale"]));
        check_floats(
            &format!("mma_f64 {arch}"),
            &got,
            &exact,
            &scale,
            1.0,
            F64_TOL,
        );
    }
}

#[test]
fn tritons_tl_dot_of_32x32_f16_tiles() {
    // `fixtures/mma/triton_dot.py`, Triton 3.9 for sm_80: 4 warps, `ldmatrix` (also `.trans`) and
    // `mma.sync.m16n8k16`, 4096 bytes of dynamic shared memory (Triton's metadata); Triton appends
    // two scratch pointers, passed as null.
    let c = case("triton_dot");
    let path = format!(
        "{}/tests/fixtures/mma/triton_dot.sm80.ptx",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let kernel = PtxKernel::load(&text, "dot32").unwrap_or_else(|e| panic!("{e}"));
    let (a, b) = (bytes_of(&ints(&c["a"]), 2), bytes_of(&ints(&c["b"]), 2));
    let mut d = vec![0u8; 4096];
    let mut buffers = [
        BufferArg::ReadOnly(&a),
        BufferArg::ReadOnly(&b),
        BufferArg::ReadWrite(&mut d),
    ];
    let args = [
        PtxArg::Buffer,
        PtxArg::Buffer,
        PtxArg::Buffer,
        PtxArg::Scalar(0),
        PtxArg::Scalar(0),
    ];
    let launch = warpforge_sim::ptx::PtxLaunch {
        grid: [1, 1, 1],
        block: [128, 1, 1],
        dynamic_shared: 4096,
    };
    let report = warpforge_sim::ptx::run(
        &kernel,
        &launch,
        &args,
        &mut buffers,
        &warpforge_sim::SimOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let findings: Vec<String> = report.findings.iter().map(|f| f.to_string()).collect();
    assert!(report.is_clean() && findings.is_empty(), "{findings:#?}");
    let (exact, scale) = (floats(&c["d"]), floats(&c["scale"]));
    check_floats("triton dot32", &f32s(&d), &exact, &scale, 1.0, F32_TOL);
}
