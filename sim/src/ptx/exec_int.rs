//! Integer semantics of the PTX instructions, per lane, from the PTX ISA: values are the low bits
//! of a `u64`, read at the instruction's type (sign-extended for `.s` types) and written back
//! truncated to it. Division by zero has no defined result in PTX ("unspecified, machine-specific");
//! the simulator gives all ones for `div` and the dividend for `rem`, and never traps.

use super::inst::{Cmp, Half, Int, IntBin, IntUn};

/// `1 << bits` − 1 for `bits` ≤ 64.
#[inline]
pub(crate) fn ones(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// `v` sign-extended from `bits` to 64 bits.
#[inline]
pub(crate) fn sext(v: u64, bits: u32) -> u64 {
    if bits >= 64 || bits == 0 {
        v
    } else {
        let shift = 64 - bits;
        (((v << shift) as i64) >> shift) as u64
    }
}

/// A two-operand integer operation.
pub(crate) fn int_bin(op: IntBin, ty: Int, a: u64, b: u64) -> u64 {
    let n = ty.bits;
    let (ua, ub) = (ty.trunc(a), ty.trunc(b));
    let (sa, sb) = (
        Int { signed: true, ..ty }.value(a),
        Int { signed: true, ..ty }.value(b),
    );
    let (va, vb) = (ty.value(a), ty.value(b));
    let r: u64 = match op {
        IntBin::Add => ua.wrapping_add(ub),
        IntBin::Sub => ua.wrapping_sub(ub),
        IntBin::AddSat => (sa + sb).clamp(i128::from(i32::MIN), i128::from(i32::MAX)) as u64,
        IntBin::SubSat => (sa - sb).clamp(i128::from(i32::MIN), i128::from(i32::MAX)) as u64,
        IntBin::MulLo => ua.wrapping_mul(ub),
        IntBin::MulHi => high_product(ty, a, b),
        IntBin::Div if ub == 0 => u64::MAX,
        IntBin::Div if ty.signed => (sa / sb) as u64,
        IntBin::Div => ua / ub,
        IntBin::Rem if ub == 0 => ua,
        IntBin::Rem if ty.signed => (sa % sb) as u64,
        IntBin::Rem => ua % ub,
        IntBin::Min => va.min(vb) as u64,
        IntBin::Max => va.max(vb) as u64,
        IntBin::And => ua & ub,
        IntBin::Or => ua | ub,
        IntBin::Xor => ua ^ ub,
        // Shift amounts are unsigned 32-bit; amounts past the width are clamped to it.
        IntBin::Shl => {
            let s = b as u32;
            if s >= n {
                0
            } else {
                ua << s
            }
        }
        IntBin::Shr => {
            let s = (b as u32).min(n);
            if ty.signed {
                (sa >> s.min(127)) as u64
            } else if s >= n {
                0
            } else {
                ua >> s
            }
        }
    };
    ty.trunc(r)
}

/// A one-operand integer operation (`popc`, `clz`, `bfind` give `u32`).
pub(crate) fn int_un(op: IntUn, ty: Int, a: u64) -> u64 {
    let n = ty.bits;
    let ua = ty.trunc(a);
    match op {
        IntUn::Neg => ty.trunc(ua.wrapping_neg()),
        IntUn::Not => ty.trunc(!ua),
        IntUn::CNot => u64::from(ua == 0),
        IntUn::Abs => ty.trunc(ty.value(a).unsigned_abs() as u64),
        IntUn::Popc => u64::from(ua.count_ones()),
        IntUn::Clz => u64::from(ua.leading_zeros() - (64 - n)),
        IntUn::Brev => ua.reverse_bits() >> (64 - n),
        IntUn::Bfind { shiftamt } => {
            let msb = n - 1;
            let v = if ty.signed && ua >> msb & 1 == 1 {
                ty.trunc(!ua)
            } else {
                ua
            };
            if v == 0 {
                0xffff_ffff
            } else {
                let d = 63 - v.leading_zeros();
                u64::from(if shiftamt { msb - d } else { d })
            }
        }
    }
}

/// The high half of the full product of `a` and `b` (both of type `ty`).
pub(crate) fn high_product(ty: Int, a: u64, b: u64) -> u64 {
    let n = ty.bits;
    let p = if ty.signed {
        (ty.value(a) * ty.value(b)) >> n // |a·b| < 2^126
    } else {
        ((u128::from(ty.trunc(a)) * u128::from(ty.trunc(b))) >> n) as i128
    };
    ty.trunc(p as u64)
}

/// `mad.{lo,hi,wide}` (`c` is twice as wide for `.wide`) and, with `c` = 0, `mul.wide`.
pub(crate) fn mad(half: Half, ty: Int, a: u64, b: u64, c: u64) -> u64 {
    match half {
        Half::Lo => ty.trunc(ty.trunc(a).wrapping_mul(ty.trunc(b)).wrapping_add(c)),
        Half::Hi => ty.trunc(high_product(ty, a, b).wrapping_add(c)),
        Half::Wide => {
            let p = ty.value(a) * ty.value(b); // 32-bit operands at most
            let wide = Int {
                bits: 2 * ty.bits,
                ..ty
            };
            wide.trunc((p as u64).wrapping_add(c))
        }
    }
}

/// `bfe`: the field of `len` bits at `pos` of `a`, zero- or sign-extended.
pub(crate) fn bfe(ty: Int, a: u64, b: u64, c: u64) -> u64 {
    let msb = ty.bits - 1;
    let pos = (b & 0xff) as u32;
    let len = (c & 0xff) as u32;
    let a = ty.trunc(a);
    let sbit = if !ty.signed || len == 0 {
        0
    } else {
        a >> (pos + len - 1).min(msb) & 1
    };
    let mut d = 0u64;
    for i in 0..=msb {
        let bit = if i < len && pos + i <= msb {
            a >> (pos + i) & 1
        } else {
            sbit
        };
        d |= bit << i;
    }
    d
}

/// `bfi`: `a`'s low `len` bits inserted into `b` at `pos`.
pub(crate) fn bfi(bits: u32, a: u64, b: u64, c: u64, e: u64) -> u64 {
    let msb = bits - 1;
    let pos = (c & 0xff) as u32;
    let len = (e & 0xff) as u32;
    let mut f = b & ones(bits);
    let mut i = 0;
    while i < len && pos + i <= msb {
        f = (f & !(1 << (pos + i))) | (a >> i & 1) << (pos + i);
        i += 1;
    }
    f
}

/// `prmt.b32` in its generic form: four bytes picked from `{b, a}` by the nibbles of `c`, each
/// copied or (selector bit 3) filled with its sign.
pub(crate) fn prmt(a: u64, b: u64, c: u64) -> u64 {
    let src = (b & 0xffff_ffff) << 32 | (a & 0xffff_ffff);
    let mut d = 0u64;
    for i in 0..4 {
        let sel = (c >> (4 * i)) & 0xf;
        let byte = (src >> (8 * (sel & 7))) & 0xff;
        let byte = if sel & 8 != 0 {
            if byte & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            byte
        };
        d |= byte << (8 * i);
    }
    d
}

/// An integer comparison (the unsigned `lo`/`ls`/`hi`/`hs` decode as `lt`/`le`/`gt`/`ge` of an
/// unsigned type).
pub(crate) fn compare(cmp: Cmp, ty: Int, a: u64, b: u64) -> bool {
    let (a, b) = (ty.value(a), ty.value(b));
    match cmp {
        Cmp::Eq => a == b,
        Cmp::Ne => a != b,
        Cmp::Lt => a < b,
        Cmp::Le => a <= b,
        Cmp::Gt => a > b,
        Cmp::Ge => a >= b,
        _ => false,
    }
}

/// An integer-to-integer `cvt`: `a` read as `from`, then truncated to `to` or, with `sat`, clamped to
/// its range.
pub(crate) fn cvt_int(to: Int, from: Int, sat: bool, a: u64) -> u64 {
    let v = from.value(a);
    if sat {
        let (lo, hi) = if to.signed {
            (-(1i128 << (to.bits - 1)), (1i128 << (to.bits - 1)) - 1)
        } else {
            (0, (1i128 << to.bits) - 1)
        };
        to.trunc(v.clamp(lo, hi) as u64)
    } else {
        to.trunc(v as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const U32: Int = Int {
        bits: 32,
        signed: false,
    };
    const S32: Int = Int {
        bits: 32,
        signed: true,
    };

    #[test]
    fn arithmetic_follows_the_isa() {
        assert_eq!(
            int_bin(IntBin::Shl, U32, 1, 32),
            0,
            "amounts clamp to the width"
        );
        assert_eq!(int_bin(IntBin::Shr, S32, 0x8000_0000, 40), 0xffff_ffff);
        assert_eq!(int_bin(IntBin::Shr, U32, 0x8000_0000, 31), 1);
        assert_eq!(int_bin(IntBin::MulHi, S32, 0xffff_ffff, 2), 0xffff_ffff);
        assert_eq!(int_bin(IntBin::MulHi, U32, 0xffff_ffff, 2), 1);
        assert_eq!(
            int_bin(IntBin::Div, S32, (-7i32) as u64, 2),
            (-3i32) as u32 as u64
        );
        assert_eq!(
            int_bin(IntBin::Rem, S32, (-7i32) as u64, 2),
            (-1i32) as u32 as u64
        );
        assert_eq!(
            int_bin(IntBin::Div, S32, i32::MIN as u32 as u64, u32::MAX as u64),
            0x8000_0000
        );
        assert_eq!(
            int_bin(IntBin::AddSat, S32, i32::MAX as u64, 1),
            i32::MAX as u64
        );
        assert_eq!(int_bin(IntBin::Min, S32, 0xffff_ffff, 0), 0xffff_ffff);
        assert_eq!(int_bin(IntBin::Min, U32, 0xffff_ffff, 0), 0);
        assert_eq!(mad(Half::Wide, S32, 0xffff_ffff, 3, 0), (-3i64) as u64);
        assert_eq!(mad(Half::Lo, U32, 3, 4, 5), 17);
        assert_eq!(
            int_un(IntUn::Bfind { shiftamt: false }, U32, 0),
            0xffff_ffff
        );
        assert_eq!(int_un(IntUn::Bfind { shiftamt: true }, U32, 1), 31);
        assert_eq!(
            int_un(IntUn::Bfind { shiftamt: false }, S32, 0xffff_fffe),
            0
        );
        assert_eq!(int_un(IntUn::Clz, U32, 1), 31);
        assert_eq!(int_un(IntUn::Brev, U32, 1), 0x8000_0000);
        assert_eq!(int_un(IntUn::Abs, S32, 0x8000_0000), 0x8000_0000);
    }

    #[test]
    fn bit_fields_and_permutes() {
        assert_eq!(bfe(U32, 0xabcd_1234, 8, 8), 0x12);
        assert_eq!(bfe(S32, 0x0000_8000, 8, 8), 0xffff_ff80);
        assert_eq!(
            bfe(S32, 0x8000_0000, 40, 4),
            0xffff_ffff,
            "past the msb: the sign"
        );
        assert_eq!(bfe(U32, 0xffff_ffff, 4, 0), 0);
        assert_eq!(bfi(32, 0xf, 0, 4, 4), 0xf0);
        assert_eq!(prmt(0x4433_2211, 0x8877_6655, 0x3210), 0x4433_2211);
        assert_eq!(prmt(0x4433_2211, 0x8877_6655, 0x7654), 0x8877_6655);
        assert_eq!(prmt(0x0000_0080, 0, 0x8888), 0xffff_ffff, "sign replicated");
        assert_eq!(
            cvt_int(
                Int {
                    bits: 8,
                    signed: false
                },
                S32,
                true,
                (-5i32) as u64
            ),
            0
        );
        assert_eq!(
            cvt_int(
                Int {
                    bits: 64,
                    signed: true
                },
                S32,
                false,
                0xffff_fffe
            ),
            (-2i64) as u64
        );
    }
}
