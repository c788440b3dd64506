//! `cvt` between floats, and between floats and integers (integer-to-integer conversions are
//! `exec_int::cvt_int`'s): the ISA's rounding modifiers, `.ftz`, `.sat`, and what a NaN converts to.

use super::exec_f64::{f64_of, f64_result, QUIET};
use super::exec_float::{f32_input, f32_result, flush};
use super::exec_int::ones;
use super::inst::{FMods, Int, Rnd, Ty};
use super::round;

/// A `cvt` with a float on at least one side.
pub(crate) fn cvt(to: Ty, from: Ty, rnd: Rnd, mods: FMods, a: u64) -> u64 {
    match (to, from) {
        (Ty::F64, Ty::F32) => {
            let b = a as u32;
            let x = f32::from_bits(b);
            let x = if mods.ftz { flush(x) } else { x };
            let r = if x.is_nan() {
                widen_nan(b)
            } else {
                f64::from(x).to_bits()
            };
            sat(r, mods.sat)
        }
        (Ty::F32, Ty::F64) => {
            let x = f64_of(a);
            let r = if x.is_nan() {
                narrow_nan(a)
            } else {
                let r = round::narrow(x, rnd);
                let r = if mods.ftz { flush(r) } else { r };
                r.to_bits()
            };
            u64::from(sat32(r, mods.sat))
        }
        (Ty::F64, Ty::F64) => {
            let r = match rnd {
                Rnd::None => a,
                _ => f64_result(round::integral_f64(f64_of(a), rnd), &[a]),
            };
            sat(r, mods.sat)
        }
        (Ty::Int(t), Ty::F64) => {
            let x = f64_of(a);
            if x.is_nan() {
                return t.trunc(nan_to_int(t.bits));
            }
            let dir = if rnd == Rnd::None { Rnd::Nearest } else { rnd };
            let r = round::integral_f64(x, dir);
            let (lo, hi) = range(t);
            t.trunc((r as i128).clamp(lo, hi) as u64)
        }
        (Ty::F64, Ty::Int(t)) => sat(round::from_int::<f64>(t.value(a), rnd).to_bits(), mods.sat),
        (Ty::Int(t), Ty::F32) => {
            let x = f32_input(a, mods);
            if x.is_nan() {
                // The ISA: zero, except `1 << (bits − 1)` for 64-bit destinations.
                return if t.bits == 64 { nan_to_int(64) } else { 0 };
            }
            let r = match rnd {
                Rnd::Zero => x.trunc(),
                Rnd::Down => x.floor(),
                Rnd::Up => x.ceil(),
                _ => round_even(x),
            };
            let (lo, hi) = range(t);
            t.trunc((r as i128).clamp(lo, hi) as u64)
        }
        (Ty::F32, Ty::Int(t)) => f32_result(round::from_int::<f32>(t.value(a), rnd), mods),
        (Ty::F32, Ty::F32) => {
            let x = f32_input(a, mods);
            let r = match rnd {
                Rnd::Nearest => round_even(x),
                Rnd::Zero => x.trunc(),
                Rnd::Down => x.floor(),
                Rnd::Up => x.ceil(),
                Rnd::None => x,
            };
            f32_result(r, mods)
        }
        (Ty::Int(_), Ty::Int(_)) => a,
    }
}

/// Rounds to the nearest integer, ties to even.
fn round_even(x: f32) -> f32 {
    // The sign of a zero result is the operand's (`-0.5` → `-0.0`), as IEEE's
    // roundToIntegralTiesToEven and the hardware give it.
    x.round_ties_even()
}

/// The range of integer type `t`.
pub(crate) fn range(t: Int) -> (i128, i128) {
    if t.signed {
        (-(1i128 << (t.bits - 1)), (1i128 << (t.bits - 1)) - 1)
    } else {
        (0, i128::from(ones(t.bits)))
    }
}

/// The integer a NaN converts to from `.f64` (and to 64-bit types from `.f32`): `1 << (bits − 1)`.
pub(crate) fn nan_to_int(bits: u32) -> u64 {
    1u64 << (bits.clamp(1, 64) - 1)
}

/// `.sat` on an `f64` result: [0, 1], NaN to +0.
fn sat(bits: u64, on: bool) -> u64 {
    let x = f64_of(bits);
    if !on {
        bits
    } else if x.is_nan() || x <= 0.0 {
        0
    } else {
        x.min(1.0).to_bits()
    }
}

/// `.sat` on an `f32` result: [0, 1], NaN to +0.
fn sat32(bits: u32, on: bool) -> u32 {
    let x = f32::from_bits(bits);
    if !on {
        bits
    } else if x.is_nan() || x <= 0.0 {
        0
    } else {
        x.min(1.0).to_bits()
    }
}

/// An `f32` NaN widened: sign and payload kept (shifted to the top of the fraction), quiet.
fn widen_nan(b: u32) -> u64 {
    let sign = u64::from(b >> 31) << 63;
    sign | 0x7ff0_0000_0000_0000 | QUIET | u64::from(b & 0x7f_ffff) << 29
}

/// An `f64` NaN narrowed: sign and the payload's upper 23 bits kept, quiet.
fn narrow_nan(b: u64) -> u32 {
    let sign = ((b >> 63) as u32) << 31;
    sign | 0x7fc0_0000 | ((b >> 29) as u32 & 0x7f_ffff)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(x: f32) -> u64 {
        u64::from(x.to_bits())
    }

    #[test]
    fn conversions_round_as_asked() {
        let none = FMods::default();
        let s32 = Int {
            bits: 32,
            signed: true,
        };
        let u32_ = Int {
            bits: 32,
            signed: false,
        };
        assert_eq!(cvt(Ty::Int(s32), Ty::F32, Rnd::Nearest, none, b(2.5)), 2);
        assert_eq!(cvt(Ty::Int(s32), Ty::F32, Rnd::Nearest, none, b(3.5)), 4);
        assert_eq!(
            cvt(Ty::Int(s32), Ty::F32, Rnd::Down, none, b(-1.5)),
            (-2i32) as u32 as u64
        );
        assert_eq!(
            cvt(Ty::Int(u32_), Ty::F32, Rnd::Zero, none, b(-1.5)),
            0,
            "saturates"
        );
        assert_eq!(cvt(Ty::Int(u32_), Ty::F32, Rnd::Zero, none, b(f32::NAN)), 0);
        assert_eq!(
            cvt(Ty::Int(s32), Ty::F32, Rnd::Zero, none, b(1e20)),
            0x7fff_ffff
        );
        let u64_ = Int {
            bits: 64,
            signed: false,
        };
        let big = (1u64 << 25) + 1; // not representable: between 2^25 and 2^25 + 4
        assert_eq!(
            cvt(Ty::F32, Ty::Int(u64_), Rnd::Nearest, none, big),
            b(33554432.0)
        );
        assert_eq!(
            cvt(Ty::F32, Ty::Int(u64_), Rnd::Up, none, big),
            b(33554436.0)
        );
        assert_eq!(
            cvt(Ty::F32, Ty::Int(u64_), Rnd::Zero, none, big),
            b(33554432.0)
        );
        assert_eq!(cvt(Ty::F32, Ty::F32, Rnd::Nearest, none, b(-2.5)), b(-2.0));
    }
}
