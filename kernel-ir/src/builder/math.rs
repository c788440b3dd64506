//! Rust's `f32` math functions as IR sequences: the argument reductions and special cases around the
//! targets' primitive instructions ([`UnaryOp::Exp2`], [`UnaryOp::Log2`], [`UnaryOp::Sin`],
//! [`UnaryOp::Cos`]), written once here so every backend runs the same sequence and only the
//! primitive differs. Each function's bound per backend is in `docs/kernels.md` ("Math functions");
//! the reasoning behind it is on the function. Everything around the primitives is exact IEEE
//! arithmetic on the simulators and PTX (`fma.rn`, `.rn` operations), so the simulators, which
//! compute each primitive as the `f32` nearest its exact value, differ from a GPU only by the
//! primitive's error.
//!
//! [`UnaryOp::Exp2`]: crate::UnaryOp::Exp2
//! [`UnaryOp::Log2`]: crate::UnaryOp::Log2
//! [`UnaryOp::Sin`]: crate::UnaryOp::Sin
//! [`UnaryOp::Cos`]: crate::UnaryOp::Cos

use super::typed::*;
use super::KernelBuilder;

/// `ln 2` rounded to `f32`.
const LN_2: f32 = f32::from_bits(0x3f31_7218);
/// `ln 2` split for Cody–Waite reduction (fdlibm's `expf`): the high part has 12 low zero bits.
const LN_2_HI: f32 = f32::from_bits(0x3f31_7200);
const LN_2_LO: f32 = f32::from_bits(0x35bf_be8e);
/// `log2 e` rounded to `f32`.
const LOG2_E: f32 = std::f32::consts::LOG2_E;
/// `1 / 2π` rounded to `f32`.
const INV_2PI: f32 = f32::from_bits(0x3e22_f983);
/// `2π` as the sum of three `f32`s (the first is `2π` rounded; the others the remainders).
const TWO_PI: [f32; 3] = [
    f32::from_bits(0x40c9_0fdb),
    f32::from_bits(0xb43b_bd2e),
    f32::from_bits(0xa7f7_2ced),
];
/// Cephes' `tanhf` polynomial for `|x| < 0.625` (relative error 1.3e-7 there), highest power first:
/// -5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1,
/// each rounded to `f32`.
const TANH_POLY: [f32; 5] = [
    f32::from_bits(0xbbba_f0ea),
    f32::from_bits(0x3ca9_134e),
    f32::from_bits(0xbd5c_1e2d),
    f32::from_bits(0x3e08_8393),
    f32::from_bits(0xbeaa_aa99),
];
/// Below this `|x|`, `tanh` is the polynomial; from it on, `1 - 2 / (e^2|x| + 1)`.
const TANH_SMALL: f32 = 0.625;

/// `erf`'s Taylor series `2/√π · Σ (-1)^n x^(2n+1) / (n! (2n+1))` for `|x| < 0.5`, coefficients of
/// `x·z^n` (`z = x²`), `n` from 0, each rounded to `f32` (the first omitted term is below 2^-30).
const ERF_TAYLOR: [f32; 7] = [
    f32::from_bits(0x3f90_6ebb),
    f32::from_bits(0xbec0_93a3),
    f32::from_bits(0x3de7_1791),
    f32::from_bits(0xbcdc_1672),
    f32::from_bits(0x3bab_2de7),
    f32::from_bits(0xba60_16da),
    f32::from_bits(0x38fc_d193),
];
/// Abramowitz & Stegun 7.1.26 (absolute error 1.5e-7 on `x ≥ 0`): `p`, then `a1` … `a5`.
const ERF_AS_P: f32 = f32::from_bits(0x3ea7_ba05);
const ERF_AS: [f32; 5] = [
    f32::from_bits(0x3e82_7906),
    f32::from_bits(0xbe91_a98e),
    f32::from_bits(0x3fb5_f0e3),
    f32::from_bits(0xbfba_00e3),
    f32::from_bits(0x3f87_dc22),
];

/// `log10 2` rounded to `f32`.
const LOG10_2: f32 = f32::from_bits(0x3e9a_209b);
/// `1/k!` for `k` = 2 … 9: `exp_m1`'s Taylor series for `|x| < 0.35` (the first omitted term is below
/// 2^-36 of `x`).
const EXPM1_TAYLOR: [f32; 8] = [
    f32::from_bits(0x3f00_0000),
    f32::from_bits(0x3e2a_aaab),
    f32::from_bits(0x3d2a_aaab),
    f32::from_bits(0x3c08_8889),
    f32::from_bits(0x3ab6_0b61),
    f32::from_bits(0x3950_0d01),
    f32::from_bits(0x37d0_0d01),
    f32::from_bits(0x3638_ef1d),
];
/// `2/(2n+1)` for `n` = 0 … 6: `ln_1p(x) = 2·atanh(s)`, `s = x/(2+x)`, for `|x| < 0.35` (`|s| < 0.15`;
/// the first omitted term is below 2^-38 of `s`).
const LN1P_ATANH: [f32; 7] = [
    f32::from_bits(0x4000_0000),
    f32::from_bits(0x3f2a_aaab),
    f32::from_bits(0x3ecc_cccd),
    f32::from_bits(0x3e92_4925),
    f32::from_bits(0x3e63_8e39),
    f32::from_bits(0x3e3a_2e8c),
    f32::from_bits(0x3e1d_89d9),
];
/// Below this `|x|`, `exp_m1` and `ln_1p` use their series (no cancellation); from it on, `exp(x) - 1`
/// and `ln(1 + x)`.
const SMALL_ARGUMENT: f32 = 0.35;

impl KernelBuilder {
    /// `x` as an `f32` (a half widened exactly).
    fn f32_of<T: Transcendental>(&mut self, x: Val<T>) -> Val<F32> {
        Val::new(self.convert_value(x.value(), T::TYPE, F32::TYPE))
    }

    /// An `f32` result as `T` (rounded once to a half).
    fn as_t<T: Transcendental>(&mut self, x: Val<F32>) -> Val<T> {
        Val::new(self.convert_value(x.value(), F32::TYPE, T::TYPE))
    }

    /// `x * 2^k` for an integral `k` in [-252, 254] (an `f32` holding an integer): two exact
    /// multiplications by powers of two built from their bits, so a subnormal result is rounded once
    /// and an overflow is infinite.
    fn scale_by_pow2(&mut self, x: Val<F32>, k: Val<F32>) -> Val<F32> {
        let k: Val<I32> = self.float_to_int(k);
        let one = self.u32(1);
        let k1 = self.shr(k, one);
        let k2 = self.sub(k, k1);
        let mut out = x;
        for half in [k1, k2] {
            let bias = self.lit::<I32>(127);
            let biased = self.add(half, bias);
            let shift = self.u32(23);
            let bits = self.shl(biased, shift);
            let pow = self.bitcast::<F32, I32>(bits);
            out = self.mul(out, pow);
        }
        out
    }

    /// `x` clamped to `[lo, hi]` (a NaN becomes `lo`: `max` ignores a NaN operand).
    fn clamp_f32(&mut self, x: Val<F32>, lo: f32, hi: f32) -> Val<F32> {
        let (lo, hi) = (self.f32(lo), self.f32(hi));
        let x = self.max(x, lo);
        self.min(x, hi)
    }

    /// `2^x` (Rust's `exp2`): `x = k + r` with `k` an integer and `|r| ≤ 0.5` (exact), the target's
    /// `2^r`, then the exact scaling by `2^k`. A NaN stays NaN (it is carried by `r`), ±∞ give ∞ and
    /// +0.
    #[must_use]
    pub fn exp2<T: Transcendental>(&mut self, x: Val<T>) -> Val<T> {
        let x = self.f32_of(x);
        let clamped = self.clamp_f32(x, -252.0, 254.0);
        let k = self.round_even(clamped);
        let r = self.sub(x, k);
        let e = self.raw_exp2(r);
        let out = self.scale_by_pow2(e, k);
        self.as_t(out)
    }

    /// `e^x` (Rust's `exp`): `k = round(x·log2 e)`, `r = x - k·ln 2` by Cody–Waite with two fused
    /// steps (`|r| ≤ 0.35`, error far below an ulp), the target's `2^(r·log2 e)`, then the exact
    /// scaling by `2^k`.
    #[must_use]
    pub fn exp<T: Transcendental>(&mut self, x: Val<T>) -> Val<T> {
        let x = self.f32_of(x);
        let log2e = self.f32(LOG2_E);
        let t = self.mul(x, log2e);
        let t = self.clamp_f32(t, -252.0, 254.0);
        let k = self.round_even(t);
        let (hi, lo) = (self.f32(-LN_2_HI), self.f32(-LN_2_LO));
        let r = self.mul_add(k, hi, x);
        let r = self.mul_add(k, lo, r);
        let r = self.mul(r, log2e);
        let e = self.raw_exp2(r);
        let out = self.scale_by_pow2(e, k);
        self.as_t(out)
    }

    /// `ln x` (Rust's `ln`): the target's `log2 x` times `ln 2`.
    #[must_use]
    pub fn ln<T: Transcendental>(&mut self, x: Val<T>) -> Val<T> {
        let wide = self.f32_of(x);
        let l = self.log2(wide);
        let ln2 = self.f32(LN_2);
        let out = self.mul(l, ln2);
        self.as_t(out)
    }

    /// `x - k·2π` with `k` the integer nearest `x / 2π`, in three fused steps: within
    /// 3·2^-23 of the exact reduction for `|x| ≤ 2^16`, where it lies within [-π - 0.01, π + 0.01].
    fn reduce_2pi(&mut self, x: Val<F32>) -> Val<F32> {
        let inv = self.f32(INV_2PI);
        let t = self.mul(x, inv);
        let k = self.round_even(t);
        let mut r = x;
        for part in TWO_PI {
            let minus = self.f32(-part);
            r = self.mul_add(k, minus, r);
        }
        r
    }

    /// `sin x` (Rust's `sin`): reduced to about [-π, π], then the target's `sin`. Bounded for
    /// `|x| ≤ 2^16`; beyond, no bound is stated. ±∞ and NaN give NaN.
    #[must_use]
    pub fn sin<T: Transcendental>(&mut self, x: Val<T>) -> Val<T> {
        let wide = self.f32_of(x);
        let r = self.reduce_2pi(wide);
        let out = self.raw_sin(r);
        self.as_t(out)
    }

    /// `cos x` (Rust's `cos`), as [`KernelBuilder::sin`].
    #[must_use]
    pub fn cos<T: Transcendental>(&mut self, x: Val<T>) -> Val<T> {
        let wide = self.f32_of(x);
        let r = self.reduce_2pi(wide);
        let out = self.raw_cos(r);
        self.as_t(out)
    }

    /// `tanh x` (Rust's `tanh`): Cephes' odd polynomial for `|x| < 0.625` (exact arithmetic, so
    /// the same bits on the simulators and PTX), `±(1 - 2 / (e^2|x| + 1))` from there (1 once
    /// `e^2|x|` overflows). ±0 keep their sign; NaN stays NaN.
    #[must_use]
    pub fn tanh<T: Transcendental>(&mut self, x: Val<T>) -> Val<T> {
        let x = self.f32_of(x);
        let a = self.abs(x);
        let z = self.mul(x, x);
        let mut p = self.f32(TANH_POLY[0]);
        for c in &TANH_POLY[1..] {
            let c = self.f32(*c);
            p = self.mul_add(p, z, c);
        }
        let pz = self.mul(p, z);
        let small = self.mul_add(pz, x, x);
        let two = self.f32(2.0);
        let two_a = self.mul(a, two);
        let e = self.exp(two_a);
        let one = self.f32(1.0);
        let e1 = self.add(e, one);
        let q = self.div(two, e1);
        let big = self.sub(one, q);
        let big = self.copysign(big, x);
        let limit = self.f32(TANH_SMALL);
        let is_small = self.lt(a, limit);
        let out = self.select(is_small, small, big);
        self.as_t(out)
    }

    /// `x^y` (Rust's `powf`, IEEE `pow`): `2^(y·log2|x|)` with the sign of `x` when `y` is an odd
    /// integer, NaN for a finite negative `x` and a non-integer `y`, and 1 when `y` is ±0, `x` is 1,
    /// or `x` is -1 and `y` infinite. The error grows with `|y·log2 x|` (the exponent's rounding):
    /// see docs/kernels.md.
    #[must_use]
    pub fn powf<T: Transcendental>(&mut self, x: Val<T>, y: Val<T>) -> Val<T> {
        let (x, y) = (self.f32_of(x), self.f32_of(y));
        let ax = self.abs(x);
        let l = self.log2(ax);
        let yl = self.mul(y, l);
        let m = self.exp2(yl);
        // y an integer (±∞ counts as an even one), and odd.
        let yt = self.ftrunc(y);
        let y_int = self.eq(yt, y);
        let half = self.f32(0.5);
        let h = self.mul(y, half);
        let ht = self.ftrunc(h);
        let h_frac = self.ne(ht, h);
        let y_odd = self.and(y_int, h_frac);
        let signed = self.copysign(m, x);
        let r = self.select(y_odd, signed, m);
        // A finite negative x to a non-integer power.
        let zero = self.f32(0.0);
        let negative = self.lt(x, zero);
        let finite = self.is_finite(x);
        let not_int = self.not(y_int);
        let nan_case = self.and(negative, finite);
        let nan_case = self.and(nan_case, not_int);
        let nan = self.f32(f32::NAN);
        let r = self.select(nan_case, nan, r);
        // The cases that give 1 whatever the other operand (NaN included).
        let one = self.f32(1.0);
        let y_zero = self.eq(y, zero);
        let x_one = self.eq(x, one);
        let minus_one = self.f32(-1.0);
        let x_minus_one = self.eq(x, minus_one);
        let ay = self.abs(y);
        let inf = self.f32(f32::INFINITY);
        let y_inf = self.eq(ay, inf);
        let unit = self.and(x_minus_one, y_inf);
        let ones = self.or(y_zero, x_one);
        let ones = self.or(ones, unit);
        let out = self.select(ones, one, r);
        self.as_t(out)
    }

    /// The error function `erf x`: its Taylor series for `|x| < 0.5` (so small arguments keep their
    /// relative accuracy), Abramowitz & Stegun 7.1.26 from 0.5 on,
    /// `1 - (a1·t + … + a5·t^5)·e^(-x²)` with `t = 1 / (1 + p·|x|)`, given the sign of `x`. Absolute
    /// error about 1.5e-7 plus the evaluation's roundings; ±0 keep their sign, NaN stays NaN.
    #[must_use]
    pub fn erf<T: Transcendental>(&mut self, x: Val<T>) -> Val<T> {
        let x = self.f32_of(x);
        let a = self.abs(x);
        let z = self.mul(x, x);
        let mut s = self.f32(ERF_TAYLOR[ERF_TAYLOR.len() - 1]);
        for c in ERF_TAYLOR[..ERF_TAYLOR.len() - 1].iter().rev() {
            let c = self.f32(*c);
            s = self.mul_add(s, z, c);
        }
        let small = self.mul(s, x);
        let (one, p) = (self.f32(1.0), self.f32(ERF_AS_P));
        let denominator = self.mul_add(p, a, one);
        let t = self.recip(denominator);
        let mut poly = self.f32(ERF_AS[4]);
        for c in ERF_AS[..4].iter().rev() {
            let c = self.f32(*c);
            poly = self.mul_add(poly, t, c);
        }
        let poly = self.mul(poly, t);
        let minus_z = self.neg(z);
        let e = self.exp(minus_z);
        let tail = self.mul(poly, e);
        let big = self.sub(one, tail);
        let big = self.copysign(big, x);
        let half = self.f32(0.5);
        let is_small = self.lt(a, half);
        let out = self.select(is_small, small, big);
        self.as_t(out)
    }

    /// `log10 x` (Rust's `log10`): the target's `log2 x` times `log10 2`.
    #[must_use]
    pub fn log10<T: Transcendental>(&mut self, x: Val<T>) -> Val<T> {
        let wide = self.f32_of(x);
        let l = self.log2(wide);
        let c = self.f32(LOG10_2);
        let out = self.mul(l, c);
        self.as_t(out)
    }

    /// `e^x - 1` (Rust's `exp_m1`), accurate near 0: its Taylor series (exact operations) for
    /// `|x| < 0.35`, `exp(x) - 1` from there (at most 3.4 times `exp`'s relative error).
    #[must_use]
    pub fn exp_m1<T: Transcendental>(&mut self, x: Val<T>) -> Val<T> {
        let x = self.f32_of(x);
        let mut p = self.f32(EXPM1_TAYLOR[EXPM1_TAYLOR.len() - 1]);
        for c in EXPM1_TAYLOR[..EXPM1_TAYLOR.len() - 1].iter().rev() {
            let c = self.f32(*c);
            p = self.mul_add(p, x, c);
        }
        let x2 = self.mul(x, x);
        let small = self.mul_add(p, x2, x);
        let e = self.exp(x);
        let one = self.f32(1.0);
        let big = self.sub(e, one);
        let a = self.abs(x);
        let limit = self.f32(SMALL_ARGUMENT);
        let is_small = self.lt(a, limit);
        let out = self.select(is_small, small, big);
        self.as_t(out)
    }

    /// `ln(1 + x)` (Rust's `ln_1p`), accurate near 0: `2·atanh(s)` with `s = x / (2 + x)` as an odd
    /// series for `|x| < 0.35`, `ln(1 + x)` from there.
    #[must_use]
    pub fn ln_1p<T: Transcendental>(&mut self, x: Val<T>) -> Val<T> {
        let x = self.f32_of(x);
        let two = self.f32(2.0);
        let d = self.add(two, x);
        let s = self.div(x, d);
        let s2 = self.mul(s, s);
        let mut p = self.f32(LN1P_ATANH[LN1P_ATANH.len() - 1]);
        for c in LN1P_ATANH[..LN1P_ATANH.len() - 1].iter().rev() {
            let c = self.f32(*c);
            p = self.mul_add(p, s2, c);
        }
        let small = self.mul(p, s);
        let one = self.f32(1.0);
        let u = self.add(one, x);
        let big = self.ln(u);
        let a = self.abs(x);
        let limit = self.f32(SMALL_ARGUMENT);
        let is_small = self.lt(a, limit);
        let out = self.select(is_small, small, big);
        self.as_t(out)
    }

    /// `x` rounded to the nearest integer, ties away from zero (Rust's `round`): exact on every
    /// backend (`trunc`, an exact subtraction, a comparison and one exact addition).
    #[must_use]
    pub fn round<T: Transcendental>(&mut self, x: Val<T>) -> Val<T> {
        let x = self.f32_of(x);
        let t = self.ftrunc(x);
        let d = self.sub(x, t);
        let d = self.abs(d);
        let half = self.f32(0.5);
        let up = self.ge(d, half);
        let (one, zero) = (self.f32(1.0), self.f32(0.0));
        let step = self.select(up, one, zero);
        let step = self.copysign(step, x);
        let out = self.add(t, step);
        self.as_t(out)
    }
}
