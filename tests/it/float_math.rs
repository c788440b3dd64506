//! Rust's methods on kernel values (`x.abs()`, `x.floor()`, `x.ceil()`, `x.trunc()`,
//! `x.round_ties_even()`, `x.sqrt()`, `y.copysign(x)`, `x.is_nan()`, `x.is_finite()`, `a.min(b)`, `a.max(b)`, `n.abs()`, `n.count_ones()`, …) on every backend
//! that runs here — the IR simulator, the emitted PTX on the PTX simulator for sm_70, sm_80 and
//! sm_90, the emitted WGSL on WebGPU (lavapipe in CI) — against the host's own methods, bit for
//! bit, on edge cases: signed zeros, subnormals of both signs (a WGSL implementation may flush
//! them: `floor` and `ceil` must still step to -1 and 1), halves and ties, values at 2^23 and
//! beyond, infinities and NaNs. Two things the IR leaves open are compared as such: a NaN result
//! only as a NaN (its payload is not portable), and on WebGPU nothing computed from a NaN or an
//! infinity (WGSL lets an implementation assume neither occurs), and a zero result as a zero of
//! either sign (WGSL lets it ignore the sign of a zero). WGSL's `sqrt` is not exact by its
//! accuracy table: on WebGPU it is checked against its bound instead.

use crate::backends_support::{assembles_everywhere, mix, on_ptx_sim, on_sim, on_webgpu};

use warpforge_ir::{kernel, Kernel};

/// How far WGSL's `sqrt` may be from the correctly rounded one, in ulp, for a normal operand: the
/// WGSL accuracy table inherits it from `1.0 / inverseSqrt(x)` (2 ulp, then 2.5 ulp for the
/// division).
const WGSL_SQRT_ULPS: i64 = 5;

/// Float results per thread.
const EACH: usize = 9;
/// Integer results per thread.
const INTS: usize = 5;
const BLOCKS: u32 = 2;
const N: usize = 64 * BLOCKS as usize;

#[kernel(block_size = 64)]
fn float_math(xs: &[f32], ys: &[f32], ns: &[i32], out: &mut [f32], ints: &mut [u32]) {
    let t = block_index() * block_size() + thread_index();
    let x = xs[t];
    let y = ys[t];
    let n = ns[t];
    let o = t * 9;
    out[o] = x.abs();
    out[o + 1] = x.floor();
    out[o + 2] = x.ceil();
    out[o + 3] = x.trunc();
    out[o + 4] = x.round_ties_even();
    out[o + 5] = x.min(y);
    out[o + 6] = x.max(y);
    out[o + 7] = x.sqrt();
    out[o + 8] = y.copysign(x);
    let p = t * 5;
    ints[p] = n.abs() as u32;
    ints[p + 1] = (n as u32).count_ones();
    ints[p + 2] = (n as u32).leading_zeros();
    ints[p + 3] = x.is_nan() as u32;
    ints[p + 4] = x.is_finite() as u32;
}

fn inputs() -> (Vec<f32>, Vec<f32>, Vec<i32>) {
    let mut xs: Vec<f32> = vec![
        0.0,
        -0.0,
        f32::from_bits(1),
        -f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        -f32::from_bits(0x0040_0000),
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        0.499_999_97,
        -0.999_999_94,
        1.0,
        -1.0,
        3.75,
        -3.75,
        8_388_607.5,
        2.172_594_8e-14,
        -8_388_607.5,
        8_388_608.0,
        16_777_215.0,
        1e30,
        -1e30,
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7f80_0001),
    ];
    let mut k = 0u64;
    while xs.len() < N {
        k += 1;
        let r = mix(k);
        // Magnitudes from 2^-3 to 2^24 with random fractions, both signs.
        let e = 124 + (r >> 40) as u32 % 28;
        xs.push(f32::from_bits(((r as u32) & 0x807f_ffff) | e << 23));
    }
    let ys: Vec<f32> = (0..N)
        .map(|i| match i % 4 {
            0 => 0.25,
            1 => -3.0,
            2 => 1e20,
            _ => f32::from_bits(mix(i as u64 + 99) as u32 & 0x3fff_ffff),
        })
        .collect();
    let mut ns: Vec<i32> = vec![0, 1, -1, i32::MIN, i32::MAX, -7, 1 << 20];
    while ns.len() < N {
        k += 1;
        ns.push(mix(k) as i32);
    }
    (xs, ys, ns)
}

fn buffers() -> Vec<Vec<u8>> {
    let (xs, ys, ns) = inputs();
    let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    vec![
        f(&xs),
        f(&ys),
        ns.iter().flat_map(|x| x.to_le_bytes()).collect(),
        vec![0; N * EACH * 4],
        vec![0; N * INTS * 4],
    ]
}

/// Compares a backend's outputs with the host's (`finite_only`: WebGPU, where results computed
/// from a NaN or an infinity are not compared).
fn check(backend: &str, out: &[Vec<u8>], finite_only: bool) {
    let (xs, ys, ns) = inputs();
    let words = |b: &[u8]| -> Vec<u32> {
        b.chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect()
    };
    let (got, got_ints) = (words(&out[3]), words(&out[4]));
    const NAMES: [&str; EACH] = [
        "abs",
        "floor",
        "ceil",
        "trunc",
        "round_ties_even",
        "min",
        "max",
        "sqrt",
        "copysign",
    ];
    for t in 0..N {
        let (x, y) = (xs[t], ys[t]);
        let want = [
            x.abs(),
            x.floor(),
            x.ceil(),
            x.trunc(),
            x.round_ties_even(),
            x.min(y),
            x.max(y),
            x.sqrt(),
            y.copysign(x),
        ];
        let n = ns[t];
        let want_ints = [
            n.wrapping_abs() as u32,
            (n as u32).count_ones(),
            (n as u32).leading_zeros(),
            u32::from(x.is_nan()),
            u32::from(x.is_finite()),
        ];
        assert_eq!(
            &got_ints[t * INTS..(t + 1) * INTS],
            &want_ints,
            "{backend}: {n}: abs, count_ones, leading_zeros; {x:e}: is_nan, is_finite"
        );
        if finite_only && !x.is_finite() {
            continue;
        }
        for (c, w) in want.iter().enumerate() {
            let g = f32::from_bits(got[t * EACH + c]);
            if finite_only && NAMES[c] == "sqrt" {
                // WGSL's sqrt is bounded: within WGSL_SQRT_ULPS of Rust's for a normal operand
                // (a subnormal one may be flushed to zero first), NaN for a negative one.
                if x < 0.0 {
                    assert!(g.is_nan(), "{backend}: sqrt({x:e}) gave {g:e}, not NaN");
                } else if x.is_normal() {
                    let ulps = (i64::from(g.to_bits()) - i64::from(w.to_bits())).abs();
                    assert!(
                        ulps <= WGSL_SQRT_ULPS,
                        "{backend}: sqrt({x:e}) gave {g:e}, {ulps} ulp from Rust's {w:e}"
                    );
                }
                continue;
            }
            let same = if w.is_nan() {
                g.is_nan()
            } else if finite_only && *w == 0.0 {
                // WGSL lets an implementation ignore the sign of a zero: lavapipe gave -0.0 for
                // floor(2e-14) when the operand was a constant.
                g == 0.0
            } else {
                g.to_bits() == w.to_bits()
            };
            assert!(
                same,
                "{backend}: {x:e} ({:#x}).{}({}) gave {g:e} ({:#x}), Rust gives {w:e} ({:#x})",
                x.to_bits(),
                NAMES[c],
                if c >= 5 {
                    format!("{y:e}")
                } else {
                    String::new()
                },
                g.to_bits(),
                w.to_bits()
            );
        }
    }
}

fn kernel() -> Kernel {
    float_math()
}

#[test]
fn float_methods_are_rusts_on_the_ir_simulator() {
    let out = on_sim(&kernel(), BLOCKS, &buffers(), 3);
    check("sim", &out, false);
}

#[test]
fn float_methods_are_rusts_on_the_ptx_simulator() {
    on_ptx_sim(&kernel(), BLOCKS, &buffers(), 3, |backend, out| {
        check(backend, out, false)
    });
}

#[test]
fn float_methods_are_rusts_on_webgpu() {
    let test = "float_methods_are_rusts_on_webgpu";
    if let Some(out) = on_webgpu(test, &kernel(), BLOCKS, &buffers(), 3) {
        check("webgpu", &out, true);
    }
}

#[test]
fn float_methods_assemble_for_every_target() {
    assembles_everywhere("float_methods_assemble_for_every_target", &kernel());
}
