//! The two 16-bit floating-point formats of PTX — `.f16` (IEEE binary16: 1 sign, 5 exponent,
//! 10 fraction bits) and `.bf16` (bfloat16: 1 sign, 8 exponent, 7 fraction bits) — as bits in a
//! register: exact widening to `f64`, and **correctly rounded** narrowing of an exact value (an
//! `f64`, or an integer) to either format in each direction PTX names (`.rn`, `.rz`, `.rm`, `.rp`),
//! with subnormal results, overflow by direction, and the `.satfinite` clamp.
//!
//! Arithmetic on halves is computed in `f64` and rounded once here. A sum or product of two halves,
//! and a product of two halves plus a third, is exact in `f64` for `.f16`; for `.bf16` a sum of two
//! values far apart (or an fma whose addend is) may not be. So the `f64` result is first rounded to
//! **odd** (`odd_sum`): the neighbour of the exact value whose last bit is 1 when the exact value
//! is not an `f64`. Rounding a 53-bit round-to-odd result to a format of `p` ≤ 26 bits gives the
//! correctly rounded result in every direction (the classical round-to-odd theorem, which needs
//! 53 ≥ 2p + 2), so no double-rounding error can occur.
//!
//! **NaN.** A NaN result of half arithmetic or of a conversion to a half is the canonical NaN
//! `0x7fff` (CUDA's `CUDART_NAN_FP16` and bfloat16 NaN); the ISA leaves other NaN payloads
//! unspecified. Widening a half NaN keeps its sign and payload, quieted (as `cvt.f64.f32` does).

use super::inst::Rnd;
use super::inst_half::HFmt;

/// The canonical NaN of both formats.
pub(crate) const NAN16: u16 = 0x7fff;

impl HFmt {
    /// Precision in bits (the leading 1 included): 11, 8.
    fn precision(self) -> u32 {
        match self {
            HFmt::F16 => 11,
            HFmt::Bf16 => 8,
        }
    }

    /// The exponent of the least normal value (−14, −126); the largest is `−emin + 1`.
    fn emin(self) -> i32 {
        match self {
            HFmt::F16 => -14,
            HFmt::Bf16 => -126,
        }
    }

    fn exp_mask(self) -> u16 {
        match self {
            HFmt::F16 => 0x7c00,
            HFmt::Bf16 => 0x7f80,
        }
    }

    /// The bits of `+∞`, of the largest finite value and of `1.0`.
    pub fn inf(self) -> u16 {
        self.exp_mask()
    }

    pub fn max(self) -> u16 {
        self.exp_mask() - 1
    }

    pub fn one(self) -> u16 {
        match self {
            HFmt::F16 => 0x3c00,
            HFmt::Bf16 => 0x3f80,
        }
    }

    pub fn is_nan(self, h: u16) -> bool {
        h & 0x7fff > self.exp_mask()
    }

    pub fn is_subnormal(self, h: u16) -> bool {
        h & self.exp_mask() == 0 && h & 0x7fff != 0
    }

    /// `h` with a subnormal flushed to a zero of its sign (`.ftz`).
    pub fn flush(self, h: u16) -> u16 {
        if self.is_subnormal(h) {
            h & 0x8000
        } else {
            h
        }
    }

    /// The exact value of `h` (a NaN keeps its sign and payload, quiet).
    pub fn to_f64(self, h: u16) -> f64 {
        match self {
            HFmt::F16 => half::f16::from_bits(h).to_f64(),
            // bf16 is the upper half of an f32.
            HFmt::Bf16 => f64::from(f32::from_bits(u32::from(h) << 16)),
        }
    }

    /// `h` as an `f32` (exact; a NaN keeps its sign and payload, quiet).
    pub fn to_f32_bits(self, h: u16) -> u32 {
        match self {
            HFmt::F16 if self.is_nan(h) => {
                let sign = u32::from(h & 0x8000) << 16;
                sign | 0x7fc0_0000 | (u32::from(h & 0x3ff) << 13)
            }
            HFmt::F16 => half::f16::from_bits(h).to_f32().to_bits(),
            HFmt::Bf16 if self.is_nan(h) => (u32::from(h) << 16) | 0x0040_0000,
            HFmt::Bf16 => u32::from(h) << 16,
        }
    }

    /// `x` rounded to this format by `dir` (`None` is to nearest even); `satfinite` clamps what
    /// would be infinite (an infinite `x` too) to the largest finite value of its sign.
    pub fn narrow(self, x: f64, dir: Rnd, satfinite: bool) -> u16 {
        if x.is_nan() {
            return NAN16;
        }
        let neg = x.is_sign_negative();
        let sign = if neg { 0x8000 } else { 0 };
        if x.is_infinite() {
            return sign | if satfinite { self.max() } else { self.inf() };
        }
        if x == 0.0 {
            return sign;
        }
        let bits = x.to_bits();
        let (field, frac) = ((bits >> 52) as i32 & 0x7ff, bits & ((1 << 52) - 1));
        let (m, e) = if field == 0 {
            (frac, -1074)
        } else {
            (frac | 1 << 52, field - 1075)
        };
        self.round(neg, u128::from(m), e, dir, satfinite)
    }

    /// The integer `v` rounded to this format by `dir`.
    pub fn narrow_int(self, v: i128, dir: Rnd, satfinite: bool) -> u16 {
        if v == 0 {
            return 0;
        }
        self.round(v < 0, v.unsigned_abs(), 0, dir, satfinite)
    }

    /// `±m · 2^e` (`m` not zero) rounded by `dir`.
    fn round(self, neg: bool, m: u128, e: i32, dir: Rnd, satfinite: bool) -> u16 {
        let p = self.precision() as i32;
        let sign: u16 = if neg { 0x8000 } else { 0 };
        let top = e + 127 - m.leading_zeros() as i32; // the exponent of m's leading bit
        let emax = 1 - self.emin();
        // The quantum: the weight of the last bit the result can have at this exponent.
        let q = top.max(self.emin()) - (p - 1);
        let shift = q - e;
        let (mut n, away) = if shift <= 0 {
            (m << (-shift).min(127), false)
        } else {
            let (n, rem, half) = if shift >= 128 {
                (0, m, None)
            } else {
                let half = 1u128 << (shift - 1);
                (m >> shift, m & ((half << 1) - 1), Some(half))
            };
            let away = rem != 0
                && match dir {
                    Rnd::Zero => false,
                    Rnd::Up => !neg,
                    Rnd::Down => neg,
                    Rnd::None | Rnd::Nearest => match half {
                        Some(h) => rem > h || (rem == h && n & 1 == 1),
                        None => false,
                    },
                };
            (n, away)
        };
        n += u128::from(away);
        let mut q = q;
        if n >> p != 0 {
            n >>= 1;
            q += 1;
        }
        if n == 0 {
            return sign;
        }
        let exponent = q + p - 1;
        if top > emax || exponent > emax {
            let inf = !satfinite
                && match dir {
                    Rnd::Zero => false,
                    Rnd::Up => !neg,
                    Rnd::Down => neg,
                    Rnd::None | Rnd::Nearest => true,
                };
            return sign | if inf { self.inf() } else { self.max() };
        }
        let frac_bits = p as u32 - 1;
        if n >> frac_bits == 0 {
            return sign | n as u16; // subnormal
        }
        let field = (exponent - self.emin() + 1) as u16;
        sign | field << frac_bits | (n as u16 & ((1 << frac_bits) - 1))
    }
}

/// `p + c` in `f64` rounded to odd (see the module's comment), for finite `p` and `c` whose sum
/// does not overflow: the rounded sum, moved to its odd neighbour toward the exact value when it
/// is inexact and even. The rounding error of `p + c` is exact (TwoSum).
pub(crate) fn odd_sum(p: f64, c: f64) -> f64 {
    let r = p + c;
    if !r.is_finite() {
        return r;
    }
    let pv = r - c;
    let cv = r - pv;
    let err = (p - pv) + (c - cv);
    if err == 0.0 || r.to_bits() & 1 == 1 {
        return r;
    }
    let bits = r.to_bits();
    // One ulp toward the error's side: away from zero when they agree in sign.
    let away = (err > 0.0) == (r > 0.0);
    f64::from_bits(if away { bits + 1 } else { bits - 1 })
}
