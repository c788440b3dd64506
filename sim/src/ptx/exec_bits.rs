//! Per-lane semantics of the instructions of `inst_int.rs` other than the carry chains, each from
//! its section of the PTX ISA ("Integer Arithmetic Instructions", "Logic and Shift Instructions",
//! "Data Movement and Conversion Instructions: prmt"). Operands are the low bits of a `u64`; results
//! are returned at the instruction's width.

use super::exec_int::{high_product, ones, sext};
use super::inst::{BoolOp, Int};
use super::inst_int::{PrmtMode, XOp};

/// The result `d` of `op` on one lane (`Carry` is `exec_ext.rs`'s and gives 0 here).
pub(crate) fn eval(op: XOp, a: u64, b: u64, c: u64) -> u64 {
    let (a32, b32, c32) = (a as u32, b as u32, c as u32);
    match op {
        XOp::Mul24 {
            hi,
            signed,
            add,
            sat,
        } => {
            let v = mul24(hi, signed, a32, b32);
            let c = if add { c32 } else { 0 };
            if sat {
                let s = i64::from(v as i32) + i64::from(c as i32);
                u64::from(s.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32 as u32)
            } else {
                u64::from(v.wrapping_add(c))
            }
        }
        XOp::MadHiSat => {
            let s32 = Int {
                bits: 32,
                signed: true,
            };
            let hi = high_product(s32, a, b) as u32 as i32;
            let s = i64::from(hi) + i64::from(c32 as i32);
            u64::from(s.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32 as u32)
        }
        XOp::Carry(_) => 0,
        XOp::Bmsk { clamp } => u64::from(bmsk(clamp, a32, b32)),
        XOp::Szext { clamp, signed } => u64::from(szext(clamp, signed, a32, b32)),
        XOp::Fns => u64::from(fns(a32, b32 as i32, c32 as i32)),
        XOp::Dp4a { a_signed, b_signed } => {
            let (va, vb) = (bytes(a32, a_signed), bytes(b32, b_signed));
            let dot: i64 = (0..4).map(|i| va[i] * vb[i]).sum();
            u64::from((i64::from(c32) + dot) as u32)
        }
        XOp::Dp2a {
            hi,
            a_signed,
            b_signed,
        } => {
            let va = [half(a32, 0, a_signed), half(a32, 1, a_signed)];
            let vb = bytes(b32, b_signed);
            let base = if hi { 2 } else { 0 };
            let dot = va[0] * vb[base] + va[1] * vb[base + 1];
            u64::from((i64::from(c32) + dot) as u32)
        }
        XOp::Prmt(mode) => u64::from(prmt_mode(mode, a32, b32, c32)),
        XOp::Shf { left, clamp } => u64::from(shf(left, clamp, a32, b32, c32)),
        XOp::Lop3 { lut, .. } => u64::from(lop3(lut, a32, b32, c32)),
        XOp::Sad(ty) => {
            let (va, vb) = (ty.value(a), ty.value(b));
            let diff = if va < vb { vb - va } else { va - vb };
            ty.trunc(ty.trunc(c).wrapping_add(diff as u64))
        }
    }
}

/// `lop3.BoolOp`'s predicate from the lane's result.
pub(crate) fn lop3_pred(op: BoolOp, d: u64, q: bool) -> bool {
    let nonzero = d & 0xffff_ffff != 0;
    match op {
        BoolOp::And => nonzero && q,
        BoolOp::Or => nonzero || q,
        BoolOp::Xor => nonzero != q,
    }
}

/// The 24-bit product: the operands' low 24 bits (sign-extended from bit 23 for `.s32`), and bits
/// 31..0 or 47..16 of the 48-bit product.
fn mul24(hi: bool, signed: bool, a: u32, b: u32) -> u32 {
    let widen = |v: u32| {
        let low = u64::from(v) & ones(24);
        if signed {
            sext(low, 24) as i64
        } else {
            low as i64
        }
    };
    let t = widen(a) * widen(b); // |t| < 2^48
    if hi {
        (t >> 16) as u32
    } else {
        t as u32
    }
}

/// Byte `i` of `v`, sign- or zero-extended.
fn bytes(v: u32, signed: bool) -> [i64; 4] {
    std::array::from_fn(|i| {
        let byte = (v >> (8 * i)) & 0xff;
        if signed {
            i64::from(byte as u8 as i8)
        } else {
            i64::from(byte)
        }
    })
}

/// Half-word `i` of `v`, sign- or zero-extended.
fn half(v: u32, i: u32, signed: bool) -> i64 {
    let h = (v >> (16 * i)) & 0xffff;
    if signed {
        i64::from(h as u16 as i16)
    } else {
        i64::from(h)
    }
}

/// `bmsk`: the ISA's pseudo-code.
fn bmsk(clamp: bool, a: u32, b: u32) -> u32 {
    let a1 = a & 0x1f;
    let mut mask0 = u32::MAX << a1;
    let b1 = b & 0x1f;
    let sum = a1 + b1;
    let mut mask1 = if sum >= 32 { 0 } else { u32::MAX << sum };
    let (mut position_overflow, mut width_overflow) = (false, false);
    if clamp {
        if a >= 32 {
            position_overflow = true;
            mask0 = 0;
        }
        width_overflow = b >= 32;
    }
    if sum >= 32 || position_overflow || width_overflow {
        mask1 = 0;
    } else if b1 == 0 {
        mask1 = u32::MAX;
    }
    mask0 & !mask1
}

/// `szext`: the ISA's pseudo-code.
fn szext(clamp: bool, signed: bool, a: u32, b: u32) -> u32 {
    let b1 = b & 0x1f;
    let too_large = b >= 32 && clamp;
    let mask = if too_large { 0 } else { u32::MAX << b1 };
    let sign_pos = b1.wrapping_sub(1) & 0x1f;
    let sign = !(b1 == 0 || too_large || !signed) && (a >> sign_pos) & 1 == 1;
    (a & !mask) | if sign { mask } else { 0 }
}

/// `fns`: the position of the `offset`-th set bit of `mask` counting from `base` (up for a positive
/// offset, down for a negative one; offset 0: `base` itself if set), or `0xffffffff`. A base outside
/// 0..=31 (undefined in the ISA) finds nothing.
fn fns(mask: u32, base: i32, offset: i32) -> u32 {
    let set = |pos: i64| (0..32).contains(&pos) && (mask >> pos) & 1 == 1;
    let base = i64::from(base);
    if offset == 0 {
        return if set(base) { base as u32 } else { u32::MAX };
    }
    let step = if offset > 0 { 1 } else { -1 };
    let mut count = i64::from(offset).abs() - 1;
    let mut pos = base;
    while (0..32).contains(&pos) {
        if set(pos) {
            if count == 0 {
                return pos as u32;
            }
            count -= 1;
        }
        pos += step;
    }
    u32::MAX
}

/// `prmt` with a mode: every byte of `d` picked from `{b, a}` by the mode and `c[1:0]`.
fn prmt_mode(mode: PrmtMode, a: u32, b: u32, c: u32) -> u32 {
    let src = u64::from(b) << 32 | u64::from(a);
    let s = c & 3;
    (0..4u32).fold(0, |d, i| {
        let sel = match mode {
            PrmtMode::F4e => s + i,
            PrmtMode::B4e => s.wrapping_sub(i) & 7,
            PrmtMode::Rc8 => s,
            PrmtMode::Ecl => i.max(s),
            PrmtMode::Ecr => i.min(s),
            PrmtMode::Rc16 => (i & 1) | (s & 1) << 1,
        };
        d | (((src >> (8 * sel)) & 0xff) as u32) << (8 * i)
    })
}

/// `shf`: the 64-bit `{b, a}` shifted by `c` (clamped to 32, or taken modulo 32); the upper word
/// for `.l`, the lower for `.r`.
fn shf(left: bool, clamp: bool, a: u32, b: u32, c: u32) -> u32 {
    let n = if clamp { c.min(32) } else { c & 0x1f };
    let (a, b) = (u64::from(a), u64::from(b));
    let d = if left {
        (b << n) | (a >> (32 - n))
    } else {
        (b << (32 - n)) | (a >> n)
    };
    d as u32
}

/// `lop3`: bit `i` of `d` is bit `4·a_i + 2·b_i + c_i` of `lut`.
fn lop3(lut: u8, a: u32, b: u32, c: u32) -> u32 {
    (0..8u32).filter(|k| lut >> k & 1 == 1).fold(0, |d, k| {
        let pick = |v: u32, bit: u32| if k >> bit & 1 == 1 { v } else { !v };
        d | (pick(a, 2) & pick(b, 1) & pick(c, 0))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_isa_examples() {
        assert_eq!(bmsk(false, 1, 2), 0x6, "bmsk.wrap.b32 rd, 1, 2");
        assert_eq!(szext(false, false, 0xffff_ffff, 0), 0, "szext.wrap.u32");
        assert_eq!(fns(0xaaaa_aaaa, 3, 1), 3);
        assert_eq!(fns(0xaaaa_aaaa, 3, -1), 3);
        assert_eq!(fns(0xaaaa_aaaa, 2, 1), 3);
        assert_eq!(fns(0xaaaa_aaaa, 2, -1), 1);
        assert_eq!(lop3(0x80, 0xf0, 0xcc, 0xaa), 0x80);
        assert_eq!(lop3(0x1a, 0xf0, 0xcc, 0xaa), 0x1a);
        assert_eq!(shf(true, true, 0x8000_0000, 1, 1), 3);
        assert_eq!(
            prmt_mode(PrmtMode::B4e, 0x0302_0100, 0x0706_0504, 0),
            0x0506_0700
        );
    }
}
