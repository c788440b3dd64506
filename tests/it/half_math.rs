//! The math functions on `f16` and `bf16` (`x.exp()`, `x.ln()`, `x.sin()`, `x.tanh()`, `x.powf(y)`,
//! `x.erf()`, `rsqrt(x)`, `x.mul_add(y, z)`, …): the builder widens the half to `f32`, runs the `f32`
//! function and rounds the result once, so each is within the `f32` function's bound (docs/kernels.md,
//! "Math functions") plus half an ulp of the half. The `f32` bounds are far below a half's ulp (2^13
//! `f32` ulps for `f16`, 2^16 for `bf16`), so the result is within one half-ulp of the exact value —
//! the nearest half, or its neighbour when the exact value lies near a midpoint — except where a bound
//! is absolute (WGSL's `sin`/`cos` 2^-11 on [-π, π], `ln`/`log2` 2^-21 near 1): there the absolute
//! bound applies as well. The reference is Rust's `f64` function of the half's exact value.

use crate::backends_support::{mix, on_ptx_sim, on_sim, on_webgpu};

use half::{bf16 as Bf16, f16 as F16};
use warpforge_ir::kernel;

const BLOCK: u32 = 64;
const BLOCKS: u32 = 2;
const N: usize = (BLOCK * BLOCKS) as usize;
const EACH: usize = 10;

#[kernel(block_size = 64)]
fn half_math(hs: &[f16], bs: &[bf16], out_h: &mut [f16], out_b: &mut [bf16]) {
    let t = block_index() * block_size() + thread_index();
    let h = hs[t];
    let b = bs[t];
    let o = t * 10;
    out_h[o] = h.exp();
    out_h[o + 1] = h.abs().ln();
    out_h[o + 2] = h.sin();
    out_h[o + 3] = h.tanh();
    out_h[o + 4] = h.abs().powf(0.75);
    out_h[o + 5] = h.erf();
    out_h[o + 6] = rsqrt(h.abs());
    out_h[o + 7] = h.mul_add(h, 0.5);
    out_h[o + 8] = h.exp2();
    out_h[o + 9] = h.cos();
    out_b[o] = b.exp();
    out_b[o + 1] = b.abs().ln();
    out_b[o + 2] = b.sin();
    out_b[o + 3] = b.tanh();
    out_b[o + 4] = b.abs().powf(0.75);
    out_b[o + 5] = b.erf();
    out_b[o + 6] = rsqrt(b.abs());
    out_b[o + 7] = b.mul_add(b, 0.5);
    out_b[o + 8] = b.exp2();
    out_b[o + 9] = b.cos();
}

const NAMES: [&str; EACH] = [
    "exp", "ln|x|", "sin", "tanh", "|x|^0.75", "erf", "rsqrt|x|", "x*x+0.5", "exp2", "cos",
];

/// The exact result of function `c` at `x` (in `f64`).
fn exact(c: usize, x: f64) -> f64 {
    match c {
        0 => x.exp(),
        1 => x.abs().ln(),
        2 => x.sin(),
        3 => x.tanh(),
        4 => x.abs().powf(0.75),
        5 => erf(x),
        6 => 1.0 / x.abs().sqrt(),
        7 => x.mul_add(x, 0.5),
        8 => x.exp2(),
        _ => x.cos(),
    }
}

/// `erf` by its Taylor series (|x| ≤ 3) or its continued fraction (beyond): within 1e-14.
fn erf(x: f64) -> f64 {
    let a = x.abs();
    let r = if a <= 3.0 {
        let (mut term, mut sum, mut n) = (a, a, 0.0);
        while term.abs() > 1e-17 * sum.abs() {
            n += 1.0;
            term *= -a * a / n;
            sum += term / (2.0 * n + 1.0);
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    } else {
        // erfc(a) = e^-a² / (a √π) · 1/(1 + 1/(2a²)/(1 + 2/(2a²)/(1 + …)))
        let mut f = 0.0;
        for k in (1..60).rev() {
            f = (k as f64 / 2.0) / (a + f);
        }
        1.0 - (-a * a).exp() / (std::f64::consts::PI.sqrt() * (a + f))
    };
    r.copysign(x)
}

fn inputs() -> (Vec<u16>, Vec<u16>) {
    let mut hs: Vec<u16> = vec![
        0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x4000, 0xc000, 0x4248, 0x4900, 0xc900, 0x0001,
        0x0400, 0x3555, 0x4a00, 0xca00, 0x2e66,
    ];
    let mut bs: Vec<u16> = vec![
        0x0000, 0x8000, 0x3f80, 0xbf80, 0x3f00, 0x4000, 0xc000, 0x4049, 0x4120, 0xc120, 0x0080,
        0x3eab, 0x42b0, 0xc2b0, 0x3dcd, 0x4300,
    ];
    let mut k = 0u64;
    while hs.len() < N {
        k += 1;
        let r = mix(k + 500);
        // Magnitudes from 2^-8 to 2^3 (e^8 stays finite in f16).
        hs.push((r as u16 & 0x83ff) | ((7 + (r >> 16) as u16 % 11) << 10));
        bs.push(((r >> 32) as u16 & 0x807f) | ((119 + (r >> 48) as u16 % 11) << 7));
    }
    (hs, bs)
}

/// One step of the half below and above `v` (the format's spacing at `v`).
fn ulp(v: f64, bf: bool) -> f64 {
    let (bits, min_exp) = if bf { (8, -126) } else { (11, -14) };
    let e = if v == 0.0 {
        min_exp
    } else {
        (v.abs().log2().floor() as i32).max(min_exp)
    };
    2f64.powi(e - (bits - 1))
}

fn check(backend: &str, out: &[Vec<u8>], wgsl: bool) {
    let (hs, bs) = inputs();
    for (bf, inputs, buffer) in [(false, &hs, 2), (true, &bs, 3)] {
        let got: Vec<u16> = out[buffer]
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        for t in 0..N {
            let x = if bf {
                f64::from(Bf16::from_bits(inputs[t]).to_f32())
            } else {
                F16::from_bits(inputs[t]).to_f64()
            };
            for c in 0..EACH {
                let g = got[t * EACH + c];
                let gv = if bf {
                    f64::from(Bf16::from_bits(g).to_f32())
                } else {
                    F16::from_bits(g).to_f64()
                };
                let want = exact(c, x);
                let ok = if want.is_nan() {
                    gv.is_nan()
                } else if want.is_infinite() || gv.is_infinite() {
                    // Overflow: the exact value is past the largest half (or ∞ itself).
                    gv == want
                        || (gv.is_infinite() && gv.signum() == want.signum() && want.abs() > 6e4)
                } else {
                    let mut bound = ulp(want, bf);
                    if wgsl && matches!(c, 2 | 9) {
                        bound += 2f64.powi(-11); // WGSL's sin/cos: absolute 2^-11 on [-π, π]
                    }
                    if wgsl && c == 7 {
                        bound += ulp(want, bf); // WGSL's fma may be unfused
                    }
                    (gv - want).abs() <= bound
                };
                assert!(
                    ok,
                    "{backend}: {} of {} {x:e} ({:#06x}) gave {gv:e} ({g:#06x}), exact {want:e}",
                    NAMES[c],
                    if bf { "bf16" } else { "f16" },
                    inputs[t]
                );
            }
        }
    }
}

fn buffers() -> Vec<Vec<u8>> {
    let (hs, bs) = inputs();
    let bytes = |v: &[u16]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    vec![
        bytes(&hs),
        bytes(&bs),
        vec![0; N * EACH * 2],
        vec![0; N * EACH * 2],
    ]
}

#[test]
fn half_math_is_within_one_half_ulp_on_the_simulators() {
    check("sim", &on_sim(&half_math(), BLOCKS, &buffers(), 2), false);
    on_ptx_sim(&half_math(), BLOCKS, &buffers(), 2, |b, out| {
        check(b, out, false)
    });
}

#[test]
fn half_math_is_within_its_bound_on_webgpu() {
    let test = "half_math_is_within_its_bound_on_webgpu";
    if let Some(out) = on_webgpu(test, &half_math(), BLOCKS, &buffers(), 2) {
        check("webgpu", &out, true);
    }
}
