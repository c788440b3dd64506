//! `f16` and `bf16` in kernels — conversions (`as`) to and from `f32` and between the halves, and
//! arithmetic, which the builder computes in `f32` and rounds once — on every backend that runs
//! here, against an independent reference: the `half` crate's conversions and the correctly rounded
//! result of each operation (computed in `f64`, where a sum, difference or product of two halves is
//! exact and a quotient or square root rounds innocuously, then rounded once by `half`).
//!
//! Conversions and every operation but `mul_add` (documented as two roundings) are compared bit for
//! bit on the simulators. WGSL allows an `f32` operation to round either way and to flush
//! subnormals, so on WebGPU the arithmetic may be one half-ulp off and a `bf16` below 2^-126 may be
//! flushed; the conversions are integer code there and compared bit for bit.

use crate::backends_support::{assembles_everywhere, mix, on_ptx_sim, on_sim, on_webgpu};

use half::{bf16 as Bf16, f16 as F16};
use warpforge_ir::{kernel, Kernel};

const BLOCK: u32 = 64;
const BLOCKS: u32 = 4;
const N: usize = (BLOCK * BLOCKS) as usize;
/// Half results per thread: f16 arithmetic (9), bf16 arithmetic (9), conversions (4).
const F16_OPS: usize = 9;
const EACH: usize = 2 * F16_OPS + 4;

#[kernel(block_size = 64)]
fn half_floats(
    floats: &[f32],
    hs: &[f16],
    bs: &[bf16],
    out: &mut [u16],
    widened: &mut [f32],
    less: &mut [u32],
) {
    let t = block_index() * block_size() + thread_index();
    let f = floats[t];
    let h = hs[t];
    let h2 = hs[(t + 1) % 256];
    let b = bs[t];
    let b2 = bs[(t + 1) % 256];
    let o = t * 22;
    out[o] = bitcast::<u16>(h + h2);
    out[o + 1] = bitcast::<u16>(h - h2);
    out[o + 2] = bitcast::<u16>(h * h2);
    out[o + 3] = bitcast::<u16>(h / h2);
    out[o + 4] = bitcast::<u16>(h.sqrt());
    out[o + 5] = bitcast::<u16>(h.min(h2));
    out[o + 6] = bitcast::<u16>(-h);
    out[o + 7] = bitcast::<u16>(h.abs());
    out[o + 8] = bitcast::<u16>(h.floor());
    out[o + 9] = bitcast::<u16>(b + b2);
    out[o + 10] = bitcast::<u16>(b - b2);
    out[o + 11] = bitcast::<u16>(b * b2);
    out[o + 12] = bitcast::<u16>(b / b2);
    out[o + 13] = bitcast::<u16>(b.sqrt());
    out[o + 14] = bitcast::<u16>(b.max(b2));
    out[o + 15] = bitcast::<u16>(-b);
    out[o + 16] = bitcast::<u16>(b.abs());
    out[o + 17] = bitcast::<u16>(b.ceil());
    out[o + 18] = bitcast::<u16>(f as f16);
    out[o + 19] = bitcast::<u16>(f as bf16);
    out[o + 20] = bitcast::<u16>(h as bf16);
    out[o + 21] = bitcast::<u16>(b as f16);
    widened[t * 2] = h as f32;
    widened[t * 2 + 1] = b as f32;
    let mut flags = 0u32;
    if h < h2 {
        flags = flags | 1;
    }
    if b < b2 {
        flags = flags | 2;
    }
    if h == h2 {
        flags = flags | 4;
    }
    less[t] = flags;
}

/// Edge cases of both formats (as bits), then random bits.
fn inputs() -> (Vec<f32>, Vec<u16>, Vec<u16>) {
    let mut floats: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        -1.5,
        65504.0,                       // f16 max
        65519.99,                      // rounds down to max
        65520.0,                       // a tie: rounds to ∞ (even)
        1.0 + f32::EPSILON * 1024.0,   // 1 + 2^-13: below a f16 tie
        1.0 + f32::EPSILON * 4096.0,   // 1 + 2^-11: a tie, to even (1.0)
        1.0 + f32::EPSILON * 12_288.0, // 1 + 3·2^-11: a tie, to even (up)
        2f32.powi(-14),                // least normal f16
        2f32.powi(-24),                // least subnormal f16
        2f32.powi(-25),                // a tie with 0: to even (0)
        2f32.powi(-25) * 1.000_001,    // just above: the least subnormal
        3.0 * 2f32.powi(-25),          // a tie between subnormals 1 and 2: to 2
        -5.960_464_5e-8,               //
        f32::MIN_POSITIVE,             // least normal f32 = least normal bf16
        f32::from_bits(0x0000_8000),   // an f32 subnormal that is a bf16 subnormal
        f32::from_bits(1),             // rounds to 0 in both
        f32::from_bits(0x3f80_8000),   // 1 + 2^-8: a bf16 tie, to even (1.0)
        f32::from_bits(0x3f81_8000),   // a bf16 tie, to even (up)
        f32::from_bits(0x3f80_8001),   // above a bf16 tie
        f32::from_bits(0x7f7f_ffff),   // f32 max: bf16 overflows to ∞
        f32::from_bits(0x7f7f_7fff),   // rounds to bf16 max
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7f80_0001), // a signalling NaN
        1e-40,
        -3.4e38,
    ];
    let mut hs: Vec<u16> = vec![
        0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x7c00,
        0xfc00, 0x7e00, 0x7d01, 0xfe55, 0x3555, 0x4248, 0x0200, 0x3bff, 0x3c01, 0x5640, 0x7800,
    ];
    let mut bs: Vec<u16> = vec![
        0x0000, 0x8000, 0x0001, 0x807f, 0x0080, 0x3f80, 0xbf80, 0x7f7f, 0xff7f, 0x7f80, 0xff80,
        0x7fc0, 0x7f81, 0x4049, 0x3eab, 0x0040, 0x3f7f, 0x3f81, 0x7f00, 0x4700, 0x1234, 0xc2f7,
    ];
    let mut k = 0u64;
    while floats.len() < N {
        k += 1;
        let r = mix(k);
        floats.push(f32::from_bits(r as u32));
        // Values in and around the f16 range.
        let e = 100 + (r >> 40) as u32 % 46;
        floats.push(f32::from_bits(((r >> 32) as u32 & 0x807f_ffff) | e << 23));
    }
    while hs.len() < N {
        k += 1;
        let r = mix(k);
        hs.push(r as u16);
        bs.push((r >> 16) as u16);
        // Finite values of moderate size, so sums and products stay in range.
        hs.push(((r >> 32) as u16 & 0x83ff) | ((10 + (r >> 48) as u16 % 12) << 10));
        bs.push(((r >> 32) as u16 & 0x807f) | ((100 + (r >> 48) as u16 % 56) << 7));
    }
    floats.truncate(N);
    hs.truncate(N);
    bs.truncate(N);
    bs.resize(N, 0x3f80);
    (floats, hs, bs)
}

/// The half nearest `x` (ties to the even bits; NaN → the canonical 0x7fff), found by binary search
/// over the format's positive finite values, each exact in `f64` (`half`'s own `from_f64` is not a
/// reference: it drops the low 32 bits of the significand before rounding).
pub(crate) fn nearest_half(x: f64, bf: bool) -> u16 {
    if x.is_nan() {
        return 0x7fff;
    }
    let (value, inf): (fn(u16) -> f64, u16) = if bf {
        (|b| f64::from(Bf16::from_bits(b).to_f32()), 0x7f80)
    } else {
        (|b| F16::from_bits(b).to_f64(), 0x7c00)
    };
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    let max = inf - 1;
    // Past the largest finite value by half a step or more: ∞ (the tie goes to ∞'s even bits).
    let step = value(max) - value(max - 1);
    if a >= value(max) + step / 2.0 {
        return sign | inf;
    }
    // The largest bits whose value is ≤ a, then the nearer of it and the next.
    let (mut lo, mut hi) = (0u16, max);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if value(mid) <= a {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let below = lo;
    if below == max || value(below) == a {
        return sign | below;
    }
    let (d_below, d_above) = (a - value(below), value(below + 1) - a);
    let pick = if d_below < d_above || (d_below == d_above && below % 2 == 0) {
        below
    } else {
        below + 1
    };
    sign | pick
}

fn f16_of(x: f64) -> u16 {
    nearest_half(x, false)
}

fn bf16_of(x: f64) -> u16 {
    nearest_half(x, true)
}

/// A half widened to `f32` as the IR defines it (a NaN keeps sign and payload, quiet).
fn widen(bits: u16, bf: bool) -> u32 {
    let x = if bf {
        f64::from(Bf16::from_bits(bits).to_f32())
    } else {
        F16::from_bits(bits).to_f64()
    };
    if !x.is_nan() {
        return (x as f32).to_bits();
    }
    let sign = u32::from(bits & 0x8000) << 16;
    let payload = if bf {
        u32::from(bits & 0x7f) << 16
    } else {
        u32::from(bits & 0x3ff) << 13
    };
    sign | 0x7fc0_0000 | payload
}

/// Results of one thread: the 22 half results, the two widened values and the comparison flags.
struct Want {
    halves: Vec<u16>,
    widened: [u32; 2],
    flags: u32,
}

fn expected(t: usize, floats: &[f32], hs: &[u16], bs: &[u16]) -> Want {
    let h = F16::from_bits(hs[t]).to_f64();
    let h2 = F16::from_bits(hs[(t + 1) % N]).to_f64();
    let b = f64::from(Bf16::from_bits(bs[t]).to_f32());
    let b2 = f64::from(Bf16::from_bits(bs[(t + 1) % N]).to_f32());
    let min = |x: f64, y: f64| x.min(y);
    let max = |x: f64, y: f64| x.max(y);
    let sign_flip = |bits: u16| bits ^ 0x8000;
    let mut halves = vec![
        f16_of(h + h2),
        f16_of(h - h2),
        f16_of(h * h2),
        f16_of(h / h2),
        f16_of(h.sqrt()),
        f16_of(min(h, h2)),
        sign_flip(hs[t]),
        hs[t] & 0x7fff,
        f16_of(h.floor()),
        bf16_of(b + b2),
        bf16_of(b - b2),
        bf16_of(b * b2),
        bf16_of(b / b2),
        bf16_of(b.sqrt()),
        bf16_of(max(b, b2)),
        sign_flip(bs[t]),
        bs[t] & 0x7fff,
        bf16_of(b.ceil()),
    ];
    let f = f64::from(floats[t]);
    halves.extend([f16_of(f), bf16_of(f), bf16_of(h), f16_of(b)]);
    let flags = u32::from(h < h2) | u32::from(b < b2) << 1 | u32::from(h == h2) << 2;
    Want {
        halves,
        widened: [widen(hs[t], false), widen(bs[t], true)],
        flags,
    }
}

const NAMES: [&str; EACH] = [
    "h + h2",
    "h - h2",
    "h * h2",
    "h / h2",
    "h.sqrt()",
    "h.min(h2)",
    "-h",
    "h.abs()",
    "h.floor()",
    "b + b2",
    "b - b2",
    "b * b2",
    "b / b2",
    "b.sqrt()",
    "b.max(b2)",
    "-b",
    "b.abs()",
    "b.ceil()",
    "f as f16",
    "f as bf16",
    "h as bf16",
    "b as f16",
];

fn u16s(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn buffers() -> Vec<Vec<u8>> {
    let (floats, hs, bs) = inputs();
    vec![
        floats.iter().flat_map(|f| f.to_le_bytes()).collect(),
        u16s(&hs),
        u16s(&bs),
        vec![0; N * EACH * 2],
        vec![0; N * 2 * 4],
        vec![0; N * 4],
    ]
}

fn is_nan(bits: u16, bf: bool) -> bool {
    let exp = if bf { 0x7f80 } else { 0x7c00 };
    bits & 0x7fff > exp
}

/// One half's distance in representable steps (on the sign-magnitude line).
fn ulps(a: u16, b: u16) -> u32 {
    let key = |x: u16| {
        if x & 0x8000 != 0 {
            -i32::from(x & 0x7fff)
        } else {
            i32::from(x)
        }
    };
    key(a).abs_diff(key(b))
}

/// Compares a backend's results (min/max of two zeros may give either, as for `f32`); `loose`:
/// WGSL's rules (arithmetic within one step, a subnormal
/// `bf16` operand may have been flushed, NaN-ness only).
fn check(backend: &str, out: &[Vec<u8>], loose: bool) {
    let (floats, hs, bs) = inputs();
    let got: Vec<u16> = out[3]
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    let widened: Vec<u32> = out[4]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    let flags: Vec<u32> = out[5]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    for t in 0..N {
        let want = expected(t, &floats, &hs, &bs);
        let inputs = format!(
            "f = {:e} ({:#x}), h = {:#06x}, h2 = {:#06x}, b = {:#06x}, b2 = {:#06x}",
            floats[t],
            floats[t].to_bits(),
            hs[t],
            hs[(t + 1) % N],
            bs[t],
            bs[(t + 1) % N]
        );
        for (c, &w) in want.halves.iter().enumerate() {
            let g = got[t * EACH + c];
            let bf = matches!(c, 9..=17 | 19 | 20);
            let arithmetic = c < 18;
            let ok = if loose && arithmetic {
                let bf_sub = |x: u16| x & 0x7f80 == 0 && x & 0x7fff != 0;
                let flushed_operand =
                    bf && (bf_sub(bs[t]) || bf_sub(bs[(t + 1) % N]) || bf_sub(w) || bf_sub(g));
                (is_nan(g, bf) && is_nan(w, bf)) || ulps(g, w) <= 1 || flushed_operand
            } else if c == 5 || c == 14 {
                // min/max of -0 and +0 may give either zero (docs/ir.md, 6.6).
                g == w || (g & 0x7fff == 0 && w & 0x7fff == 0)
            } else {
                g == w
            };
            assert!(
                ok,
                "{backend}: {} gave {g:#06x}, the reference {w:#06x} ({inputs})",
                NAMES[c]
            );
        }
        for (k, name) in ["h as f32", "b as f32"].iter().enumerate() {
            let (g, w) = (widened[t * 2 + k], want.widened[k]);
            assert_eq!(
                g, w,
                "{backend}: {name} gave {g:#x}, the reference {w:#x} ({inputs})"
            );
        }
        assert_eq!(
            flags[t], want.flags,
            "{backend}: comparisons (bit 0: h < h2, 1: b < b2, 2: h == h2) ({inputs})"
        );
    }
}

fn kernel() -> Kernel {
    half_floats()
}

#[test]
fn halves_convert_and_round_once_on_the_ir_simulator() {
    let out = on_sim(&kernel(), BLOCKS, &buffers(), 3);
    check("sim", &out, false);
}

#[test]
fn halves_convert_and_round_once_on_the_ptx_simulator() {
    on_ptx_sim(&kernel(), BLOCKS, &buffers(), 3, |b, out| {
        check(b, out, false)
    });
}

#[test]
fn halves_convert_on_webgpu() {
    if let Some(out) = on_webgpu("halves_convert_on_webgpu", &kernel(), BLOCKS, &buffers(), 3) {
        check("webgpu", &out, true);
    }
}

#[test]
fn half_ptx_assembles_for_every_target() {
    assembles_everywhere("half_ptx_assembles_for_every_target", &kernel());
}

/// On a GPU machine (`scripts/gpu-check.sh`): `cvt.rn.f16.f32`, `cvt.f32.f16` and the bf16 bit
/// sequences on hardware, bit for bit.
#[test]
fn halves_convert_and_round_once_on_cuda() {
    let test = "halves_convert_and_round_once_on_cuda";
    if let Some((device, out)) =
        crate::backends_support::on_cuda(test, &kernel(), BLOCKS, &buffers(), 3)
    {
        check(&device, &out, false);
    }
}
