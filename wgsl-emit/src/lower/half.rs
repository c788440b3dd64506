//! Conversions between `f16`, `bf16` and `f32` (`CastKind::FloatConvert`) on the bits, with `u32`
//! arithmetic: WGSL has no `bf16`, its `f16` needs the `shader-f16` feature that lavapipe lacks, and
//! `pack2x16float` leaves the rounding direction and overflow unspecified. The results are the IR's,
//! bit for bit: widening exact (a NaN keeps sign and payload, quiet), narrowing rounded once to
//! nearest even, a NaN narrowed to `0x7fff`. Halves live in a `u32` holding their bits.
//!
//! - `f16 → f32`: normal values re-biased (`e + 112`); subnormals normalized from their leading bit
//!   (`firstLeadingBit`); ∞/NaN keep the payload, a NaN gains the quiet bit.
//! - `f32 → f16`: ≥ 65520 overflows to ∞; normal results re-biased with a round-to-nearest-even
//!   add on the 13 dropped bits (the carry may reach the exponent, as it should); subnormal results
//!   shift the 24-bit significand right by `126 - e` and round on the remainder; below 2^-25, ±0.
//! - `bf16 ↔ f32`: the upper half of the `f32`; narrowing adds `0x7fff` plus the lowest kept bit.

use naga::{BinaryOperator as Op, Expression, Handle, MathFunction, Scalar};
use warpforge_ir::ScalarType;

use super::Lowerer;

type H = Handle<Expression>;

impl Lowerer<'_> {
    /// A conversion between two float types other than `f64` (which `emit` refuses first).
    pub(super) fn float_convert(&mut self, x: H, from: ScalarType, to: ScalarType) -> H {
        // A run-time value, so that naga's constant evaluator never sees the wrapping arithmetic.
        let x = self.opaque(x, from);
        let wide = match from {
            ScalarType::F16 => self.f16_to_f32_bits(x),
            ScalarType::BF16 => self.bf16_to_f32_bits(x),
            _ => self.b.cast(x, Scalar::U32, true),
        };
        match to {
            ScalarType::F16 => self.f32_bits_to_f16(wide),
            ScalarType::BF16 => self.f32_bits_to_bf16(wide),
            _ => self.b.cast(wide, Scalar::F32, true),
        }
    }

    /// Whether the `f32` bits `bits` are a NaN.
    fn nan_bits(&mut self, bits: H) -> H {
        let magnitude = self.bin_u(Op::And, bits, 0x7fff_ffff);
        self.bin_u(Op::Greater, magnitude, 0x7f80_0000)
    }

    fn bf16_to_f32_bits(&mut self, h: H) -> H {
        let bits = self.bin_u(Op::ShiftLeft, h, 16);
        let nan = self.nan_bits(bits);
        let quiet = self.bin_u(Op::InclusiveOr, bits, 0x0040_0000);
        self.b.select(nan, quiet, bits)
    }

    fn f32_bits_to_bf16(&mut self, bits: H) -> H {
        let lsb = self.bin_u(Op::ShiftRight, bits, 16);
        let lsb = self.bin_u(Op::And, lsb, 1);
        let sum = self.bin_u(Op::Add, bits, 0x7fff);
        let sum = self.b.binary(Op::Add, sum, lsb);
        let rounded = self.bin_u(Op::ShiftRight, sum, 16);
        let nan = self.nan_bits(bits);
        let canonical = self.b.u32(0x7fff);
        self.b.select(nan, canonical, rounded)
    }

    fn f16_to_f32_bits(&mut self, h: H) -> H {
        let sign = self.bin_u(Op::And, h, 0x8000);
        let sign = self.bin_u(Op::ShiftLeft, sign, 16);
        let e = self.bin_u(Op::ShiftRight, h, 10);
        let e = self.bin_u(Op::And, e, 0x1f);
        let m = self.bin_u(Op::And, h, 0x3ff);
        let m13 = self.bin_u(Op::ShiftLeft, m, 13);
        // Normal: the exponent re-biased by 127 - 15.
        let biased = self.bin_u(Op::Add, e, 112);
        let biased = self.bin_u(Op::ShiftLeft, biased, 23);
        let normal = self.b.binary(Op::InclusiveOr, sign, biased);
        let normal = self.b.binary(Op::InclusiveOr, normal, m13);
        // ∞ and NaN: the f32 exponent all ones, the payload kept, a NaN quiet.
        let special = self.bin_u(Op::InclusiveOr, sign, 0x7f80_0000);
        let special = self.b.binary(Op::InclusiveOr, special, m13);
        let has_payload = self.bin_u(Op::NotEqual, m, 0);
        let (quiet, none) = (self.b.u32(0x0040_0000), self.b.u32(0));
        let quiet = self.b.select(has_payload, quiet, none);
        let special = self.b.binary(Op::InclusiveOr, special, quiet);
        // Subnormal: m · 2^-24 with its leading bit at p is 2^(p-24) · 1.f.
        let p = self.b.math(MathFunction::FirstLeadingBit, m, None);
        let exponent = self.bin_u(Op::Add, p, 103);
        let exponent = self.bin_u(Op::ShiftLeft, exponent, 23);
        let k23 = self.b.u32(23);
        let up = self.b.binary(Op::Subtract, k23, p);
        let fraction = self.shift(Op::ShiftLeft, m, up);
        let fraction = self.bin_u(Op::And, fraction, 0x007f_ffff);
        let sub = self.b.binary(Op::InclusiveOr, sign, exponent);
        let sub = self.b.binary(Op::InclusiveOr, sub, fraction);
        let is_zero = self.bin_u(Op::Equal, m, 0);
        let small = self.b.select(is_zero, sign, sub);
        let is_normal = self.bin_u(Op::NotEqual, e, 0);
        let finite = self.b.select(is_normal, normal, small);
        let is_special = self.bin_u(Op::Equal, e, 0x1f);
        self.b.select(is_special, special, finite)
    }

    fn f32_bits_to_f16(&mut self, bits: H) -> H {
        let sign = self.bin_u(Op::ShiftRight, bits, 16);
        let sign = self.bin_u(Op::And, sign, 0x8000);
        let a = self.bin_u(Op::And, bits, 0x7fff_ffff);
        // Normal results: re-biased, the 13 dropped bits rounded to nearest even.
        let v = self.bin_u(Op::Subtract, a, 0x3800_0000);
        let lsb = self.bin_u(Op::ShiftRight, v, 13);
        let lsb = self.bin_u(Op::And, lsb, 1);
        let sum = self.bin_u(Op::Add, v, 0xfff);
        let sum = self.b.binary(Op::Add, sum, lsb);
        let normal = self.bin_u(Op::ShiftRight, sum, 13);
        // Subnormal results: the significand shifted right by 126 - e, rounded on the remainder.
        let e = self.bin_u(Op::ShiftRight, a, 23);
        let m = self.bin_u(Op::And, a, 0x007f_ffff);
        let m = self.bin_u(Op::InclusiveOr, m, 0x0080_0000);
        let k126 = self.b.u32(126);
        let s = self.b.binary(Op::Subtract, k126, e);
        let kept = self.shift(Op::ShiftRight, m, s);
        let one = self.b.u32(1);
        let unit = self.shift(Op::ShiftLeft, one, s);
        let low_mask = self.bin_u(Op::Subtract, unit, 1);
        let rem = self.b.binary(Op::And, m, low_mask);
        let s1 = self.bin_u(Op::Subtract, s, 1);
        let halfway = self.shift(Op::ShiftLeft, one, s1);
        let above = self.b.binary(Op::Greater, rem, halfway);
        let tie = self.b.binary(Op::Equal, rem, halfway);
        let odd = self.bin_u(Op::And, kept, 1);
        let odd = self.bin_u(Op::Equal, odd, 1);
        let tie_up = self.b.binary(Op::LogicalAnd, tie, odd);
        let round_up = self.b.binary(Op::LogicalOr, above, tie_up);
        let zero = self.b.u32(0);
        let carry = self.b.select(round_up, one, zero);
        let sub = self.b.binary(Op::Add, kept, carry);
        // Choose by magnitude: NaN, overflow, normal, subnormal, below 2^-25.
        let is_tiny = self.bin_u(Op::Less, a, 0x3300_0000);
        let small = self.b.select(is_tiny, zero, sub);
        let is_normal = self.bin_u(Op::GreaterEqual, a, 0x3880_0000);
        let finite = self.b.select(is_normal, normal, small);
        let overflows = self.bin_u(Op::GreaterEqual, a, 0x477f_f000);
        let inf = self.b.u32(0x7c00);
        let finite = self.b.select(overflows, inf, finite);
        let finite = self.b.binary(Op::InclusiveOr, sign, finite);
        let nan = self.bin_u(Op::Greater, a, 0x7f80_0000);
        let canonical = self.b.u32(0x7fff);
        self.b.select(nan, canonical, finite)
    }
}
