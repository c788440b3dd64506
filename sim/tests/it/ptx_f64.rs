//! Double precision on the PTX simulator: `f64` arithmetic rounded to nearest against Rust's `f64`
//! arithmetic (IEEE 754); NaN results, `rcp.approx.ftz.f64`, `neg`/`abs` of NaN and the NaN →
//! integer rule against what an H100 (sm_90, CUDA 13) gave and the PTX ISA says; moves, loads and
//! stores in every state space with `0d`, `0f` and decimal immediates; `setp`/`selp`; `cvt`
//! between `f64`, `f32` and integers (expected values by hand or with Python: `round()` rounds
//! ties to even, `math.floor`, `math.ceil`, `struct.pack('<d', …)`); `atom.add.f64`; and the forms
//! the ISA does not have, refused by name.

use crate::common;
use common::float::{hex, refusal, run};
use warpforge_sim::ptx::{self, PtxArg, PtxKernel, PtxLaunch};
use warpforge_sim::{BufferArg, SimOptions};

const DEFAULT_NAN: u64 = 0xfff8_0000_0000_0000;

const VALUES: [f64; 14] = [
    0.0,
    -0.0,
    1.0,
    -1.5,
    1.0 / 3.0,
    3.0,
    1e300,
    -1e-300,
    f64::MAX,
    f64::MIN_POSITIVE,
    5e-324, // the least subnormal
    -2.5e-310,
    f64::INFINITY,
    f64::NEG_INFINITY,
];

/// Every ordered pair of [`VALUES`] (and a third operand), as bits.
fn pairs() -> Vec<[u64; 3]> {
    let mut v = Vec::new();
    for (i, a) in VALUES.iter().enumerate() {
        for b in VALUES {
            v.push([
                a.to_bits(),
                b.to_bits(),
                VALUES[(i + 5) % VALUES.len()].to_bits(),
            ]);
        }
    }
    v
}

/// Rust's result, with the NaN an invalid operation gives on the GPU.
fn want(x: f64) -> u64 {
    if x.is_nan() {
        DEFAULT_NAN
    } else {
        x.to_bits()
    }
}

#[test]
fn f64_arithmetic_rounds_to_nearest_as_ieee_754_does() {
    let inputs = pairs();
    let f = |w: &[u64; 3], i: usize| f64::from_bits(w[i]);
    type Reference = fn(f64, f64, f64) -> f64;
    let cases: [(&str, Reference); 11] = [
        ("add.f64 %fd4, %fd1, %fd2", |a, b, _| a + b),
        ("add.rn.f64 %fd4, %fd1, %fd2", |a, b, _| a + b),
        ("sub.rn.f64 %fd4, %fd1, %fd2", |a, b, _| a - b),
        ("mul.f64 %fd4, %fd1, %fd2", |a, b, _| a * b),
        ("div.rn.f64 %fd4, %fd1, %fd2", |a, b, _| a / b),
        ("fma.rn.f64 %fd4, %fd1, %fd2, %fd3", |a, b, c| {
            a.mul_add(b, c)
        }),
        ("mad.rn.f64 %fd4, %fd1, %fd2, %fd3", |a, b, c| {
            a.mul_add(b, c)
        }),
        ("sqrt.rn.f64 %fd4, %fd1", |a, _, _| a.sqrt()),
        ("rcp.rn.f64 %fd4, %fd1", |a, _, _| 1.0 / a),
        ("neg.f64 %fd4, %fd1", |a, _, _| -a),
        ("abs.f64 %fd4, %fd1", |a, _, _| a.abs()),
    ];
    for (line, reference) in cases {
        let got = run(&format!("    {line};\n    mov.b64 %rd9, %fd4;"), &inputs);
        let expected: Vec<u64> = inputs
            .iter()
            .map(|w| want(reference(f(w, 0), f(w, 1), f(w, 2))))
            .collect();
        assert_eq!(hex(&got), hex(&expected), "{line}");
    }
    // `min`/`max`: the ISA's −0 < +0 (Rust's `f64::min` may return either zero).
    let min = run(
        "    min.f64 %fd4, %fd1, %fd2;\n    mov.b64 %rd9, %fd4;",
        &inputs,
    );
    let max = run(
        "    max.f64 %fd4, %fd1, %fd2;\n    mov.b64 %rd9, %fd4;",
        &inputs,
    );
    for (i, w) in inputs.iter().enumerate() {
        let (a, b) = (f(w, 0), f(w, 1));
        let key = |x: f64| (x, x.is_sign_positive());
        let (lo, hi) = if key(a) <= key(b) { (a, b) } else { (b, a) };
        assert_eq!(min[i], lo.to_bits(), "min({a:e}, {b:e})");
        assert_eq!(max[i], hi.to_bits(), "max({a:e}, {b:e})");
    }
}

#[test]
fn f64_nans_keep_their_payload_as_on_an_h100() {
    let (q1, q2, s1) = (
        0x7ff8_0000_0000_0001,
        0xfff8_0000_0000_0002,
        0x7ff0_0000_0000_0003,
    );
    let one = 1f64.to_bits();
    let inf = f64::INFINITY.to_bits();
    let cases: [(&str, [u64; 3], u64); 14] = [
        ("sub.rn.f64 %fd4, %fd1, %fd1", [inf, 0, 0], DEFAULT_NAN),
        ("mul.rn.f64 %fd4, %fd1, %fd2", [0, inf, 0], DEFAULT_NAN),
        ("div.rn.f64 %fd4, %fd1, %fd2", [0, 0, 0], DEFAULT_NAN),
        (
            "sqrt.rn.f64 %fd4, %fd1",
            [(-1f64).to_bits(), 0, 0],
            DEFAULT_NAN,
        ),
        // `add`/`sub`/`mul`: `b` when it is NaN (sign kept in `sub`), else `a`; quiet.
        ("add.rn.f64 %fd4, %fd1, %fd2", [q1, q2, 0], q2),
        (
            "add.rn.f64 %fd4, %fd1, %fd2",
            [s1, one, 0],
            0x7ff8_0000_0000_0003,
        ),
        ("sub.rn.f64 %fd4, %fd1, %fd2", [one, q2, 0], q2),
        ("mul.rn.f64 %fd4, %fd1, %fd2", [q2, q1, 0], q1),
        // `fma`: `b`, then `c`, then `a`; `div`: `a` first.
        ("fma.rn.f64 %fd4, %fd1, %fd2, %fd3", [q1, one, q2], q2),
        ("fma.rn.f64 %fd4, %fd1, %fd2, %fd3", [one, q1, q2], q1),
        ("div.rn.f64 %fd4, %fd1, %fd2", [q1, q2, 0], q1),
        // `neg`/`abs` pass a NaN through; `min` gives the number, or `b` of two NaNs.
        ("neg.f64 %fd4, %fd1", [q2, 0, 0], q2),
        (
            "abs.f64 %fd4, %fd1",
            [0xfff0_0000_0000_0123, 0, 0],
            0xfff8_0000_0000_0123,
        ),
        ("min.f64 %fd4, %fd1, %fd2", [q1, q2, 0], q2),
    ];
    for (line, operands, expected) in cases {
        let got = run(
            &format!("    {line};\n    mov.b64 %rd9, %fd4;"),
            &[operands],
        );
        assert_eq!(hex(&got), hex(&[expected]), "{line} of {operands:x?}");
    }
}

#[test]
fn rcp_approx_ftz_f64_is_the_isas_upper_word_reciprocal() {
    // Operand bits → result bits, as an H100 gave them.
    let cases: [(u64, u64); 12] = [
        (0x4008_0000_0000_0000, 0x3fd5_5555_0000_0000),
        (0x3ff0_0000_8000_0000, 0x3ff0_0000_0000_0000),
        (0x4015_5555_5555_5555, 0x3fc8_0000_0000_0000),
        (0x3fef_ffff_0000_0000, 0x3ff0_0000_0000_0000),
        (0x3ff1_1111_1111_1111, 0x3fee_0000_0000_0000),
        (0x4059_0000_0000_0000, 0x3f84_7ae1_0000_0000),
        (0xbfd5_5555_5555_5555, 0xc008_0000_0000_0000),
        (0xbfe6_6666_6666_6666, 0xbff6_db6e_0000_0000),
        (0x0010_0000_0000_0000, 0x7fd0_0000_0000_0000),
        (0x000f_ffff_ffff_ffff, 0x7ff0_0000_0000_0000), // subnormal → +∞
        (0x7fe0_0000_0000_0000, 0),                     // 2^-1023 is subnormal → +0
        (0xfff8_0000_0000_0456, 0x7fff_ffff_0000_0000), // NaN → the canonical one
    ];
    let inputs: Vec<[u64; 3]> = cases.iter().map(|c| [c.0, 0, 0]).collect();
    let got = run(
        "    rcp.approx.ftz.f64 %fd4, %fd1;\n    mov.b64 %rd9, %fd4;",
        &inputs,
    );
    let expected: Vec<u64> = cases.iter().map(|c| c.1).collect();
    assert_eq!(hex(&got), hex(&expected));
}

#[test]
fn setp_and_selp_on_f64_order_nan_as_unordered() {
    let cmps = [
        "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
    ];
    let mut body = String::new();
    for (i, c) in cmps.iter().enumerate() {
        body += &format!(
            "    setp.{c}.f64 %p1, %fd1, %fd2;\n    selp.u64 %rd4, 1, 0, %p1;\n    shl.b64 %rd4, %rd4, {i};\n    or.b64 %rd9, %rd9, %rd4;\n"
        );
    }
    let values = [1.0, 2.0, -0.0, 0.0, f64::NAN, f64::INFINITY];
    let mut inputs = Vec::new();
    for a in values {
        for b in values {
            inputs.push([a.to_bits(), b.to_bits(), 0]);
        }
    }
    let got = run(&body, &inputs);
    for (w, bits) in inputs.iter().zip(got) {
        let (a, b) = (f64::from_bits(w[0]), f64::from_bits(w[1]));
        let u = a.is_nan() || b.is_nan();
        let expected = [
            a == b,
            !u && a != b,
            a < b,
            a <= b,
            a > b,
            a >= b,
            u || a == b,
            u || a != b,
            u || a < b,
            u || a <= b,
            u || a > b,
            u || a >= b,
            !u,
            u,
        ];
        let expected = expected
            .iter()
            .enumerate()
            .fold(0u64, |acc, (i, &t)| acc | u64::from(t) << i);
        assert_eq!(bits, expected, "{a} vs {b}");
    }
    // `selp.f64` with an immediate: a if a > b, else 0.25.
    let got = run(
        "    setp.gt.f64 %p1, %fd1, %fd2;\n    selp.f64 %fd4, %fd1, 0d3FD0000000000000, %p1;\n    mov.b64 %rd9, %fd4;",
        &[[3f64.to_bits(), 1f64.to_bits(), 0], [1f64.to_bits(), 3f64.to_bits(), 0]],
    );
    assert_eq!(got, [3f64.to_bits(), 0.25f64.to_bits()]);
}

#[test]
fn cvt_between_f64_f32_and_integers() {
    let one = |line: &str, x: u64| run(line, &[[x, 0, 0]])[0];
    let to_s32 = |irnd: &str, x: f64| {
        let line = format!("    cvt.{irnd}.s32.f64 %r4, %fd1;\n    cvt.u64.u32 %rd9, %r4;");
        one(&line, x.to_bits()) as u32 as i32
    };
    // round(), math.floor, math.ceil, int() in Python; clamped to the s32 range.
    assert_eq!(to_s32("rni", 2.5), 2);
    assert_eq!(to_s32("rni", 3.5), 4);
    assert_eq!(to_s32("rni", -2.5), -2);
    assert_eq!(to_s32("rzi", -2.7), -2);
    assert_eq!(to_s32("rmi", -2.2), -3);
    assert_eq!(to_s32("rpi", 2.2), 3);
    assert_eq!(to_s32("rzi", 1e300), i32::MAX);
    assert_eq!(to_s32("rzi", -1e300), i32::MIN);
    // NaN: `1 << (bits - 1)` from `.f64` (the ISA; an H100 gives 0x80000000, 0x8000, …).
    assert_eq!(to_s32("rzi", f64::NAN) as u32, 0x8000_0000);
    let nan = f64::NAN.to_bits();
    assert_eq!(
        one(
            "    cvt.rzi.u16.f64 %h1, %fd1;\n    cvt.u64.u16 %rd9, %h1;",
            nan
        ),
        0x8000
    );
    assert_eq!(one("    cvt.rni.u64.f64 %rd9, %fd1;", nan), 1 << 63);
    // …and from `.f32` to 64-bit integers only; to narrower ones it is 0.
    let nan32 = u64::from(f32::NAN.to_bits());
    assert_eq!(one("    cvt.rzi.s64.f32 %rd9, %f1;", nan32), 1 << 63);
    assert_eq!(
        one(
            "    cvt.rzi.s32.f32 %r4, %f1;\n    cvt.u64.u32 %rd9, %r4;",
            nan32
        ),
        0
    );
    assert_eq!(
        one(
            "    cvt.rzi.u32.f64 %r4, %fd1;\n    cvt.u64.u32 %rd9, %r4;",
            (-1.5f64).to_bits()
        ),
        0
    );
    assert_eq!(
        one("    cvt.rzi.u64.f64 %rd9, %fd1;", 1e300f64.to_bits()),
        u64::MAX
    );
    assert_eq!(
        one("    cvt.rmi.s64.f64 %rd9, %fd1;", (-1e300f64).to_bits()),
        1 << 63
    );
    // Integral values in f64: struct.pack('<d', round(2.5)), math.ceil(-0.7) is -0.0 in IEEE.
    let f64_line =
        |irnd: &str| format!("    cvt.{irnd}.f64.f64 %fd4, %fd1;\n    mov.b64 %rd9, %fd4;");
    assert_eq!(one(&f64_line("rni"), 2.5f64.to_bits()), 2f64.to_bits());
    assert_eq!(
        one(&f64_line("rpi"), (-0.7f64).to_bits()),
        (-0f64).to_bits()
    );
    assert_eq!(
        one(&f64_line("rmi"), (-3.5f64).to_bits()),
        (-4f64).to_bits()
    );
    assert_eq!(
        one(&f64_line("rzi"), 0x7ff0_0000_0000_0123),
        0x7ff8_0000_0000_0123
    );
    // Integers to f64: exact below 2^53.
    assert_eq!(
        one(
            "    cvt.rn.f64.s32 %fd4, %r1;\n    mov.b64 %rd9, %fd4;",
            u64::from(-7i32 as u32)
        ),
        (-7f64).to_bits()
    );
    // f32 → f64: exact, a subnormal included; `.ftz` flushes it; a NaN widens its payload.
    let widen = "    cvt.f64.f32 %fd4, %f1;\n    mov.b64 %rd9, %fd4;";
    assert_eq!(one(widen, 1), 0x36a0_0000_0000_0000); // struct.pack('<d', 2**-149)
    assert_eq!(one(widen, 0x7f80_0123), 0x7ff8_0024_6000_0000);
    assert_eq!(one(widen, 0xffc0_0123), 0xfff8_0024_6000_0000);
    assert_eq!(
        one(
            "    cvt.ftz.f64.f32 %fd4, %f1;\n    mov.b64 %rd9, %fd4;",
            0x8000_0001
        ),
        1 << 63
    );
    // f64 → f32 with `.ftz` and `.sat`.
    let narrow = |mods: &str, x: f64| {
        let line = format!("    cvt.rn{mods}.f32.f64 %f4, %fd1;\n    mov.b32 %r4, %f4;\n    cvt.u64.u32 %rd9, %r4;");
        one(&line, x.to_bits()) as u32
    };
    assert_eq!(narrow(".ftz", 2f64.powi(-140)), 0);
    assert_eq!(narrow("", 2f64.powi(-140)), 0x0000_0200); // 2^-140 = 2^9 least subnormals
    assert_eq!(narrow(".sat", 1.5), 1f32.to_bits());
    assert_eq!(narrow(".sat", -2.0), 0);
    assert_eq!(narrow(".sat", f64::NAN), 0);
    assert_eq!(
        one(
            "    cvt.sat.f64.f32 %fd4, %f1;\n    mov.b64 %rd9, %fd4;",
            u64::from(3f32.to_bits())
        ),
        1f64.to_bits()
    );
}

#[test]
fn f64_moves_loads_and_stores_in_every_state_space() {
    let text = ".version 7.0
.target sm_80
.address_size 64
.const .align 8 .f64 k[2] = {1.5, 0d4000000000000000};
.global .align 8 .f64 g = 0.25;
.visible .entry m(.param .u64 out, .param .f64 x)
{
    .reg .f64 %fd<16>;
    .reg .b64 %rd<4>;
    .reg .b32 %r<4>;
    .shared .align 16 .f64 s[4];
    .local .align 8 .f64 l[2];
    ld.param.u64 %rd1, [out];
    ld.param.f64 %fd1, [x];
    ld.const.v2.f64 {%fd2, %fd3}, [k];
    ld.global.f64 %fd4, [g];
    mov.f64 %fd5, 0d3FF8000000000000;
    mov.f64 %fd6, 2.5;
    mov.f64 %fd7, 0f3F000000;
    add.f64 %fd8, %fd1, 0d4000000000000000;
    st.shared.v2.f64 [s], {%fd1, %fd2};
    ld.shared.v2.f64 {%fd9, %fd10}, [s];
    st.local.f64 [l+8], %fd3;
    ld.local.f64 %fd11, [l+8];
    mov.b64 {%r1, %r2}, %fd5;
    mov.b64 %fd12, {%r1, %r2};
    st.global.v2.f64 [%rd1], {%fd1, %fd2};
    st.global.v2.f64 [%rd1+16], {%fd3, %fd4};
    st.global.v2.f64 [%rd1+32], {%fd5, %fd6};
    st.global.v2.f64 [%rd1+48], {%fd7, %fd8};
    st.global.v2.f64 [%rd1+64], {%fd9, %fd10};
    st.global.f64 [%rd1+80], %fd11;
    st.global.f64 [%rd1+88], %fd12;
    st.global.f64 [%rd1+96], 0d4010000000000000;
    ret;
}
";
    let kernel = PtxKernel::load(text, "m").expect("loads");
    let mut out = vec![0u8; 104];
    let launch = PtxLaunch {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        dynamic_shared: 0,
    };
    let report = ptx::run(
        &kernel,
        &launch,
        &[PtxArg::Buffer, PtxArg::Scalar((-0.75f64).to_bits())],
        &mut [BufferArg::ReadWrite(&mut out)],
        &SimOptions::default(),
    )
    .expect("runs");
    assert!(report.is_clean());
    let got: Vec<f64> = out
        .chunks(8)
        .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect();
    assert_eq!(
        got,
        [-0.75, 1.5, 2.0, 0.25, 1.5, 2.5, 0.5, 1.25, -0.75, 1.5, 2.0, 1.5, 4.0]
    );
}

#[test]
fn atom_add_f64_sums_every_thread() {
    let text = ".version 7.0
.target sm_80
.address_size 64
.visible .entry a(.param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .f64 %fd<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    cvt.rn.f64.u32 %fd1, %r1;
    mul.rn.f64 %fd2, %fd1, 0d3FE0000000000000;
    atom.global.add.f64 %fd3, [%rd1], %fd2;
    red.global.add.f64 [%rd1+8], 0d3FF0000000000000;
    ret;
}
";
    let kernel = PtxKernel::load(text, "a").expect("loads");
    let mut out = vec![0u8; 16];
    let launch = PtxLaunch {
        grid: [2, 1, 1],
        block: [64, 1, 1],
        dynamic_shared: 0,
    };
    ptx::run(
        &kernel,
        &launch,
        &[PtxArg::Buffer],
        &mut [BufferArg::ReadWrite(&mut out)],
        &SimOptions::default(),
    )
    .expect("runs");
    let sum = f64::from_le_bytes(out[..8].try_into().expect("8 bytes"));
    let count = f64::from_le_bytes(out[8..].try_into().expect("8 bytes"));
    // Two blocks of 0.5 * (0 + 1 + … + 63), exact in any order.
    assert_eq!((sum, count), (2.0 * 0.5 * 2016.0, 128.0));
}

#[test]
fn f64_forms_the_isa_does_not_have_are_refused_by_name_and_line() {
    for (line, says) in [
        ("add.ftz.f64 %fd4, %fd1, %fd2;", "`.ftz` on `add.f64`"),
        ("mul.sat.f64 %fd4, %fd1, %fd2;", "`.sat` on `mul.f64`"),
        (
            "fma.f64 %fd4, %fd1, %fd2, %fd3;",
            "needs a rounding modifier",
        ),
        ("div.f64 %fd4, %fd1, %fd2;", "needs a rounding modifier"),
        ("div.full.f64 %fd4, %fd1, %fd2;", "`.f32` only"),
        (
            "sqrt.approx.f64 %fd4, %fd1;",
            "`sqrt.approx` is `.f32` only",
        ),
        ("rcp.approx.f64 %fd4, %fd1;", "needs `.ftz`"),
        ("rsqrt.approx.f64 %fd4, %fd1;", "on `.f32` only, not `.f64`"),
        ("min.NaN.f64 %fd4, %fd1, %fd2;", "no `.ftz` or `.NaN`"),
        ("neg.ftz.f64 %fd4, %fd1;", "no `.ftz`"),
        ("setp.lt.ftz.f64 %p1, %fd1, %fd2;", "`.ftz` on `setp.f64`"),
        ("cvt.rn.f64.f32 %fd4, %f1;", "forbids a rounding modifier"),
        (
            "cvt.f32.f64 %f4, %fd1;",
            "needs `.rn`, `.rz`, `.rm` or `.rp`",
        ),
        (
            "cvt.rzi.f32.f64 %f4, %fd1;",
            "needs `.rn`, `.rz`, `.rm` or `.rp`",
        ),
        (
            "cvt.s32.f64 %r4, %fd1;",
            "needs `.rni`, `.rzi`, `.rmi` or `.rpi`",
        ),
        (
            "cvt.rzi.f64.s32 %fd4, %r1;",
            "needs `.rn`, `.rz`, `.rm` or `.rp`",
        ),
        ("cvt.rn.f64.f64 %fd4, %fd1;", "rounds with `.rni`"),
        (
            "cvt.ftz.rn.f64.s32 %fd4, %r1;",
            "`.ftz` on a conversion without `.f32`",
        ),
        (
            "atom.global.min.f64 %fd4, [%rd1], %fd2;",
            "only `.add` is supported on `.f64`",
        ),
        ("testp.finite.f16 %p1, %h1;", "`.f32` or `.f64`"),
        ("copysign.f16 %h3, %h1, %h2;", "`.f32` or `.f64`"),
        ("add.rz.f16 %h3, %h1, %h2;", "`.rn` only"),
    ] {
        let err = refusal(&format!("    {line}"));
        assert!(err.contains(says), "{line}: {err}");
        assert!(err.contains("line 30"), "{line}: {err}");
    }
}
