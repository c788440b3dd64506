//! Rust's `f32` math functions in kernels (`x.exp()`, `x.exp2()`, `x.ln()`, `x.log2()`,
//! `x.sin()`, `x.cos()`, `x.tanh()`, `x.powf(y)`, `x.recip()`, `rsqrt(x)`, `x.round()`,
//! `x.mul_add(y, z)`, `x.erf()`) on every backend that runs here, against an independent reference: Rust's
//! `f64` functions on the same operands (an `f64` result is within an `f64` ulp of the exact value,
//! 2^-29 of an `f32` ulp), within the bound docs/kernels.md states for that backend ("Math
//! functions"): the simulators' column for the IR simulator and the emitted PTX on the PTX
//! simulator (sm_70, sm_80, sm_90), WGSL's column for WebGPU (lavapipe in CI). The exact ones
//! (`recip` and `mul_add` on the simulators, `round` everywhere) are compared bit for bit. Inputs:
//! signed zeros, subnormals, ±1, ties, the edges of overflow and underflow, huge arguments,
//! infinities, NaNs, and random values over 2^-30 to 2^20.
//!
//! WGSL lets an implementation assume no NaN or infinity occurs and flush subnormals, so on WebGPU
//! only finite operands with finite results are compared, and a result below 2^-126 may be zero.

use crate::backends_support::{assembles_everywhere, mix, on_cuda, on_ptx_sim, on_sim, on_webgpu};

use warpforge_ir::{kernel, Kernel};

/// Results per thread.
const EACH: usize = 16;
const BLOCKS: u32 = 8;
const N: usize = 64 * BLOCKS as usize;

#[kernel(block_size = 64)]
fn math_functions(xs: &[f32], ys: &[f32], zs: &[f32], out: &mut [f32]) {
    let t = block_index() * block_size() + thread_index();
    let x = xs[t];
    let y = ys[t];
    let z = zs[t];
    let o = t * 16;
    out[o] = x.exp();
    out[o + 1] = x.exp2();
    out[o + 2] = x.ln();
    out[o + 3] = x.log2();
    out[o + 4] = x.sin();
    out[o + 5] = x.cos();
    out[o + 6] = x.tanh();
    out[o + 7] = x.powf(y);
    out[o + 8] = x.recip();
    out[o + 9] = rsqrt(x);
    out[o + 10] = x.round();
    out[o + 11] = x.mul_add(y, z);
    out[o + 12] = x.erf();
    out[o + 13] = x.log10();
    out[o + 14] = x.exp_m1();
    out[o + 15] = x.ln_1p();
}

const NAMES: [&str; EACH] = [
    "exp", "exp2", "ln", "log2", "sin", "cos", "tanh", "powf", "recip", "rsqrt", "round",
    "mul_add", "erf", "log10", "exp_m1", "ln_1p",
];

/// Which column of the bounds table a backend is checked against.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Column {
    /// The IR simulator and the PTX simulator: each primitive the `f32` nearest its value.
    Simulators,
    /// WGSL's accuracy table, on WebGPU.
    Wgsl,
    /// PTX's `.approx` bounds, on a CUDA GPU (docs/kernels.md's PTX column).
    Ptx,
}

fn inputs() -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let edge: Vec<f32> = vec![
        0.0,
        -0.0,
        f32::from_bits(1),
        -f32::from_bits(1),
        f32::from_bits(0x0040_0000),
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.5,
        -2.5,
        0.499_999_97,
        2.0,
        0.625,
        0.624_999_94,
        -0.625,
        1e-8,
        -3e-5,
        std::f32::consts::PI,
        -std::f32::consts::PI,
        std::f32::consts::TAU,
        100.0,
        -1000.0,
        65536.0,
        -65536.0,
        88.72,
        88.73,
        89.0,
        -87.3,
        -103.0,
        -104.0,
        -126.0,
        -149.0,
        -149.5,
        -150.0,
        127.99,
        128.0,
        253.5,
        300.0,
        -300.0,
        1e30,
        -1e30,
        f32::MAX,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        0.999_999_94,
        1.000_000_1,
        9.0,
        -10.0,
    ];
    let mut xs = edge;
    let mut k = 0u64;
    while xs.len() < N {
        k += 1;
        let r = mix(k);
        // Magnitudes from 2^-30 to 2^20 with random fractions, both signs; every third one in
        // [-16, 16) where exp, tanh and powf are most used.
        let x = if k % 3 == 0 {
            (r >> 40) as f32 / (1u64 << 24) as f32 * 32.0 - 16.0
        } else {
            let e = 97 + (r >> 40) as u32 % 50;
            f32::from_bits(((r as u32) & 0x807f_ffff) | e << 23)
        };
        xs.push(x);
    }
    let y_edge = [
        0.5,
        2.0,
        3.0,
        -1.0,
        -2.5,
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1.0 / 3.0,
        -3.0,
    ];
    let ys: Vec<f32> = (0..N)
        .map(|i| {
            if i < xs.len() && i % 2 == 0 {
                y_edge[(i / 2) % y_edge.len()]
            } else {
                let r = mix(i as u64 + 7_000);
                let y = (r >> 40) as f32 / (1u64 << 24) as f32 * 16.0 - 8.0;
                if r & 1 == 0 {
                    y.round()
                } else {
                    y
                }
            }
        })
        .collect();
    let zs: Vec<f32> = (0..N)
        .map(|i| {
            let r = mix(i as u64 + 9_000);
            f32::from_bits(((r as u32) & 0x807f_ffff) | (110 + (r >> 40) as u32 % 40) << 23)
        })
        .collect();
    (xs, ys, zs)
}

fn buffers() -> Vec<Vec<u8>> {
    let (xs, ys, zs) = inputs();
    let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    vec![f(&xs), f(&ys), f(&zs), vec![0; N * EACH * 4]]
}

/// The spacing of `f32`s at `v` (an `f32` ulp of the value, `2^-149` below the normal range).
fn ulp(v: f64) -> f64 {
    let a = v.abs();
    if a < f64::from(f32::MIN_POSITIVE) {
        return 2f64.powi(-149);
    }
    2f64.powi(a.log2().floor() as i32 - 23)
}

/// The reference: Rust's `f64` function on the operands.
fn reference(c: usize, x: f32, y: f32, z: f32) -> f64 {
    let (x, y, z) = (f64::from(x), f64::from(y), f64::from(z));
    match c {
        0 => x.exp(),
        1 => x.exp2(),
        2 => x.ln(),
        3 => x.log2(),
        4 => x.sin(),
        5 => x.cos(),
        6 => x.tanh(),
        7 => x.powf(y),
        8 => 1.0 / x,
        9 => 1.0 / x.sqrt(),
        10 => x.round(),
        11 => x.mul_add(y, z),
        12 => erf(x),
        13 => x.log10(),
        14 => x.exp_m1(),
        _ => x.ln_1p(),
    }
}

/// The error function in `f64`, independently of the kernel's method: its Taylor series below 3
/// (terms summed until they vanish; cancellation costs at most 4 of `f64`'s 16 digits there), and
/// `1 - erfc` by Lentz's continued fraction from 3 on.
fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    let r = if a < 3.0 {
        let (mut term, mut sum, mut n) = (a, a, 0.0f64);
        while term.abs() > 1e-20 * sum.abs() {
            n += 1.0;
            term *= -a * a / n;
            sum += term / (2.0 * n + 1.0);
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    } else {
        // erfc(a) = e^{-a²}/√π · 1/(a + 1/2/(a + 1/(a + 3/2/(a + …)))).
        let mut f = a;
        for k in (1..200).rev() {
            f = a + (f64::from(k) / 2.0) / f;
        }
        1.0 - (-a * a).exp() / std::f64::consts::PI.sqrt() / f
    };
    r.copysign(x)
}

/// The bound docs/kernels.md states for function `c` in `column` at these operands: `Ok(ulps)` in
/// `f32` ulps of the reference, `Err(abs)` an absolute error, `None` when none is stated.
fn bound(column: Column, c: usize, x: f32, y: f32, z: f32) -> Option<Result<f64, f64>> {
    let sims = column == Column::Simulators;
    let (xd, yd) = (f64::from(x), f64::from(y));
    if column == Column::Ptx {
        return ptx_bound(c, x, y);
    }
    Some(match NAMES[c] {
        "exp" => Ok(if sims { 1.0 } else { 4.0 + 3.0 * xd.abs() }),
        "exp2" => Ok(if sims { 1.0 } else { 5.0 }),
        "ln" if sims => Ok(2.0),
        "log2" if sims => Ok(1.0),
        // WGSL: absolute 2^-21 (log2) in [0.5, 2], 3 ulp elsewhere; ln adds the product's rounding.
        "ln" | "log2" if (0.5..=2.0).contains(&x) => Err(2f64.powi(-21)),
        "ln" | "log2" => Ok(4.0),
        "sin" | "cos" if sims && x.abs() <= 65536.0 => Err(2f64.powi(-21)),
        "sin" | "cos" if !sims && x.abs() <= std::f32::consts::PI => Err(2f64.powi(-11)),
        "sin" | "cos" => return None,
        "tanh" if sims => Ok(2.0),
        "tanh" => Err(2f64.powi(-19)),
        "powf" => {
            let e = (yd * xd.abs().log2()).abs();
            Ok(if sims {
                2.0 + 2.0 * e
            } else {
                5.0 + 6.0 * e.max(yd.abs())
            })
        }
        "erf" => Err(if sims { 2f64.powi(-21) } else { 2f64.powi(-19) }),
        "log10" if sims => Ok(2.0),
        "log10" if (0.5..=2.0).contains(&x) => Err(2f64.powi(-21)),
        "log10" => Ok(4.0),
        "exp_m1" if sims => Ok(4.0),
        "exp_m1" if x.abs() < 0.35 => Ok(4.0),
        "exp_m1" => Ok(4.0 * (4.0 + 3.0 * xd.abs())),
        "ln_1p" if sims => Ok(3.0),
        "ln_1p" if x.abs() < 0.35 => Ok(6.0),
        "ln_1p" if (-0.5..=1.0).contains(&x) => Err(2f64.powi(-20)),
        "ln_1p" => Ok(6.0),
        "recip" | "mul_add" if sims => Ok(0.0),
        "recip" if (2f32.powi(-126)..=2f32.powi(126)).contains(&x.abs()) => Ok(2.5),
        "recip" => return None,
        "rsqrt" => Ok(if sims { 1.0 } else { 2.0 }),
        "round" => Ok(0.0),
        // WGSL's fma may be unfused: the product rounded (either way) first, then the sum.
        _ => {
            let (x, y, z) = (xd, yd, f64::from(z));
            Err(ulp(x * y) + 2.0 * ulp(x.mul_add(y, z)))
        }
    })
}

/// docs/kernels.md's PTX column, from the ISA's bounds for the `.approx` instructions.
fn ptx_bound(c: usize, x: f32, y: f32) -> Option<Result<f64, f64>> {
    let (xd, yd) = (f64::from(x), f64::from(y));
    Some(match NAMES[c] {
        "exp" | "exp2" => Ok(3.0),
        // lg2.approx: absolute 2^-22 in (0.5, 2), relative 2^-22 elsewhere (at most 4 ulp).
        "ln" | "log2" if x > 0.5 && x < 2.0 => Err(2f64.powi(-21)),
        "log2" => Ok(4.0),
        "ln" => Ok(5.0),
        "sin" | "cos" if x.abs() <= 65536.0 => Err(2f64.powi(-20)),
        "sin" | "cos" => return None,
        "tanh" => Ok(4.0),
        "erf" => Err(2f64.powi(-21)),
        "log10" if x > 0.5 && x < 2.0 => Err(2f64.powi(-21)),
        "log10" => Ok(5.0),
        "exp_m1" if x.abs() < 0.35 => Ok(2.0),
        "exp_m1" => Ok(12.0),
        "ln_1p" if x.abs() < 0.35 => Ok(3.0),
        "ln_1p" if x > -0.5 && x < 1.0 => Err(2f64.powi(-21)),
        "ln_1p" => Ok(6.0),
        "powf" => {
            let e = (yd * xd.abs().log2()).abs();
            Ok(3.0 + 3.0 * e.max(yd.abs()))
        }
        // rsqrt.approx: relative 2^-22.9, at most 2.2 ulp.
        "rsqrt" => Ok(2.2),
        _ => Ok(0.0),
    })
}

/// Compares a backend's outputs with the reference and prints the largest error seen per function
/// (in ulps or absolute, as its bound).
fn check(backend: &str, out: &[Vec<u8>], column: Column) {
    let (xs, ys, zs) = inputs();
    let got: Vec<f32> = out[3]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    let mut worst = [0f64; EACH];
    let mut failures: Vec<String> = Vec::new();
    let mut fail = |message: String| failures.push(message);
    for t in 0..N {
        let (x, y, z) = (xs[t], ys[t], zs[t]);
        for c in 0..EACH {
            let g = got[t * EACH + c];
            let want = reference(c, x, y, z);
            let what = || {
                format!(
                    "{backend}: {}({x:e} [{:#x}], {y:e}, {z:e}) gave {g:e} [{:#x}], the reference is {want:e}",
                    NAMES[c],
                    x.to_bits(),
                    g.to_bits()
                )
            };
            if column == Column::Wgsl {
                let operands_finite = x.is_finite() && (c != 7 && c != 11 || y.is_finite());
                // WGSL lets an implementation flush a subnormal operand to zero.
                let subnormal = x.is_subnormal() || y.is_subnormal();
                if !operands_finite || subnormal || !want.is_finite() || (want as f32).is_infinite()
                {
                    continue;
                }
                // Overflow of an intermediate (e^2|x| in tanh) may be assumed away too.
                if c == 6 && x.abs() > 40.0 {
                    continue;
                }
            }
            if want.is_nan() {
                if !g.is_nan() {
                    fail(what());
                }
                continue;
            }
            let want32 = want as f32;
            if want32.is_infinite() || g.is_infinite() {
                if g != want32 {
                    fail(what());
                }
                continue;
            }
            // WGSL may flush a subnormal result, and ignore the sign of a zero.
            if column == Column::Wgsl && want.abs() < f64::from(f32::MIN_POSITIVE) && g == 0.0 {
                continue;
            }
            let Some(limit) = bound(column, c, x, y, z) else {
                if g.abs() > 1.0 {
                    fail(what());
                }
                continue;
            };
            let err = (f64::from(g) - want).abs();
            match limit {
                Ok(0.0) => {
                    let zeros = column == Column::Wgsl && g == 0.0 && want32 == 0.0;
                    if g.to_bits() != want32.to_bits() && !zeros {
                        fail(what());
                    }
                }
                Ok(ulps) => {
                    let e = err / ulp(want);
                    // powf's bound grows with |y·log2 x|: the worst is reported per unit of it.
                    let scale = if NAMES[c] == "powf" {
                        1.0 + (f64::from(y) * f64::from(x).abs().log2()).abs()
                    } else {
                        1.0
                    };
                    worst[c] = worst[c].max(e / scale);
                    if e > ulps {
                        fail(format!("{}: {e:.2} ulp, the bound is {ulps}", what()));
                    }
                }
                Err(abs) => {
                    worst[c] = worst[c].max(err);
                    if err > abs {
                        fail(format!(
                            "{}: absolute error {err:e}, the bound is {abs:e}",
                            what()
                        ));
                    }
                }
            }
        }
    }
    let report: Vec<String> = (0..EACH)
        .map(|c| format!("{} {:.3e}", NAMES[c], worst[c]))
        .collect();
    eprintln!("{backend}: largest errors: {}", report.join(", "));
    assert!(
        failures.is_empty(),
        "{} results outside their bounds:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn kernel() -> Kernel {
    math_functions()
}

#[test]
fn math_functions_are_within_their_bounds_on_the_ir_simulator() {
    let out = on_sim(&kernel(), BLOCKS, &buffers(), 3);
    check("sim", &out, Column::Simulators);
}

#[test]
fn math_functions_are_within_their_bounds_on_the_ptx_simulator() {
    on_ptx_sim(&kernel(), BLOCKS, &buffers(), 3, |backend, out| {
        check(backend, out, Column::Simulators)
    });
}

#[test]
fn math_functions_are_within_their_bounds_on_webgpu() {
    let test = "math_functions_are_within_their_bounds_on_webgpu";
    if let Some(out) = on_webgpu(test, &kernel(), BLOCKS, &buffers(), 3) {
        check("webgpu", &out, Column::Wgsl);
    }
}

/// On a GPU machine (`scripts/gpu-check.sh`): the PTX on CUDA against the PTX column.
#[test]
fn math_functions_are_within_their_bounds_on_cuda() {
    let test = "math_functions_are_within_their_bounds_on_cuda";
    if let Some((device, out)) = on_cuda(test, &kernel(), BLOCKS, &buffers(), 3) {
        check(&device, &out, Column::Ptx);
    }
}

#[test]
fn math_functions_assemble_for_every_target() {
    assembles_everywhere("math_functions_assemble_for_every_target", &kernel());
}
