//! Operand values and type widths as the lowering reads them: immediates (and `WARP_SZ`), the bytes
//! of a type modifier.

use warpforge_ptx::isa::{predefined_constant, Modifier as M};
use warpforge_ptx::parse::DataType;

pub(super) fn parse_imm(s: &str) -> Option<u64> {
    // `WARP_SZ`, the warp size nvcc writes for `warpSize`
    if let Some(v) = predefined_constant(s) {
        return Some(v);
    }
    let (neg, body) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u64::from_str_radix(h.trim_end_matches('U'), 16).ok()?
    } else if let Some(f) = body.strip_prefix("0f").or_else(|| body.strip_prefix("0F")) {
        u64::from_str_radix(f, 16).ok()?
    } else {
        body.trim_end_matches('U').parse::<u64>().ok()?
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

/// The bytes of an access or value of type `ty` (4 when it is not a type or not a listed one).
pub(super) fn type_bytes(ty: Option<&M>) -> u32 {
    data_bytes(ty.and_then(M::data_type))
}

pub(super) fn data_bytes(ty: Option<DataType>) -> u32 {
    match ty {
        Some(DataType::U8 | DataType::S8 | DataType::B8) => 1,
        Some(DataType::U16 | DataType::S16 | DataType::B16 | DataType::F16) => 2,
        Some(DataType::U64 | DataType::S64 | DataType::B64 | DataType::F64) => 8,
        _ => 4,
    }
}
