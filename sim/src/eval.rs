//! The IR's pure operations on one lane's bits: the definition of what every [`warpforge_ir::Expr`]
//! computes. Values are kept as `u64` holding the type's bits, zero-extended (signed values as two's
//! complement of their width, `bool` as 0 or 1), exactly as `warpforge_ir::Literal::to_bits` writes them.

use warpforge_ir::{BinaryOp, CastKind, CmpOp, ScalarType, UnaryOp};

/// The low `ty.bits()` bits of `bits`.
#[inline]
pub(crate) fn truncate(ty: ScalarType, bits: u64) -> u64 {
    match ty.bits() {
        64 => bits,
        n => bits & ((1u64 << n) - 1),
    }
}

/// `bits` (of type `ty`) sign-extended to 64 bits.
#[inline]
fn sext(ty: ScalarType, bits: u64) -> i64 {
    let shift = 64 - ty.bits();
    ((bits << shift) as i64) >> shift
}

#[inline]
fn f(bits: u64) -> f32 {
    f32::from_bits(bits as u32)
}

#[inline]
fn fb(x: f32) -> u64 {
    u64::from(x.to_bits())
}

#[inline]
fn d(bits: u64) -> f64 {
    f64::from_bits(bits)
}

/// A unary operation on an `f64` (the verifier allows the exact ones only).
fn unary_f64(op: UnaryOp, a: u64) -> u64 {
    let x = d(a);
    match op {
        UnaryOp::Neg => a ^ (1 << 63),
        UnaryOp::Abs => a & !(1 << 63),
        UnaryOp::Floor => x.floor().to_bits(),
        UnaryOp::Ceil => x.ceil().to_bits(),
        UnaryOp::FloatTrunc => x.trunc().to_bits(),
        UnaryOp::RoundEven => x.round_ties_even().to_bits(),
        UnaryOp::Sqrt => x.sqrt().to_bits(),
        UnaryOp::IsNan => u64::from(x.is_nan()),
        UnaryOp::IsFinite => u64::from(x.is_finite()),
        UnaryOp::Recip => (1.0 / x).to_bits(),
        _ => 0,
    }
}

/// A binary operation on `f64` operands.
fn binary_f64(op: BinaryOp, a: u64, b: u64) -> u64 {
    let (x, y) = (d(a), d(b));
    match op {
        BinaryOp::Add => (x + y).to_bits(),
        BinaryOp::Sub => (x - y).to_bits(),
        BinaryOp::Mul => (x * y).to_bits(),
        BinaryOp::Div => (x / y).to_bits(),
        BinaryOp::Min => x.min(y).to_bits(),
        BinaryOp::Max => x.max(y).to_bits(),
        BinaryOp::CopySign => (a & !(1 << 63)) | (b & (1 << 63)),
        // The verifier allows no other operator on f64.
        _ => 0,
    }
}

/// A unary operation (types as the verifier allows them).
pub(crate) fn unary(op: UnaryOp, ty: ScalarType, a: u64) -> u64 {
    if ty == ScalarType::F64 {
        return unary_f64(op, a);
    }
    match op {
        UnaryOp::Not if ty == ScalarType::Bool => (a ^ 1) & 1,
        UnaryOp::Not => truncate(ty, !a),
        UnaryOp::Neg if ty == ScalarType::F32 => a ^ 0x8000_0000,
        UnaryOp::Neg => truncate(ty, a.wrapping_neg()),
        UnaryOp::PopCount => u64::from(a.count_ones()),
        UnaryOp::CountLeadingZeros => u64::from(a.leading_zeros() - (64 - ty.bits())),
        UnaryOp::BitReverse => a.reverse_bits() >> (64 - ty.bits()),
        UnaryOp::FindFirstSet if a == 0 => 0xffff_ffff,
        UnaryOp::FindFirstSet => u64::from(a.trailing_zeros()),
        UnaryOp::Abs if ty == ScalarType::F32 => a & 0x7fff_ffff,
        UnaryOp::Abs => truncate(ty, sext(ty, a).wrapping_abs() as u64),
        UnaryOp::Floor => fb(f(a).floor()),
        UnaryOp::Ceil => fb(f(a).ceil()),
        UnaryOp::FloatTrunc => fb(f(a).trunc()),
        UnaryOp::RoundEven => fb(f(a).round_ties_even()),
        UnaryOp::Sqrt => fb(f(a).sqrt()),
        UnaryOp::IsNan => u64::from(f(a).is_nan()),
        UnaryOp::IsFinite => u64::from(f(a).is_finite()),
        UnaryOp::Recip => fb(1.0 / f(a)),
        UnaryOp::Rsqrt | UnaryOp::Exp2 | UnaryOp::Log2 | UnaryOp::Sin | UnaryOp::Cos => {
            fb(nearest(op, f(a)))
        }
    }
}

/// The bounded primitives as the `f32` nearest their value: computed in `f64` (Rust's `f64`
/// functions, error far below an `f32` ulp) and rounded once, exactly as the PTX simulator computes
/// the `.approx` instructions they lower to, so the two simulators agree bit for bit.
fn nearest(op: UnaryOp, x: f32) -> f32 {
    let v = f64::from(x);
    let exact = match op {
        // ±0 gives ±∞, a negative operand NaN, +∞ +0: as `1 / sqrt` in IEEE.
        UnaryOp::Rsqrt => 1.0 / v.sqrt(),
        UnaryOp::Exp2 => v.exp2(),
        UnaryOp::Log2 => v.log2(),
        UnaryOp::Sin => v.sin(),
        _ => v.cos(),
    };
    exact as f32
}

/// `a * b + c` on `f32` (or `f64`) bits with one rounding (IEEE `fusedMultiplyAdd`).
pub(crate) fn mul_add(ty: ScalarType, a: u64, b: u64, c: u64) -> u64 {
    if ty == ScalarType::F64 {
        return d(a).mul_add(d(b), d(c)).to_bits();
    }
    fb(f(a).mul_add(f(b), f(c)))
}

/// `(hi:lo) >> (shift mod 32)`, the low 32 bits, on `u32` bits (`Expr::FunnelShr`).
pub(crate) fn funnel_shr(lo: u64, hi: u64, shift: u64) -> u64 {
    let wide = (u64::from(hi as u32) << 32) | u64::from(lo as u32);
    u64::from((wide >> (shift as u32 & 31)) as u32)
}

/// A binary operation on operands of type `ty` (shifts: `b` is the `u32` amount).
pub(crate) fn binary(op: BinaryOp, ty: ScalarType, a: u64, b: u64) -> u64 {
    if ty == ScalarType::F64 {
        return binary_f64(op, a, b);
    }
    if ty == ScalarType::F32 {
        let (x, y) = (f(a), f(b));
        return match op {
            BinaryOp::Add => fb(x + y),
            BinaryOp::Sub => fb(x - y),
            BinaryOp::Mul => fb(x * y),
            BinaryOp::Div => fb(x / y),
            BinaryOp::Min => fb(x.min(y)),
            BinaryOp::Max => fb(x.max(y)),
            BinaryOp::CopySign => (a & 0x7fff_ffff) | (b & 0x8000_0000),
            // The verifier allows no other operator on f32.
            _ => 0,
        };
    }
    let signed = ty.is_signed();
    let bits = ty.bits();
    let r = match op {
        BinaryOp::Add => a.wrapping_add(b),
        BinaryOp::Sub => a.wrapping_sub(b),
        BinaryOp::Mul => a.wrapping_mul(b),
        BinaryOp::MulHi => match (bits, signed) {
            (64, false) => ((u128::from(a) * u128::from(b)) >> 64) as u64,
            (64, true) => ((i128::from(a as i64) * i128::from(b as i64)) >> 64) as u64,
            (_, false) => (a * b) >> bits,
            (_, true) => ((sext(ty, a) * sext(ty, b)) >> bits) as u64,
        },
        BinaryOp::Div if b == 0 => a,
        BinaryOp::Div => a / b,
        BinaryOp::Rem if b == 0 => 0,
        BinaryOp::Rem => a % b,
        BinaryOp::And => a & b,
        BinaryOp::Or => a | b,
        BinaryOp::Xor => a ^ b,
        BinaryOp::Shl => a << (b % u64::from(bits)),
        BinaryOp::Shr if signed => (sext(ty, a) >> (b % u64::from(bits))) as u64,
        BinaryOp::Shr => a >> (b % u64::from(bits)),
        BinaryOp::Min if signed => sext(ty, a).min(sext(ty, b)) as u64,
        BinaryOp::Min => a.min(b),
        BinaryOp::Max if signed => sext(ty, a).max(sext(ty, b)) as u64,
        BinaryOp::Max => a.max(b),
        // The verifier allows `copysign` on f32 only.
        BinaryOp::CopySign => a,
    };
    truncate(ty, r)
}

/// Full-width product of two 32-bit operands.
pub(crate) fn mul_wide(signed: bool, a: u64, b: u64) -> u64 {
    if signed {
        (i64::from(a as u32 as i32) * i64::from(b as u32 as i32)) as u64
    } else {
        a * b
    }
}

/// A comparison; 1 or 0.
pub(crate) fn compare(op: CmpOp, ty: ScalarType, a: u64, b: u64) -> u64 {
    let ord = if ty == ScalarType::F32 {
        f(a).partial_cmp(&f(b))
    } else if ty == ScalarType::F64 {
        d(a).partial_cmp(&d(b))
    } else if ty.is_signed() {
        Some(sext(ty, a).cmp(&sext(ty, b)))
    } else {
        Some(a.cmp(&b))
    };
    use std::cmp::Ordering::{Equal, Greater, Less};
    let r = match (op, ord) {
        (CmpOp::Ne, None) => true,
        (_, None) => false,
        (CmpOp::Eq, Some(o)) => o == Equal,
        (CmpOp::Ne, Some(o)) => o != Equal,
        (CmpOp::Lt, Some(o)) => o == Less,
        (CmpOp::Le, Some(o)) => o != Greater,
        (CmpOp::Gt, Some(o)) => o == Greater,
        (CmpOp::Ge, Some(o)) => o != Less,
    };
    u64::from(r)
}

/// A conversion.
pub(crate) fn cast(kind: CastKind, from: ScalarType, to: ScalarType, a: u64) -> u64 {
    match kind {
        CastKind::ZeroExtend | CastKind::Bitcast => a,
        CastKind::SignExtend => truncate(to, sext(from, a) as u64),
        CastKind::Truncate => truncate(to, a),
        CastKind::IntToFloat if to == ScalarType::F64 => {
            let x = if from.is_signed() {
                sext(from, a) as f64
            } else {
                truncate(from, a) as f64
            };
            x.to_bits()
        }
        CastKind::IntToFloat => {
            let x = if from.is_signed() {
                sext(from, a) as f32
            } else {
                truncate(from, a) as f32
            };
            u64::from(x.to_bits())
        }
        CastKind::FloatToInt if from == ScalarType::F64 => float_to_int(d(a), to),
        CastKind::FloatToInt => float_to_int(f64::from(f32::from_bits(a as u32)), to),
        CastKind::FloatConvert => crate::ptx::float_convert(from, to, a),
    }
}

/// A float (an `f32` widened exactly, or an `f64`) to an integer as Rust's `as`: truncated,
/// saturated, NaN → 0.
fn float_to_int(x: f64, to: ScalarType) -> u64 {
    match to {
        ScalarType::U8 => u64::from(x as u8),
        ScalarType::U16 => u64::from(x as u16),
        ScalarType::U32 => u64::from(x as u32),
        ScalarType::U64 => x as u64,
        ScalarType::I32 => u64::from(x as i32 as u32),
        ScalarType::I64 => x as i64 as u64,
        // The verifier admits only integer targets.
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarType as T;

    #[test]
    fn integer_edge_cases_follow_the_ir_docs() {
        assert_eq!(binary(BinaryOp::Div, T::U32, 7, 0), 7);
        assert_eq!(binary(BinaryOp::Rem, T::U32, 7, 0), 0);
        assert_eq!(
            binary(BinaryOp::Shl, T::U8, 1, 9),
            2,
            "amount modulo the width"
        );
        assert_eq!(binary(BinaryOp::Shr, T::I32, 0x8000_0000, 31), 0xffff_ffff);
        assert_eq!(binary(BinaryOp::Add, T::U16, 0xffff, 1), 0);
        assert_eq!(binary(BinaryOp::MulHi, T::I32, 0xffff_ffff, 2), 0xffff_ffff);
        assert_eq!(binary(BinaryOp::MulHi, T::U64, u64::MAX, 2), 1);
        assert_eq!(binary(BinaryOp::Min, T::I64, u64::MAX, 0), u64::MAX);
        assert_eq!(unary(UnaryOp::CountLeadingZeros, T::U32, 0), 32);
        assert_eq!(unary(UnaryOp::CountLeadingZeros, T::U64, 1), 63);
        assert_eq!(unary(UnaryOp::BitReverse, T::U32, 1), 0x8000_0000);
        assert_eq!(unary(UnaryOp::FindFirstSet, T::U64, 0), 0xffff_ffff);
        assert_eq!(unary(UnaryOp::FindFirstSet, T::U32, 8), 3);
        assert_eq!(unary(UnaryOp::Neg, T::I32, 1), 0xffff_ffff);
        assert_eq!(unary(UnaryOp::Not, T::Bool, 1), 0);
        assert_eq!(
            cast(CastKind::SignExtend, T::I32, T::I64, 0xffff_fffe),
            (-2i64) as u64
        );
        assert_eq!(cast(CastKind::SignExtend, T::U8, T::U32, 0x80), 0xffff_ff80);
        assert_eq!(cast(CastKind::Truncate, T::U64, T::U16, 0x12345), 0x2345);
        assert_eq!(mul_wide(true, 0xffff_ffff, 3), (-3i64) as u64);
        assert_eq!(compare(CmpOp::Lt, T::I32, 0xffff_ffff, 0), 1);
        assert_eq!(compare(CmpOp::Lt, T::U32, 0xffff_ffff, 0), 0);
    }

    #[test]
    fn floats_are_ieee() {
        let nan = u64::from(f32::NAN.to_bits());
        let one = u64::from(1f32.to_bits());
        assert_eq!(compare(CmpOp::Ne, T::F32, nan, nan), 1);
        assert_eq!(compare(CmpOp::Eq, T::F32, nan, nan), 0);
        assert_eq!(binary(BinaryOp::Min, T::F32, nan, one), one, "minNum");
        assert_eq!(
            unary(UnaryOp::Neg, T::F32, one),
            u64::from((-1f32).to_bits())
        );
    }
}
