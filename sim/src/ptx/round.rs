//! IEEE 754 rounding in every direction PTX names — `.rn` (to nearest, ties to even), `.rz`
//! (toward zero), `.rm` (toward −∞), `.rp` (toward +∞) — for `f32` and `f64` `add`, `sub`, `mul`,
//! `fma`, `div`, `sqrt` and `rcp`, and for the conversions that round (integer → float, `f64` →
//! `f32`). Every result is the correctly rounded one.
//!
//! # Method
//!
//! The host computes the round-to-nearest-even result `r` of the operation (Rust's `+ - * /`,
//! `sqrt` and `mul_add` are IEEE 754 operations rounding to nearest, also on subnormals). When the
//! instruction asks for another direction, the simulator finds the sign of the rounding error
//! `v − r`, where `v` is the exact (real) result, and steps `r` one ulp toward the asked direction
//! when `r` lies on the wrong side of `v`: with `v` strictly between two neighbouring floats, the
//! nearest one is either the directed result or its neighbour on the other side of `v`.
//!
//! The sign of `v − r` is computed **exactly**, in integer arithmetic, from a residual whose sign is
//! the error's: every finite float is `±m · 2^e` with an integer `m` below 2^53, a product of two is
//! `±(m₁m₂) · 2^(e₁+e₂)` with `m₁m₂` below 2^106, and [`residual_sign`] adds such terms in a
//! fixed-width integer wide enough for the whole exponent range (4,352 bits: from 2^-2148, the
//! product of two least subnormals, to above 2^2048). So:
//!
//! | operation | residual, same sign as `v − r` |
//! |---|---|
//! | `a + b`, `a − b` | `a + b − r` (the TwoSum error, exactly) |
//! | `a × b` | `a·b − r` (the TwoProduct error, exactly, also where it underflows) |
//! | `fma(a, b, c)` | `a·b + c − r` |
//! | `a / b` | `(a − r·b) · sign(b)` (the division remainder) |
//! | `√a` | `a − r²` |
//! | integer `i` → float | `i − r` (in `i128`) |
//! | `f64` `x` → `f32` | `x − r` (in `f64`, where `r` is exact) |
//!
//! Unlike an error-free transformation evaluated in floating point, this has no range condition:
//! it stays exact where the error underflows (a product or quotient in the subnormal range) and
//! where an intermediate would overflow. The cases without a residual are exact already: NaN and
//! infinite operands, division by zero, zero operands of `mul`/`div`, `√` of zero or negatives.
//! **Overflow** (`r` infinite from finite operands, so `|v|` is at least the largest finite value
//! `MAX`) gives `±MAX` or `±∞` by direction (toward zero: `±MAX`; `.rp`: `+∞` or `−MAX`; `.rm`:
//! `+MAX` or `−∞`). An **exact zero sum** of operands of opposite signs (`x + (−x)`, or `a·b + c`
//! cancelling) is `+0` except in `.rm`, where it is `−0` (IEEE 754 §6.3), and `(+0) + (+0)` stays
//! `+0`. An inexact result rounding to zero keeps the sign of `v`.

use std::cmp::Ordering;

use super::inst::Rnd;

/// The IEEE binary formats: `f32` and `f64`.
pub(crate) trait Float:
    Copy
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
{
    /// Stored fraction bits (23, 52).
    const FRAC: u32;
    /// Exponent bits (8, 11).
    const EXP_BITS: u32;
    /// Exponent bias (127, 1023).
    const BIAS: i32;
    const MAX: Self;
    const INFINITY: Self;
    const ZERO: Self;
    fn bits(self) -> u64;
    fn from_bits64(bits: u64) -> Self;
    fn is_finite(self) -> bool;
    fn is_infinite(self) -> bool;
    fn is_sign_negative(self) -> bool;
    fn mul_add(self, b: Self, c: Self) -> Self;
    fn sqrt(self) -> Self;
    /// The nearest value to an integer (ties to even).
    fn from_i128(v: i128) -> Self;
    /// An integral value as an integer (exact for the values [`Float::from_i128`] gives).
    fn to_i128(self) -> i128;
}

macro_rules! float {
    ($t:ty, $bits:ty, $frac:expr, $exp:expr, $bias:expr) => {
        impl Float for $t {
            const FRAC: u32 = $frac;
            const EXP_BITS: u32 = $exp;
            const BIAS: i32 = $bias;
            const MAX: Self = <$t>::MAX;
            const INFINITY: Self = <$t>::INFINITY;
            const ZERO: Self = 0.0;
            fn bits(self) -> u64 {
                u64::from(self.to_bits())
            }
            fn from_bits64(bits: u64) -> Self {
                <$t>::from_bits(bits as $bits)
            }
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            fn is_infinite(self) -> bool {
                <$t>::is_infinite(self)
            }
            fn is_sign_negative(self) -> bool {
                <$t>::is_sign_negative(self)
            }
            fn mul_add(self, b: Self, c: Self) -> Self {
                <$t>::mul_add(self, b, c)
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn from_i128(v: i128) -> Self {
                v as $t
            }
            fn to_i128(self) -> i128 {
                self as i128
            }
        }
    };
}

float!(f32, u32, 23, 8, 127);
float!(f64, u64, 52, 11, 1023);

/// `±m · 2^e`: an exact term of a residual.
#[derive(Clone, Copy, Debug)]
struct Term {
    negative: bool,
    m: u128,
    e: i32,
}

/// A finite float as a term (`negate` flips its sign).
fn term<F: Float>(x: F, negate: bool) -> Term {
    let bits = x.bits();
    let frac = bits & ((1u64 << F::FRAC) - 1);
    let biased = ((bits >> F::FRAC) & ((1u64 << F::EXP_BITS) - 1)) as i32;
    let (m, e) = if biased == 0 {
        (frac, 1 - F::BIAS - F::FRAC as i32)
    } else {
        (frac | 1u64 << F::FRAC, biased - F::BIAS - F::FRAC as i32)
    };
    Term {
        negative: x.is_sign_negative() != negate,
        m: u128::from(m),
        e,
    }
}

/// The exact product of two finite floats as a term.
fn product<F: Float>(x: F, y: F, negate: bool) -> Term {
    let (a, b) = (term(x, false), term(y, false));
    Term {
        negative: (a.negative != b.negative) != negate,
        m: a.m * b.m,
        e: a.e + b.e,
    }
}

/// 64-bit limbs of the exact sums: from 2^-2148 up, 4,352 bits (the terms' top bit is at most
/// 2^2048 and three of them carry at most two bits further).
const LIMBS: usize = 68;
const LOWEST: i32 = -2148;

/// Adds `m · 2^(e − LOWEST)` to `acc`.
fn accumulate(acc: &mut [u64; LIMBS], m: u128, e: i32) {
    let shift = (e - LOWEST).max(0) as u32;
    let (limb, bit) = ((shift / 64) as usize, shift % 64);
    let parts: [u64; 3] = if bit == 0 {
        [m as u64, (m >> 64) as u64, 0]
    } else {
        [
            (m as u64) << bit,
            (m >> (64 - bit)) as u64,
            (m >> (128 - bit)) as u64,
        ]
    };
    let mut carry = false;
    for (i, slot) in acc.iter_mut().enumerate().skip(limb) {
        let part = parts.get(i - limb).copied().unwrap_or(0);
        if part == 0 && !carry {
            if i >= limb + 2 {
                break;
            }
            continue;
        }
        let (s, c1) = slot.overflowing_add(part);
        let (s, c2) = s.overflowing_add(u64::from(carry));
        *slot = s;
        carry = c1 || c2;
    }
}

/// The sign of the exact sum of `terms`.
fn residual_sign(terms: &[Term]) -> Ordering {
    let mut pos = [0u64; LIMBS];
    let mut neg = [0u64; LIMBS];
    for t in terms.iter().filter(|t| t.m != 0) {
        let acc = if t.negative { &mut neg } else { &mut pos };
        accumulate(acc, t.m, t.e);
    }
    pos.iter().rev().cmp(neg.iter().rev())
}

/// The next float toward +∞ (`up`) or −∞ from a finite `x` (from `±MAX` outward: `±∞`).
pub(crate) fn step<F: Float>(x: F, up: bool) -> F {
    if x == F::ZERO {
        let tiny = F::from_bits64(1);
        return if up { tiny } else { -tiny };
    }
    let bits = x.bits();
    let away = (x > F::ZERO) == up;
    F::from_bits64(if away { bits + 1 } else { bits - 1 })
}

/// `r`, the nearest float to the exact `v`, moved to the float `dir` gives, where `err` is the
/// sign of `v − r`.
pub(crate) fn adjust<F: Float>(r: F, err: Ordering, dir: Rnd) -> F {
    match (dir, err) {
        (Rnd::Up, Ordering::Greater) => step(r, true),
        (Rnd::Down, Ordering::Less) => step(r, false),
        (Rnd::Zero, Ordering::Greater) if r < F::ZERO => step(r, true),
        (Rnd::Zero, Ordering::Less) if r > F::ZERO => step(r, false),
        _ => r,
    }
}

/// The result of an exact value beyond the finite range, of sign `negative`, rounded by `dir`.
pub(crate) fn overflow<F: Float>(negative: bool, dir: Rnd) -> F {
    let inf = match dir {
        Rnd::Zero => false,
        Rnd::Up => !negative,
        Rnd::Down => negative,
        _ => true,
    };
    let m = if inf { F::INFINITY } else { F::MAX };
    if negative {
        -m
    } else {
        m
    }
}

/// Whether `dir` rounds to nearest (no modifier is `.rn`).
fn nearest(dir: Rnd) -> bool {
    matches!(dir, Rnd::None | Rnd::Nearest)
}

/// The sign of an exact zero sum of two addends, `p_plus_zero`/`c_plus_zero` telling whether each
/// is `+0`: `+0` unless rounding down (then `+0` only when both addends are `+0`).
fn zero_sum<F: Float>(r: F, both_plus_zero: bool, dir: Rnd) -> F {
    if dir == Rnd::Down && !both_plus_zero {
        -F::ZERO
    } else if dir == Rnd::Down {
        F::ZERO
    } else {
        r
    }
}

fn is_plus_zero<F: Float>(x: F) -> bool {
    x == F::ZERO && !x.is_sign_negative()
}

/// `a + b` rounded by `dir`.
pub(crate) fn add<F: Float>(a: F, b: F, dir: Rnd) -> F {
    let r = a + b;
    if nearest(dir) || !a.is_finite() || !b.is_finite() {
        return r;
    }
    if r.is_infinite() {
        return overflow(r.is_sign_negative(), dir);
    }
    if r == F::ZERO {
        // A sum that rounds to zero is exactly zero (sums are multiples of the least subnormal).
        return zero_sum(r, is_plus_zero(a) && is_plus_zero(b), dir);
    }
    let err = residual_sign(&[term(a, false), term(b, false), term(r, true)]);
    adjust(r, err, dir)
}

/// `a × b` rounded by `dir`.
pub(crate) fn mul<F: Float>(a: F, b: F, dir: Rnd) -> F {
    let r = a * b;
    if nearest(dir) || !a.is_finite() || !b.is_finite() || a == F::ZERO || b == F::ZERO {
        return r;
    }
    if r.is_infinite() {
        return overflow(r.is_sign_negative(), dir);
    }
    let err = residual_sign(&[product(a, b, false), term(r, true)]);
    adjust(r, err, dir)
}

/// `a × b + c` with one rounding, by `dir`.
pub(crate) fn fma<F: Float>(a: F, b: F, c: F, dir: Rnd) -> F {
    let r = a.mul_add(b, c);
    if nearest(dir) || !a.is_finite() || !b.is_finite() || !c.is_finite() {
        return r;
    }
    if r.is_infinite() {
        return overflow(r.is_sign_negative(), dir);
    }
    let err = residual_sign(&[product(a, b, false), term(c, false), term(r, true)]);
    if err == Ordering::Equal && r == F::ZERO {
        let p = a * b; // a zero product keeps its sign; a non-zero one cancelled `c`
        let both_plus = p == F::ZERO && is_plus_zero(p) && is_plus_zero(c);
        return zero_sum(r, both_plus, dir);
    }
    adjust(r, err, dir)
}

/// `a / b` rounded by `dir`.
pub(crate) fn div<F: Float>(a: F, b: F, dir: Rnd) -> F {
    let r = a / b;
    if nearest(dir) || !a.is_finite() || !b.is_finite() || a == F::ZERO || b == F::ZERO {
        return r;
    }
    if r.is_infinite() {
        return overflow(r.is_sign_negative(), dir);
    }
    let rem = residual_sign(&[term(a, false), product(r, b, true)]);
    let err = if b.is_sign_negative() {
        rem.reverse()
    } else {
        rem
    };
    adjust(r, err, dir)
}

/// `√a` rounded by `dir`.
pub(crate) fn sqrt<F: Float>(a: F, dir: Rnd) -> F {
    let r = a.sqrt();
    if nearest(dir) || !a.is_finite() || a <= F::ZERO {
        return r;
    }
    let err = residual_sign(&[term(a, false), product(r, r, true)]);
    adjust(r, err, dir)
}

/// An integer rounded to a float by `dir`.
pub(crate) fn from_int<F: Float>(v: i128, dir: Rnd) -> F {
    let r = F::from_i128(v);
    if nearest(dir) {
        return r;
    }
    adjust(r, v.cmp(&r.to_i128()), dir)
}

/// An `f64` rounded to `f32` by `dir` (NaN is the caller's).
pub(crate) fn narrow(x: f64, dir: Rnd) -> f32 {
    let r = x as f32;
    if nearest(dir) || !x.is_finite() {
        return r;
    }
    if r.is_infinite() {
        return overflow(x < 0.0, dir);
    }
    let err = x.partial_cmp(&f64::from(r)).unwrap_or(Ordering::Equal);
    adjust(r, err, dir)
}

/// An integral value in the direction of a `.rni`/`.rzi`/`.rmi`/`.rpi` conversion.
pub(crate) fn integral_f64(x: f64, dir: Rnd) -> f64 {
    match dir {
        Rnd::Zero => x.trunc(),
        Rnd::Down => x.floor(),
        Rnd::Up => x.ceil(),
        Rnd::Nearest => x.round_ties_even(),
        Rnd::None => x,
    }
}

#[cfg(test)]
mod tests;
