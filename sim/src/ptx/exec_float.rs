//! `f32` semantics of the PTX instructions, per lane. The operations PTX defines exactly are exact
//! here: `add`/`sub`/`mul`/`fma`/`div`/`sqrt`/`rcp` with `.rn` (the default), `.rz`, `.rm` or `.rp`
//! give the correctly rounded result in that direction (`round.rs`), `.ftz` flushes subnormal
//! inputs and results (after rounding) to a zero of the same sign, `.sat` clamps to [0, 1] (NaN
//! to +0), `min`/`max` return the number when one operand is NaN and order −0 below +0, and a NaN
//! result is the canonical NaN `0x7fffffff` (CUDA's rule for single precision). `neg` and `abs` only
//! touch the sign bit. `div.full` and `div.approx` are approximations in PTX (at most 2 ulp): the
//! simulator gives `div.full` the correctly rounded quotient and `div.approx` `a × (1/b)`, both
//! within the ISA's bound but not necessarily the bits a GPU gives. Conversions with an `f64` on
//! either side are `exec_f64.rs`'s.

use super::inst::{Cmp, DivKind, FBin, FMods, FUn};
use super::round;

/// CUDA's NaN for single-precision results.
pub(crate) const CANONICAL_NAN: u32 = 0x7fff_ffff;

#[inline]
fn f(bits: u64) -> f32 {
    f32::from_bits(bits as u32)
}

/// A subnormal flushed to a zero of its sign.
#[inline]
pub(crate) fn flush(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

#[inline]
pub(crate) fn f32_input(bits: u64, mods: FMods) -> f32 {
    if mods.ftz {
        flush(f(bits))
    } else {
        f(bits)
    }
}

/// The bits of a result after `.ftz` and `.sat`, NaN canonical.
#[inline]
pub(crate) fn f32_result(x: f32, mods: FMods) -> u64 {
    let x = if mods.ftz { flush(x) } else { x };
    let x = if mods.sat {
        if x.is_nan() || x <= 0.0 {
            0.0
        } else {
            x.min(1.0)
        }
    } else {
        x
    };
    u64::from(if x.is_nan() {
        CANONICAL_NAN
    } else {
        x.to_bits()
    })
}

/// PTX `min`/`max` without `.NaN`: the number when one operand is NaN; −0 < +0.
fn min_max(a: f32, b: f32, max: bool) -> f32 {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => f32::NAN,
        (true, false) => b,
        (false, true) => a,
        _ if a == b => {
            // Equal: only the zeros' signs can differ.
            if (a.is_sign_negative() && max) || (b.is_sign_negative() && !max) {
                b
            } else {
                a
            }
        }
        _ if (a > b) == max => a,
        _ => b,
    }
}

/// A two-operand `f32` instruction.
pub(crate) fn fbin(op: FBin, mods: FMods, a: u64, b: u64) -> u64 {
    let (x, y) = (f32_input(a, mods), f32_input(b, mods));
    let r = match op {
        FBin::Add => round::add(x, y, mods.rnd),
        FBin::Sub => round::add(x, -y, mods.rnd),
        FBin::Mul => round::mul(x, y, mods.rnd),
        FBin::Div(DivKind::Ieee) => round::div(x, y, mods.rnd),
        FBin::Div(DivKind::Full) => x / y,
        FBin::Div(DivKind::Approx) => {
            let m = y.abs();
            if m > 2f32.powi(126) && m.is_finite() {
                if x.is_infinite() {
                    f32::NAN
                } else {
                    0.0
                }
            } else {
                x * (1.0 / y)
            }
        }
        FBin::Min => min_max(x, y, false),
        FBin::Max => min_max(x, y, true),
        FBin::MinNan | FBin::MaxNan if x.is_nan() || y.is_nan() => f32::NAN,
        FBin::MinNan => min_max(x, y, false),
        FBin::MaxNan => min_max(x, y, true),
    };
    f32_result(r, mods)
}

/// `fma.rnd.f32` / `mad.rnd.f32`: one rounding.
pub(crate) fn fma(mods: FMods, a: u64, b: u64, c: u64) -> u64 {
    let (x, y, z) = (f32_input(a, mods), f32_input(b, mods), f32_input(c, mods));
    f32_result(round::fma(x, y, z, mods.rnd), mods)
}

/// A one-operand `f32` instruction.
pub(crate) fn fun(op: FUn, mods: FMods, a: u64) -> u64 {
    let x = f32_input(a, mods);
    match op {
        FUn::Neg => u64::from((-x).to_bits()),
        FUn::Abs => u64::from(x.abs().to_bits()),
        FUn::Sqrt => f32_result(round::sqrt(x, mods.rnd), mods),
        // `rcp.approx.ftz.f64` is never `f32`; as `rcp` if it were.
        FUn::Rcp | FUn::RcpGross => f32_result(round::div(1.0, x, mods.rnd), mods),
        _ => f32_result(super::approx::approx(op, x), mods),
    }
}

/// An `f32` comparison (`.ftz`: subnormals compare as zero).
pub(crate) fn compare(cmp: Cmp, ftz: bool, a: u64, b: u64) -> bool {
    let mods = FMods {
        ftz,
        ..FMods::default()
    };
    let (x, y) = (f32_input(a, mods), f32_input(b, mods));
    let unordered = x.is_nan() || y.is_nan();
    match cmp {
        Cmp::Eq => x == y,
        Cmp::Ne => !unordered && x != y,
        Cmp::Lt => x < y,
        Cmp::Le => x <= y,
        Cmp::Gt => x > y,
        Cmp::Ge => x >= y,
        Cmp::Equ => unordered || x == y,
        Cmp::Neu => unordered || x != y,
        Cmp::Ltu => unordered || x < y,
        Cmp::Leu => unordered || x <= y,
        Cmp::Gtu => unordered || x > y,
        Cmp::Geu => unordered || x >= y,
        Cmp::Num => !unordered,
        Cmp::Nan => unordered,
    }
}

/// `atom.add.f32`: on global memory with subnormals flushed (CUDA's global float atomics are
/// `FADD.FTZ.RN`), on shared memory with them; the IR simulator's float atomic add, so both
/// simulators share one definition.
pub(crate) fn atomic_add(global: bool, old: u64, b: u64) -> u64 {
    u64::from(crate::memory::float_add(global, old as u32, b as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(x: f32) -> u64 {
        u64::from(x.to_bits())
    }

    #[test]
    fn results_follow_the_isa() {
        let none = FMods::default();
        let inf = b(f32::INFINITY);
        assert_eq!(fbin(FBin::Sub, none, inf, inf), u64::from(CANONICAL_NAN));
        assert_eq!(fbin(FBin::Max, none, b(-0.0), b(0.0)), b(0.0), "+0 > -0");
        assert_eq!(fbin(FBin::Min, none, b(0.0), b(-0.0)), b(-0.0));
        assert_eq!(fbin(FBin::Min, none, b(f32::NAN), b(2.0)), b(2.0));
        assert_eq!(
            fbin(FBin::MinNan, none, b(f32::NAN), b(2.0)),
            u64::from(CANONICAL_NAN)
        );
        let ftz = FMods {
            ftz: true,
            ..FMods::default()
        };
        let tiny = u64::from(1u32);
        assert_eq!(fbin(FBin::Add, ftz, tiny, 0), 0);
        assert_eq!(fbin(FBin::Add, none, tiny, 0), tiny);
        let sat = FMods {
            sat: true,
            ..FMods::default()
        };
        assert_eq!(fbin(FBin::Mul, sat, b(3.0), b(2.0)), b(1.0));
        assert_eq!(fbin(FBin::Mul, sat, b(f32::NAN), b(2.0)), b(0.0));
        assert_eq!(fun(FUn::Neg, none, b(1.0)), b(-1.0));
        assert!(compare(Cmp::Neu, false, b(f32::NAN), b(1.0)));
        assert!(!compare(Cmp::Ne, false, b(f32::NAN), b(1.0)));
    }
}
