//! Half precision on the PTX simulator: arithmetic (`add`, `sub`, `mul`, `fma` with `.ftz`,
//! `.sat`, `.relu`; `min`/`max` with `.NaN` and `.xorsign.abs`; `neg`, `abs`), `setp` (one
//! predicate, and the packed pair's two), `set`, and `cvt` between `.f16`/`.bf16`/`.f16x2`/`.bf16x2`
//! and `.f32`, `.f64`, integers and each other in every rounding the ISA allows (with `.relu`,
//! `.satfinite`, `.sat`, `.ftz`), plus `set` on other types, `testp` and `copysign`.
//!
//! The expected bits are in `fixtures/half/cases.txt`, written by `fixtures/half/gen.py` without
//! the simulator: exact `Fraction` arithmetic, rounded by bisection in the sorted list of every
//! finite value of the format (ties to the even pattern), `.f16` round-to-nearest cross-checked
//! with numpy's `float64 → float16`. Operands cover zeros of both signs, subnormals, the largest
//! finite values, infinities, NaN, exact ties and overflow. NaN results are the canonical `0x7fff`.

use crate::common;
use common::float::{hex, refusal, run};

const CASES: &str = include_str!("../fixtures/half/cases.txt");

/// A body, its operand sets `[a, b, c]` and the expected `%rd9` of each.
type Case = (&'static str, Vec<[u64; 3]>, Vec<u64>);

/// The fixture's cases.
fn cases() -> Vec<Case> {
    let mut out: Vec<Case> = Vec::new();
    for line in CASES.lines().filter(|l| !l.starts_with('#')) {
        if let Some(body) = line.strip_prefix("> ") {
            out.push((body, Vec::new(), Vec::new()));
            continue;
        }
        let w: Vec<u64> = line
            .split(' ')
            .map(|x| u64::from_str_radix(x, 16).expect("hex"))
            .collect();
        let last = out.last_mut().expect("a body first");
        last.1.push([w[0], w[1], w[2]]);
        last.2.push(w[3]);
    }
    out
}

#[test]
fn every_form_matches_exact_arithmetic() {
    let all = cases();
    assert!(all.len() > 200, "the fixture has its cases");
    let mut failed = Vec::new();
    for (body, inputs, want) in &all {
        let got = run(&format!("    {body}"), inputs);
        let bad: Vec<String> = (0..inputs.len())
            .filter(|&i| got[i] != want[i])
            .take(4)
            .map(|i| {
                format!(
                    "{:?} -> {} want {}",
                    hex(&inputs[i]),
                    hex(&[got[i]])[0],
                    hex(&[want[i]])[0]
                )
            })
            .collect();
        if !bad.is_empty() {
            failed.push(format!("{body}\n    {}", bad.join("\n    ")));
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} forms differ:\n{}",
        failed.len(),
        all.len(),
        failed.join("\n")
    );
}

#[test]
fn approximate_functions_stay_within_the_isa_bounds() {
    // ex2.approx.f16: max relative error 2^-9.9; tanh.approx: 2^-10.987 (ISA 9.7.4.9/10).
    let xs: [f32; 8] = [0.0, 1.0, -1.0, 0.5, 3.25, -7.5, 10.0, -0.125];
    let bits = |x: f32| u64::from(half::f16::from_f32(x).to_bits());
    let inputs: Vec<[u64; 3]> = xs.iter().map(|&x| [bits(x), 0, 0]).collect();
    let check = |body: &str, f: fn(f64) -> f64, tol: f64, bf16: bool| {
        let got = run(
            &format!("    cvt.u16.u32 %h1, %r1; {body}; cvt.u64.u16 %rd9, %h0;"),
            &inputs,
        );
        let got2 = run(
            &format!(
                "    mov.b32 %r5, {{%h1, %h1}}; cvt.u16.u32 %h1, %r1; mov.b32 %r5, {{%h1, %h1}}; {}; mov.b32 {{%h0, %h2}}, %r4; cvt.u64.u16 %rd9, %h2;",
                body.replace(".f16 %h0, %h1", ".f16x2 %r4, %r5").replace(".bf16 %h0, %h1", ".bf16x2 %r4, %r5")
            ),
            &inputs,
        );
        for (i, &x) in xs.iter().enumerate() {
            let x = if bf16 {
                f64::from(half::bf16::from_f32(x))
            } else {
                f64::from(half::f16::from_f32(x))
            };
            let exact = f(x);
            for g in [got[i], got2[i]] {
                let v = if bf16 {
                    f64::from(half::bf16::from_bits(g as u16))
                } else {
                    f64::from(half::f16::from_bits(g as u16))
                };
                assert!(
                    (v - exact).abs() <= tol * exact.abs().max(1e-30) + 1e-7,
                    "{body} of {x}: {v} vs {exact}"
                );
            }
        }
    };
    check("ex2.approx.f16 %h0, %h1", f64::exp2, 2f64.powf(-9.9), false);
    check(
        "tanh.approx.f16 %h0, %h1",
        f64::tanh,
        2f64.powf(-10.0),
        false,
    );
    let bf: Vec<[u64; 3]> = xs
        .iter()
        .map(|&x| [u64::from(half::bf16::from_f32(x).to_bits()), 0, 0])
        .collect();
    let got = run(
        "    cvt.u16.u32 %h1, %r1; ex2.approx.ftz.bf16 %h0, %h1; cvt.u64.u16 %rd9, %h0;",
        &bf,
    );
    for (i, &x) in xs.iter().enumerate() {
        let x = f64::from(half::bf16::from_f32(x));
        let v = f64::from(half::bf16::from_bits(got[i] as u16));
        assert!(
            (v - x.exp2()).abs() <= 2f64.powi(-7) * x.exp2(),
            "ex2.bf16 {x}: {v}"
        );
    }
}

#[test]
fn packing_moves_and_memory_keep_the_bits() {
    // mov.b32 {lo, hi} packs the first operand into bits 0-15; unpacking reverses it; .f16/.b16
    // loads, stores and moves carry the bits unchanged.
    let inputs = [[0x1234_5678u64, 0, 0], [0xffff_0000, 0, 0]];
    let got = run(
        "    mov.b32 {%h1, %h2}, %r1; mov.b32 %r4, {%h2, %h1}; mov.f16 %h3, %h1; selp.f16 %h0, %h3, %h2, 1; cvt.u64.u16 %rd4, %h0; cvt.u64.u32 %rd9, %r4; shl.b64 %rd4, %rd4, 32; or.b64 %rd9, %rd9, %rd4;",
        &inputs,
    );
    assert_eq!(hex(&got), hex(&[0x5678_5678_1234, 0x0000_0000_ffff]));
}

#[test]
fn forms_the_isa_does_not_have_are_refused_by_name() {
    for (body, why) in [
        ("add.rz.f16 %h0, %h1, %h2", "`.rz`"),
        ("add.ftz.bf16 %h0, %h1, %h2", "`.ftz`"),
        ("mul.sat.bf16x2 %r4, %r1, %r2", "`.sat`"),
        ("fma.f16 %h0, %h1, %h2, %h3", "needs `.rn`"),
        ("fma.rn.sat.relu.f16 %h0, %h1, %h2, %h3", "`.relu`"),
        ("fma.rn.oob.f16 %h0, %h1, %h2, %h3", "`.oob`"),
        ("min.xorsign.f16 %h0, %h1, %h2", "`.xorsign` and `.abs`"),
        ("ex2.approx.bf16 %h0, %h1", "ex2.approx.ftz.bf16"),
        ("add.f16 %h0, %h1, 0f3F800000", "float literal"),
        ("cvt.f16.f32 %h0, %f1", "needs `.rn`"),
        ("cvt.rn.f32.f16 %f4, %h1", "forbids a rounding"),
        ("cvt.s32.f16 %r4, %h1", "`.rni`"),
        ("cvt.rm.relu.f16.f32 %h0, %f1", "`.rn` or `.rz`"),
        (
            "cvt.rn.satfinite.f16.f64 %h0, %fd1",
            "`.relu` and `.satfinite`",
        ),
        ("cvt.rm.f16x2.f32 %r4, %f1, %f2", "packed pair"),
        ("cvt.rn.f32.f16x2 %f4, %r1", "from `.f16x2`"),
        ("cvt.rn.f16.f16 %h0, %h1", "same format"),
        ("setp.lt.ftz.bf16 %p1, %h1, %h2", "`.ftz`"),
        ("set.lt.f16x2.f16 %r4, %h1, %h2", "not a form"),
        ("set.ltu.u32.s32 %r4, %r1, %r2", "unordered"),
        ("testp.normal.f16 %p1, %h1", "`.f32` or `.f64`"),
    ] {
        let e = refusal(&format!("    {body};"));
        assert!(e.contains(why), "{body}: {e}");
    }
}

/// `fixtures/half/half_mix.cu` as nvcc 13 wrote it (`-O3`, sm_80 and sm_90), run on inputs and
/// outputs from `fixtures/half/half_mix.py` (exact rounding, numpy for the `f32` steps).
#[test]
fn nvcc_half_intrinsics_compute_what_numpy_and_exact_rounding_say() {
    use warpforge_sim::ptx::{self, PtxArg, PtxKernel, PtxLaunch};
    use warpforge_sim::{BufferArg, SimOptions};
    let data = include_str!("../fixtures/half/half_mix.txt");
    let words = |name: &str, label: &str| -> Vec<u32> {
        let line = data
            .lines()
            .find(|l| l.starts_with(&format!("{name} {label} ")))
            .expect("the fixture has the buffer");
        line.split(' ')
            .skip(2)
            .map(|w| u32::from_str_radix(w, 16).expect("hex"))
            .collect()
    };
    let bytes = |v: &[u32]| -> Vec<u8> { v.iter().flat_map(|w| w.to_le_bytes()).collect() };
    for ptx_text in [
        include_str!("../fixtures/half/half_mix.sm80.ptx"),
        include_str!("../fixtures/half/half_mix.sm90.ptx"),
    ] {
        for name in ["half_mix", "bf16_mix"] {
            let kernel = PtxKernel::load(ptx_text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
            let (a, b, c) = (words(name, "a"), words(name, "b"), words(name, "c"));
            let (want, want_f) = (words(name, "o"), words(name, "F"));
            let n = a.len() as u32;
            let (ab, bb, cb) = (bytes(&a), bytes(&b), bytes(&c));
            let mut out = vec![0u8; want.len() * 4];
            let mut fout = vec![0u8; want_f.len() * 4];
            let launch = PtxLaunch {
                grid: [n.div_ceil(32), 1, 1],
                block: [32, 1, 1],
                dynamic_shared: 0,
            };
            let args = [
                PtxArg::Buffer,
                PtxArg::Buffer,
                PtxArg::Buffer,
                PtxArg::Buffer,
                PtxArg::Buffer,
                PtxArg::Scalar(u64::from(n)),
            ];
            let report = ptx::run(
                &kernel,
                &launch,
                &args,
                &mut [
                    BufferArg::ReadOnly(&ab),
                    BufferArg::ReadOnly(&bb),
                    BufferArg::ReadOnly(&cb),
                    BufferArg::ReadWrite(&mut out),
                    BufferArg::ReadWrite(&mut fout),
                ],
                &SimOptions::default(),
            )
            .expect("the launch starts");
            assert!(report.is_clean(), "{name}");
            let got: Vec<u32> = out
                .chunks(4)
                .map(|w| u32::from_le_bytes(w.try_into().expect("4 bytes")))
                .collect();
            let got_f: Vec<u32> = fout
                .chunks(4)
                .map(|w| u32::from_le_bytes(w.try_into().expect("4 bytes")))
                .collect();
            let per = want.len() / a.len();
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(
                    g, w,
                    "{name} out[{i}] (thread {}, result {}): {g:#x} vs {w:#x}; a {:#x} b {:#x} c {:#x}",
                    i / per, i % per, a[i / per], b[i / per], c[i / per]
                );
            }
            assert_eq!(got_f, want_f, "{name} fout");
        }
    }
}
