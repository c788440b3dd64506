//! Float bits made finite: the defined kernels' constants and the differential tests' inputs (WGSL
//! lets an implementation assume no NaN or infinity occurs).

use crate::types::ScalarType;

/// `bits` as a finite `f32`: a NaN or an infinity becomes a finite value with the same sign and low
/// mantissa bits (the exponent lowered by one).
pub fn finite_f32(bits: u32) -> u32 {
    if f32::from_bits(bits).is_finite() {
        bits
    } else {
        bits & !0x0080_0000
    }
}

/// `bits` (of float type `ty`, zero-extended) made finite as [`finite_f32`] does: a NaN or an
/// infinity gets its exponent lowered by one. Other types' bits are returned as they are.
pub fn finite_bits(ty: ScalarType, bits: u64) -> u64 {
    let (exp, low): (u64, u64) = match ty {
        ScalarType::F32 => return u64::from(finite_f32(bits as u32)),
        ScalarType::F64 => (0x7ff0_0000_0000_0000, 0x0010_0000_0000_0000),
        ScalarType::F16 => (0x7c00, 0x0400),
        ScalarType::BF16 => (0x7f80, 0x0080),
        _ => return bits,
    };
    if bits & exp == exp {
        bits & !low
    } else {
        bits
    }
}
