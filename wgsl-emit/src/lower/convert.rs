//! Conversions between integers and `f32`, and `abs`, the roundings of `f32` to an integer
//! (`float_math`), `is_nan`/`is_finite` and `copysign`, with Rust's meaning, mostly computed on the
//! bits with `u32` arithmetic. WGSL leaves the direction of an inexact `f32(int)` to the implementation, makes
//! `i32(NaN)` indeterminate, clamps to the nearest integer the float can represent, and has no
//! 64-bit integers of its own (naga's `i64(x)` was unreliable on lavapipe, see `widen_i32`). So:
//!
//! - `int as f32`: the magnitude, as two `u32` halves, is normalized (its top bit to bit 63), its
//!   top 24 bits rounded to nearest even from the guard bit and the bits below, and the `f32`
//!   assembled from sign, exponent and mantissa (`bitcast<f32>`).
//! - `f32 as int`: the exponent and mantissa are read from the bits; the integer part is the
//!   mantissa shifted by the exponent (a NaN gives 0, a magnitude past the target's range its
//!   bound), negated for a negative signed result.
//!
//! The operand passes through a function variable first, so that a conversion of a literal is not
//! a constant expression that naga would evaluate (and reject a shift it finds out of range).

use naga::{BinaryOperator as Op, Expression, Handle, Literal, MathFunction, Scalar};
use warpforge_ir::{ScalarType, UnaryOp};

use super::builder::scalar_of;
use super::Lowerer;

type H = Handle<Expression>;

impl Lowerer<'_> {
    /// `x` (of IR type `t`) as a run-time value: stored to a fresh variable and loaded back.
    pub(super) fn opaque(&mut self, x: H, t: ScalarType) -> H {
        let var = self.b.temp("wf_convert", t);
        self.b.push(naga::Statement::Store {
            pointer: var,
            value: x,
        });
        self.b.load(var)
    }

    fn bin(&mut self, op: Op, a: H, b: H) -> H {
        self.b.binary(op, a, b)
    }

    pub(super) fn bin_u(&mut self, op: Op, a: H, b: u32) -> H {
        let b = self.b.u32(b);
        self.b.binary(op, a, b)
    }

    /// `a << s` / `a >> s` for a run-time `s` known to be below 32 (masked so that no evaluator can
    /// see an amount out of range).
    pub(super) fn shift(&mut self, op: Op, a: H, s: H) -> H {
        let s = self.bin_u(Op::And, s, 31);
        self.b.binary(op, a, s)
    }

    /// The two `u32` halves (high, low) of a 64-bit integer.
    fn halves(&mut self, x: H, t: ScalarType) -> (H, H) {
        let unsigned = if t == ScalarType::I64 {
            self.b.cast(x, Scalar::U64, true)
        } else {
            x
        };
        let low = self.low_u32(unsigned, false);
        let k = self.b.u32(32);
        let high = self.b.binary(Op::ShiftRight, unsigned, k);
        let high = self.low_u32(high, false);
        (high, low)
    }

    /// Two's complement negation of a 64-bit value in halves.
    fn negate64(&mut self, (hi, lo): (H, H)) -> (H, H) {
        let zero = self.b.u32(0);
        let lo_n = self.bin(Op::Subtract, zero, lo);
        let not_hi = self.b.emit(Expression::Unary {
            op: naga::UnaryOperator::BitwiseNot,
            expr: hi,
        });
        let lo_zero = self.bin_u(Op::Equal, lo, 0);
        let (one, none) = (self.b.u32(1), self.b.u32(0));
        let carry = self.b.select(lo_zero, one, none);
        let hi_n = self.bin(Op::Add, not_hi, carry);
        (hi_n, lo_n)
    }

    /// `x` (an integer of IR type `from`) as the nearest `f32`, ties to even.
    pub(super) fn int_to_float(&mut self, x: H, from: ScalarType) -> H {
        let x = self.opaque(x, from);
        // The sign and the magnitude as (high, low) halves.
        let (negative, (hi, lo)) = match from {
            ScalarType::I32 => {
                let zero = self.b.literal(Literal::I32(0));
                let negative = self.bin(Op::Less, x, zero);
                let bits = self.b.cast(x, Scalar::U32, true);
                let zero = self.b.u32(0);
                let minus = self.bin(Op::Subtract, zero, bits);
                let magnitude = self.b.select(negative, minus, bits);
                (Some(negative), (self.b.u32(0), magnitude))
            }
            ScalarType::U64 => (None, self.halves(x, from)),
            ScalarType::I64 => {
                let (hi, lo) = self.halves(x, from);
                let top = self.bin_u(Op::ShiftRight, hi, 31);
                let negative = self.bin_u(Op::Equal, top, 1);
                let (nh, nl) = self.negate64((hi, lo));
                let hi = self.b.select(negative, nh, hi);
                let lo = self.b.select(negative, nl, lo);
                (Some(negative), (hi, lo))
            }
            // u8, u16, u32: zero-extended in a u32.
            _ => (None, (self.b.u32(0), x)),
        };
        // Normalize: the top set bit to bit 63 of (h, l); `lz` leading zeros of the 64 bits.
        let clz_hi = self.b.math(MathFunction::CountLeadingZeros, hi, None);
        let clz_lo = self.b.math(MathFunction::CountLeadingZeros, lo, None);
        let hi_zero = self.bin_u(Op::Equal, hi, 0);
        let low_lz = self.bin_u(Op::Add, clz_lo, 32);
        let lz = self.b.select(hi_zero, low_lz, clz_hi);
        // lz < 32: h = hi << lz | lo >> (32 - lz) (nothing from lo when lz is 0), l = lo << lz;
        // lz >= 32: h = lo << (lz - 32), l = 0.
        let small = self.bin_u(Op::Less, lz, 32);
        let h_small = {
            let up = self.shift(Op::ShiftLeft, hi, lz);
            let k = self.b.u32(32);
            let back = self.bin(Op::Subtract, k, lz);
            let carried = self.shift(Op::ShiftRight, lo, back);
            let none = self.b.u32(0);
            let lz_zero = self.bin_u(Op::Equal, lz, 0);
            let carried = self.b.select(lz_zero, none, carried);
            self.bin(Op::InclusiveOr, up, carried)
        };
        let l_small = self.shift(Op::ShiftLeft, lo, lz);
        let k = self.b.u32(32);
        let lz_big = self.bin(Op::Subtract, lz, k);
        let h_big = self.shift(Op::ShiftLeft, lo, lz_big);
        let h = self.b.select(small, h_small, h_big);
        let none = self.b.u32(0);
        let l = self.b.select(small, l_small, none);
        // The top 24 bits, rounded to nearest even on the guard bit and everything below it.
        let mantissa = self.bin_u(Op::ShiftRight, h, 8);
        let guard = self.bin_u(Op::And, h, 0x80);
        let guard = self.bin_u(Op::NotEqual, guard, 0);
        let below = self.bin_u(Op::And, h, 0x7f);
        let below = self.bin(Op::InclusiveOr, below, l);
        let sticky = self.bin_u(Op::NotEqual, below, 0);
        let odd = self.bin_u(Op::And, mantissa, 1);
        let odd = self.bin_u(Op::NotEqual, odd, 0);
        let tie_break = self.bin(Op::LogicalOr, sticky, odd);
        let up = self.bin(Op::LogicalAnd, guard, tie_break);
        let (one, zero) = (self.b.u32(1), self.b.u32(0));
        let add = self.b.select(up, one, zero);
        let rounded = self.bin(Op::Add, mantissa, add);
        // The exponent: the top bit's position (63 - lz) plus one when rounding carried to 2^24.
        let carried = self.bin_u(Op::ShiftRight, rounded, 24);
        let k = self.b.u32(63 + 127);
        let exponent = self.bin(Op::Subtract, k, lz);
        let exponent = self.bin(Op::Add, exponent, carried);
        let fraction = self.shift(Op::ShiftRight, rounded, carried);
        let fraction = self.bin_u(Op::And, fraction, 0x7f_ffff);
        let exponent = self.bin_u(Op::ShiftLeft, exponent, 23);
        let mut bits = self.bin(Op::InclusiveOr, exponent, fraction);
        if let Some(negative) = negative {
            let sign = self.b.u32(0x8000_0000);
            let none = self.b.u32(0);
            let sign = self.b.select(negative, sign, none);
            bits = self.bin(Op::InclusiveOr, bits, sign);
        }
        // Zero has no top bit: +0.0.
        let is_zero = self.bin_u(Op::Equal, lz, 64);
        let none = self.b.u32(0);
        let bits = self.b.select(is_zero, none, bits);
        self.b.cast(bits, Scalar::F32, true)
    }

    /// `x` (an `f32`) as an integer of IR type `to`: truncated, saturated, NaN → 0.
    pub(super) fn float_to_int(&mut self, x: H, to: ScalarType) -> H {
        let x = self.opaque(x, ScalarType::F32);
        let bits = self.b.cast(x, Scalar::U32, true);
        let sign = self.bin_u(Op::ShiftRight, bits, 31);
        let negative = self.bin_u(Op::Equal, sign, 1);
        let magnitude = self.bin_u(Op::And, bits, 0x7fff_ffff);
        let nan = self.bin_u(Op::Greater, magnitude, 0x7f80_0000);
        let exponent = self.bin_u(Op::ShiftRight, magnitude, 23);
        let fraction = self.bin_u(Op::And, magnitude, 0x7f_ffff);
        let mantissa = self.bin_u(Op::InclusiveOr, fraction, 0x80_0000);
        // The integer part is below 1 (0) when exponent < 127; its top bit is at e = exponent - 127.
        let fractional = self.bin_u(Op::Less, exponent, 127);
        let e = self.b.cast(exponent, Scalar::I32, true);
        let k = self.b.literal(Literal::I32(127));
        let e = self.bin(Op::Subtract, e, k);
        let signed = to.is_signed();
        // The largest top-bit position the target's magnitude may have (a signed target's negative
        // bound is handled below).
        let bound: i32 = match to {
            ScalarType::U8 => 7,
            ScalarType::U16 => 15,
            ScalarType::U32 => 31,
            ScalarType::I32 => 30,
            ScalarType::U64 => 63,
            _ => 62, // i64
        };
        let at = |s: &mut Self, v: i32| s.b.literal(Literal::I32(v));
        let (zero_i, v23, v55) = (at(self, 0), at(self, 23), at(self, 55));
        // The magnitude's halves for e in 0..=63: mantissa >> (23 - e) for e <= 23; mantissa <<
        // (e - 23) split over the halves for 23 < e < 55; only a high half from e = 55.
        let right = self.bin(Op::Subtract, v23, e);
        let right = self.b.math(MathFunction::Max, right, Some(zero_i));
        let right = self.b.cast(right, Scalar::U32, true);
        let lo_right = self.shift(Op::ShiftRight, mantissa, right);
        let left = self.bin(Op::Subtract, e, v23);
        let left = self.b.math(MathFunction::Max, left, Some(zero_i));
        let left = self.b.cast(left, Scalar::U32, true);
        let lo_left = self.shift(Op::ShiftLeft, mantissa, left);
        let k32 = self.b.u32(32);
        let back = self.bin(Op::Subtract, k32, left);
        let hi_left = self.shift(Op::ShiftRight, mantissa, back);
        let left_zero = self.bin_u(Op::Equal, left, 0);
        let none = self.b.u32(0);
        let hi_left = self.b.select(left_zero, none, hi_left);
        let high = self.bin(Op::Subtract, e, v55);
        let high = self.b.math(MathFunction::Max, high, Some(zero_i));
        let high = self.b.cast(high, Scalar::U32, true);
        let hi_high = self.shift(Op::ShiftLeft, mantissa, high);
        let e_small = self.bin(Op::LessEqual, e, v23);
        let e_high = self.bin(Op::GreaterEqual, e, v55);
        let lo = self.b.select(e_small, lo_right, lo_left);
        let none = self.b.u32(0);
        let lo = self.b.select(e_high, none, lo);
        let hi = self.b.select(e_small, none, hi_left);
        let hi = self.b.select(e_high, hi_high, hi);
        // Past the bound: the target's largest magnitude (for a negative signed result, its
        // smallest value: exactly the bound's power of two, which the negation gives).
        let bound_i = at(self, bound);
        let over = self.bin(Op::Greater, e, bound_i);
        let zero_result = self.bin(Op::LogicalOr, fractional, nan);
        let wide = to.bits() == 64;
        let (max_hi, max_lo) = match to {
            ScalarType::U64 => (u32::MAX, u32::MAX),
            ScalarType::I64 => (0x7fff_ffff, u32::MAX),
            ScalarType::I32 => (0, 0x7fff_ffff),
            ScalarType::U32 => (0, u32::MAX),
            t => (0, (1u32 << t.bits()) - 1),
        };
        let (max_hi, max_lo) = (self.b.u32(max_hi), self.b.u32(max_lo));
        let mut hi = self.b.select(over, max_hi, hi);
        let mut lo = self.b.select(over, max_lo, lo);
        if signed {
            // A negative value past the bound is the minimum: the bound's power of two, negated.
            let (min_hi, min_lo) = if wide {
                (0x8000_0000, 0)
            } else {
                (0, 0x8000_0000)
            };
            let (min_hi, min_lo) = (self.b.u32(min_hi), self.b.u32(min_lo));
            let past = self.bin(Op::LogicalAnd, over, negative);
            hi = self.b.select(past, min_hi, hi);
            lo = self.b.select(past, min_lo, lo);
            let (nh, nl) = self.negate64((hi, lo));
            hi = self.b.select(negative, nh, hi);
            lo = self.b.select(negative, nl, lo);
        } else {
            // Negative values saturate to 0 (and -0.x truncates to 0).
            let none = self.b.u32(0);
            hi = self.b.select(negative, none, hi);
            lo = self.b.select(negative, none, lo);
        }
        let none = self.b.u32(0);
        let hi = self.b.select(zero_result, none, hi);
        let lo = self.b.select(zero_result, none, lo);
        let target = scalar_of(to);
        if !wide {
            return if target == Scalar::U32 {
                lo
            } else {
                self.b.cast(lo, target, true)
            };
        }
        // (hi, lo) → u64 by the unsigned widening (trusted, see `widen_i32`).
        let hi64 = self.b.cast(hi, Scalar::U64, false);
        let lo64 = self.b.cast(lo, Scalar::U64, false);
        let k = self.b.u32(32);
        let hi64 = self.b.binary(Op::ShiftLeft, hi64, k);
        let joined = self.bin(Op::InclusiveOr, hi64, lo64);
        if target == Scalar::U64 {
            joined
        } else {
            self.b.cast(joined, target, true)
        }
    }
}

impl Lowerer<'_> {
    /// `abs` (of `f32` or a signed integer) and the roundings of `f32` to an integer, each Rust's
    /// answer but for the sign of a zero result, which WGSL lets an implementation ignore:
    /// `abs` clears the sign bit (NaNs too) or negates with wrapping; `trunc` and `round` (ties to
    /// even) are WGSL's, exact; `floor` and `ceil` step `trunc` by one where the bits say a fraction
    /// was cut (not `floor`/`ceil`, which a flushed subnormal would send to zero instead of -1 or 1).
    pub(super) fn float_math(&mut self, op: UnaryOp, x: H, t: ScalarType) -> H {
        match op {
            UnaryOp::Abs if t == ScalarType::F32 => {
                let bits = self.b.cast(x, Scalar::U32, true);
                let bits = self.bin_u(Op::And, bits, 0x7fff_ffff);
                self.b.cast(bits, Scalar::F32, true)
            }
            UnaryOp::Abs if t == ScalarType::I32 => self.b.math(MathFunction::Abs, x, None),
            UnaryOp::Abs => {
                // i64: two's complement negation of the bits where the sign is set.
                let bits = self.b.cast(x, Scalar::U64, true);
                let zero = self.b.literal(Literal::U64(0));
                let minus = self.bin(Op::Subtract, zero, bits);
                let k = self.b.u32(63);
                let top = self.b.binary(Op::ShiftRight, bits, k);
                let one = self.b.literal(Literal::U64(1));
                let negative = self.bin(Op::Equal, top, one);
                let r = self.b.select(negative, minus, bits);
                self.b.cast(r, Scalar::I64, true)
            }
            UnaryOp::FloatTrunc => self.b.math(MathFunction::Trunc, x, None),
            UnaryOp::RoundEven => self.b.math(MathFunction::Round, x, None),
            _ => {
                let up = op == UnaryOp::Ceil;
                let x = self.opaque(x, ScalarType::F32);
                let truncated = self.b.math(MathFunction::Trunc, x, None);
                // A fraction was cut: |x| < 1 and not zero, or below 2^23 with fraction bits set
                // under the integer part (NaN and infinity have none).
                let bits = self.b.cast(x, Scalar::U32, true);
                let magnitude = self.bin_u(Op::And, bits, 0x7fff_ffff);
                let exponent = self.bin_u(Op::ShiftRight, magnitude, 23);
                let below_one = self.bin_u(Op::Less, exponent, 127);
                let nonzero = self.bin_u(Op::NotEqual, magnitude, 0);
                let tiny = self.bin(Op::LogicalAnd, below_one, nonzero);
                let k = self.b.u32(127);
                let e = self.bin(Op::Subtract, exponent, k);
                let all = self.b.u32(0x7f_ffff);
                let mask = self.shift(Op::ShiftRight, all, e);
                let cut = self.bin(Op::And, magnitude, mask);
                let cut = self.bin_u(Op::NotEqual, cut, 0);
                let in_range = self.bin_u(Op::Less, exponent, 150);
                let at_least_one = self.bin_u(Op::GreaterEqual, exponent, 127);
                let partial = self.bin(Op::LogicalAnd, in_range, at_least_one);
                let partial = self.bin(Op::LogicalAnd, partial, cut);
                let fraction = self.bin(Op::LogicalOr, tiny, partial);
                // floor steps negative values down, ceil positive ones up.
                let sign = self.bin_u(Op::ShiftRight, bits, 31);
                let sign_wanted = self.bin_u(Op::Equal, sign, u32::from(!up));
                let step = self.bin(Op::LogicalAnd, fraction, sign_wanted);
                let one = self.b.literal(Literal::F32(1.0));
                let stepped = if up {
                    self.bin(Op::Add, truncated, one)
                } else {
                    self.bin(Op::Subtract, truncated, one)
                };
                self.b.select(step, stepped, truncated)
            }
        }
    }
}

impl Lowerer<'_> {
    /// `is_nan` / `is_finite` of an `f32`, from its bits (WGSL lets an implementation assume no
    /// NaN or infinity occurs, so `x != x` may be folded to false).
    pub(super) fn float_class(&mut self, op: UnaryOp, x: H) -> H {
        let bits = self.b.cast(x, Scalar::U32, true);
        if op == UnaryOp::IsNan {
            let magnitude = self.bin_u(Op::And, bits, 0x7fff_ffff);
            self.bin_u(Op::Greater, magnitude, 0x7f80_0000)
        } else {
            let exponent = self.bin_u(Op::And, bits, 0x7f80_0000);
            self.bin_u(Op::NotEqual, exponent, 0x7f80_0000)
        }
    }

    /// `x`'s magnitude with `y`'s sign bit, on the bits.
    pub(super) fn copysign(&mut self, x: H, y: H) -> H {
        let (xb, yb) = (
            self.b.cast(x, Scalar::U32, true),
            self.b.cast(y, Scalar::U32, true),
        );
        let magnitude = self.bin_u(Op::And, xb, 0x7fff_ffff);
        let sign = self.bin_u(Op::And, yb, 0x8000_0000);
        let bits = self.bin(Op::InclusiveOr, magnitude, sign);
        self.b.cast(bits, Scalar::F32, true)
    }
}
