//! `mma.sync.aligned` on the PTX simulator, every shape and type of sm_80: hand-written PTX in
//! which each lane loads its A, B and C fragment registers from memory (laid out lane by lane,
//! `fixtures/mma/make_expected.py` arranging the matrices by the PTX ISA's fragment figures),
//! multiplies, and stores D's registers. D is compared with numpy's A·B + C (exact in `f64`) within
//! one rounding of the result type (integers exactly, with wrap-around or `.satfinite` clamping).
//! Also: a partial warp and a divergent guard are synccheck errors, and forms the simulator does
//! not implement are refused by name.

use crate::mma_support;

use mma_support::{assert_close, bytes_of, case, ints, run, run_clean, words_of};
use mma_support::{F16_TOL, F32_TOL, F64_TOL};
use warpforge_sim::ptx::{PtxArg, PtxKernel};
use warpforge_sim::BufferArg;

/// Registers of A, B, C, D per lane and their width in bits for `shape` and the D type.
fn counts(name: &str) -> (usize, usize, usize, usize, usize) {
    let c = case(name);
    let n = |k: &str| ints(&c[k]).len() / 32;
    let nd_elems = c["d"].as_array().expect("d").len() / 32;
    let d_type = c["d_type"].as_str().expect("d_type");
    let (nd, width) = match d_type {
        "f16" => (nd_elems / 2, 32),
        "f64" => (nd_elems, 64),
        _ => (nd_elems, 32),
    };
    (n("a"), n("b"), n("c"), nd, width)
}

/// A kernel that loads the fragments lane by lane, executes `inst` and stores D.
fn mma_kernel(inst: &str, (na, nb, nc, nd, width): (usize, usize, usize, usize, usize)) -> String {
    let bytes = width / 8;
    let mut s = format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{{\n\
         .reg .b32 %r<2>;\n.reg .b64 %rd<16>;\n\
         .reg .b{width} %a<{na}>;\n.reg .b{width} %b<{nb}>;\n.reg .b{width} %c<{nc}>;\n\
         .reg .b{width} %d<{nd}>;\nmov.u32 %r0, %laneid;\n"
    );
    for (k, (p, n)) in [("pa", na), ("pb", nb), ("pc", nc), ("pd", nd)]
        .into_iter()
        .enumerate()
    {
        s += &format!(
            "ld.param.u64 %rd{k}, [{p}];\nmul.wide.u32 %rd{}, %r0, {};\nadd.s64 %rd{}, %rd{k}, %rd{};\n",
            k + 4,
            n * bytes,
            k + 8,
            k + 4
        );
    }
    let list = |p: &str, n: usize| {
        (0..n)
            .map(|i| format!("%{p}{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for (k, (p, n)) in [("a", na), ("b", nb), ("c", nc)].into_iter().enumerate() {
        for i in 0..n {
            s += &format!(
                "ld.global.b{width} %{p}{i}, [%rd{}+{}];\n",
                k + 8,
                i * bytes
            );
        }
    }
    s += &format!(
        "{inst} {{{}}}, {{{}}}, {{{}}}, {{{}}};\n",
        list("d", nd),
        list("a", na),
        list("b", nb),
        list("c", nc)
    );
    for i in 0..nd {
        s += &format!("st.global.b{width} [%rd11+{}], %d{i};\n", i * bytes);
    }
    s + "ret;\n}\n"
}

/// Runs case `name` and compares D with numpy.
fn check(name: &str) {
    let c = case(name);
    let inst = c["inst"].as_str().expect("inst");
    let n = counts(name);
    let (na, nb, nc, nd, width) = n;
    let bytes = width / 8;
    let kernel = PtxKernel::load(&mma_kernel(inst, n), "k").unwrap_or_else(|e| panic!("{e}"));
    let (a, b, cc) = (
        bytes_of(&ints(&c["a"]), bytes),
        bytes_of(&ints(&c["b"]), bytes),
        bytes_of(&ints(&c["c"]), bytes),
    );
    assert_eq!(
        (a.len(), b.len(), cc.len()),
        (32 * na * bytes, 32 * nb * bytes, 32 * nc * bytes)
    );
    let mut d = vec![0u8; 32 * nd * bytes];
    let mut buffers = [
        BufferArg::ReadOnly(&a),
        BufferArg::ReadOnly(&b),
        BufferArg::ReadOnly(&cc),
        BufferArg::ReadWrite(&mut d),
    ];
    run_clean(
        &kernel,
        [1, 1, 1],
        32,
        &[const { PtxArg::Buffer }; 4],
        &mut buffers,
    );
    let words = words_of(&d, bytes);
    let want = c["d"].as_array().expect("d");
    let per_lane = want.len() / 32;
    let d_type = c["d_type"].as_str().expect("d_type");
    for lane in 0..32 {
        for e in 0..per_lane {
            let pair = want[lane * per_lane + e]
                .as_array()
                .expect("[value, scale]");
            let (exact, scale) = (pair[0].as_f64().expect("v"), pair[1].as_f64().expect("s"));
            let what = format!("{name}: lane {lane}, element {e}");
            match d_type {
                "f32" => {
                    let got = f32::from_bits(words[lane * nd + e] as u32);
                    assert_close(&what, f64::from(got), exact, scale, F32_TOL);
                }
                "f16" => {
                    let w = words[lane * nd + e / 2] >> (16 * (e % 2));
                    let got = half::f16::from_bits(w as u16).to_f64();
                    assert_close(&what, got, exact, scale, F16_TOL);
                }
                "f64" => {
                    let got = f64::from_bits(words[lane * nd + e]);
                    assert_close(&what, got, exact, scale, F64_TOL);
                }
                _ => {
                    let got = words[lane * nd + e] as u32 as i32;
                    assert_eq!(f64::from(got), exact, "{what}");
                }
            }
        }
    }
}

#[test]
fn m16n8k16_f16_and_bf16_with_f32_and_f16_accumulators() {
    check("m16n8k16_f32_f16");
    check("m16n8k16_f32_bf16");
    check("m16n8k16_f16_f16");
    check("m16n8k16_f32_f16_c16");
}

#[test]
fn m16n8k8_f16_bf16_and_tf32() {
    check("m16n8k8_f32_f16");
    check("m16n8k8_f32_bf16");
    // The inputs are full f32 values: the multiply must ignore their low 13 mantissa bits.
    check("m16n8k8_tf32");
    check("m16n8k4_tf32");
}

#[test]
fn integer_shapes_wrap_or_saturate() {
    check("m16n8k32_s8");
    check("m16n8k32_s8_sat");
    check("m16n8k32_u8_s8");
    check("m16n8k16_s8");
    check("m16n8k16_u8_sat");
}

#[test]
fn m8n8k4_f64() {
    check("m8n8k4_f64");
}

/// The `m16n8k16` kernel with `prefix` before the `mma` (a guard) on `threads` threads.
fn guarded(prefix: &str, threads: u32) -> Vec<String> {
    let name = "m16n8k16_f32_f16";
    let text = mma_kernel(case(name)["inst"].as_str().expect("inst"), counts(name));
    let text = text
        .replace("mma.sync", &format!("{prefix}mma.sync"))
        .replace(
            "mov.u32 %r0, %laneid;",
            "mov.u32 %r0, %laneid;\n.reg .pred %p<2>;\nsetp.lt.u32 %p0, %r0, 16;\n\
         setp.gt.u32 %p1, %r0, 99;",
        );
    let kernel = PtxKernel::load(&text, "k").unwrap_or_else(|e| panic!("{e}"));
    let zeros = vec![0u8; 32 * 4 * 4];
    let mut d = vec![0u8; 32 * 4 * 4];
    let mut buffers = [
        BufferArg::ReadOnly(&zeros),
        BufferArg::ReadOnly(&zeros),
        BufferArg::ReadOnly(&zeros),
        BufferArg::ReadWrite(&mut d),
    ];
    let report = run(
        &kernel,
        [1, 1, 1],
        threads,
        &[const { PtxArg::Buffer }; 4],
        &mut buffers,
    );
    report.findings.iter().map(|f| f.to_string()).collect()
}

#[test]
fn a_partial_or_guarded_warp_is_a_synccheck_error() {
    let half = guarded("@%p0 ", 32);
    assert!(
        half.len() == 1 && half[0].contains("collective-mask") && half[0].contains("16-31"),
        "{half:#?}"
    );
    let partial = guarded("", 20);
    assert!(
        partial.len() == 1 && partial[0].contains("exited"),
        "{partial:#?}"
    );
    // A guard false on every lane skips it: no finding.
    let skipped = guarded("@%p1 ", 32);
    assert!(skipped.is_empty(), "{skipped:#?}");
}

#[test]
fn unimplemented_forms_are_refused_by_name() {
    let refuse = |inst: &str, ops: &str, want: &str| {
        let text = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n\
             .reg .b32 %r<40>;\n.reg .f32 %f<8>;\n{inst} {ops};\nret;\n}}\n"
        );
        let err = PtxKernel::load(&text, "k").expect_err(inst).to_string();
        assert!(err.contains(want), "{inst}: {err}");
    };
    let f4 = "{%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%f4, %f5, %f6, %f7}";
    refuse(
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32",
        f4,
        "type `.e4m3`",
    );
    refuse(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
        "{%f0}, {%r0}, {%r1}, {%f1}",
        "D has 1 registers; this form takes 4",
    );
    refuse(
        "mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32",
        f4,
        "`.row.col`",
    );
    refuse(
        "mma.aligned.m16n8k16.row.col.f32.f16.f16.f32",
        f4,
        "`.sync.aligned`",
    );
    refuse(
        "mma.sync.aligned.m16n8k8.row.col.f32.s8.s8.f32",
        f4,
        "not supported",
    );
    refuse(
        "mma.sync.aligned.m16n8k256.row.col.and.popc.s32.b1.b1.s32",
        f4,
        "shape `.m16n8k256`",
    );
    refuse(
        "wmma.load.a.sync.aligned.row.m32n8k16.f16",
        "{%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%r8], %r9",
        "shape `.m32n8k16` is not supported",
    );
    refuse(
        "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8",
        "{%r0}, [%r1]",
        "`.m8n8`",
    );
    refuse(
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
        "{%r0, %r1}, [%r2]",
        "2 registers; this form takes 4",
    );
}

#[test]
fn cvt_to_tf32_rounds_as_the_isa_says() {
    // (input bits, rna, rn, rz, rn.relu, rna.satfinite), worked out by hand: tf32 keeps the sign,
    // the exponent and the top 10 mantissa bits (bit 13 is its last bit).
    let cases: [(u32, [u32; 5]); 8] = [
        // 1 + 2^-11: a tie with an even last bit.
        (
            0x3f80_1000,
            [
                0x3f80_2000,
                0x3f80_0000,
                0x3f80_0000,
                0x3f80_0000,
                0x3f80_2000,
            ],
        ),
        // A tie with an odd last bit.
        (
            0x3f80_3000,
            [
                0x3f80_4000,
                0x3f80_4000,
                0x3f80_2000,
                0x3f80_4000,
                0x3f80_4000,
            ],
        ),
        (
            0x3f80_1001,
            [
                0x3f80_2000,
                0x3f80_2000,
                0x3f80_0000,
                0x3f80_2000,
                0x3f80_2000,
            ],
        ),
        (
            0x3f80_0fff,
            [
                0x3f80_0000,
                0x3f80_0000,
                0x3f80_0000,
                0x3f80_0000,
                0x3f80_0000,
            ],
        ),
        (
            0xbf80_1000,
            [0xbf80_2000, 0xbf80_0000, 0xbf80_0000, 0, 0xbf80_2000],
        ),
        // The largest f32 rounds up to infinity (to the largest tf32 with .satfinite).
        (
            0x7f7f_ffff,
            [
                0x7f80_0000,
                0x7f80_0000,
                0x7f7f_e000,
                0x7f80_0000,
                0x7f7f_e000,
            ],
        ),
        (
            0xff80_0000,
            [0xff80_0000, 0xff80_0000, 0xff80_0000, 0, 0xff7f_e000],
        ),
        (0x7fc0_0001, [0x7fff_ffff; 5]),
    ];
    let forms = ["rna", "rn", "rz", "rn.relu", "rna.satfinite"];
    let mut text = String::from(
        ".version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n.reg .b32 %r<8>;\n\
         .reg .f32 %f<1>;\n.reg .b64 %rd<6>;\nld.param.u64 %rd0, [pin];\n\
         ld.param.u64 %rd1, [pout];\nmov.u32 %r0, %tid.x;\nmul.wide.u32 %rd2, %r0, 4;\n\
         add.s64 %rd3, %rd0, %rd2;\nld.global.f32 %f0, [%rd3];\nmul.wide.u32 %rd4, %r0, 20;\n\
         add.s64 %rd5, %rd1, %rd4;\n",
    );
    for (i, form) in forms.iter().enumerate() {
        text += &format!(
            "cvt.{form}.tf32.f32 %r{}, %f0;\nst.global.b32 [%rd5+{}], %r{};\n",
            i + 1,
            4 * i,
            i + 1
        );
    }
    text += "ret;\n}\n";
    let kernel = PtxKernel::load(&text, "k").unwrap_or_else(|e| panic!("{e}"));
    let input: Vec<u64> = cases.iter().map(|c| u64::from(c.0)).collect();
    let input = bytes_of(&input, 4);
    let mut out = vec![0u8; cases.len() * 20];
    let mut buffers = [BufferArg::ReadOnly(&input), BufferArg::ReadWrite(&mut out)];
    // 8 threads: a per-lane conversion, not a warp collective.
    run_clean(
        &kernel,
        [1, 1, 1],
        8,
        &[const { PtxArg::Buffer }; 2],
        &mut buffers,
    );
    let got = words_of(&out, 4);
    for (i, (x, want)) in cases.iter().enumerate() {
        for (f, form) in forms.iter().enumerate() {
            assert_eq!(
                got[i * 5 + f] as u32,
                want[f],
                "cvt.{form}.tf32.f32 of {x:#010x}"
            );
        }
    }
}
