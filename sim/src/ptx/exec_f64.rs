//! `f64` semantics of the PTX instructions, per lane, and the conversions with an `f64` on either
//! side. PTX's double-precision instructions have no `.ftz` or `.sat` (subnormals are always
//! honoured); `add`/`sub`/`mul`/`fma`/`div`/`sqrt`/`rcp` round as their modifier says, exactly
//! (`round.rs`).
//!
//! **NaN results.** The PTX ISA says NaN payloads are supported for double precision (9.7.3): a
//! NaN operand's payload reaches the result, quieted. Which NaN when several are NaN, and the NaN
//! an invalid operation makes, the ISA leaves open; the simulator gives what an H100 (sm_90,
//! CUDA 13) gave for operands read from memory at run time:
//!
//! - an invalid operation (`∞ − ∞`, `0 × ∞`, `0 / 0`, `√−1`) gives `0xfff8000000000000`;
//! - `add`, `sub`, `mul`, `min`, `max` return `b` when it is NaN (its sign unchanged, also in
//!   `sub`), else `a`; `fma` prefers `b`, then `c`, then `a`; `div` prefers `a`; a signalling NaN
//!   comes back quiet (bit 51 set);
//! - `neg`/`abs` only change the sign bit of a number; a NaN passes through with its sign (the
//!   ISA says so for `abs.f64`; the H100 did it for `neg.f64` as well), quieted.
//!
//! `rcp.approx.ftz.f64` follows the ISA's description: the reciprocal of the operand's upper 32
//! bits (1.11.20 format, subnormal → zero), truncated to its upper 32 bits, subnormal results
//! flushed, NaN → `0x7fffffff00000000`. The simulator truncates the exact reciprocal, which is what
//! an H100 gave for the eight values tried; the ISA only calls it a "gross approximation".
//!
//! These rules, the rounding of every operation in every direction and the conversions' were
//! compared with an H100 on 4,096 random operand sets (subnormal, huge, cancelling, NaN and
//! infinite operands; 245,760 results): all identical.
//!
//! **Conversions.** `cvt.f64.f32` is exact (a NaN keeps its sign and payload, shifted up, quiet);
//! `cvt.rnd.f32.f64` rounds in any direction (a NaN keeps its sign and the payload's upper bits);
//! integer → `f64` rounds in any direction; `f64` → integer rounds to an integral value
//! (`.rni`/`.rzi`/`.rmi`/`.rpi`) and saturates to the integer type's range, and NaN gives
//! `1 << (bits − 1)` (the ISA's rule for an `.f64` source, also for 64-bit destinations of an
//! `.f32` source: `exec_float.rs`). `.sat` on a float destination clamps to [0, 1], NaN to +0.

use super::inst::{Cmp, FBin, FUn, Rnd};
use super::round;

/// The NaN an invalid `f64` operation without NaN operands gives.
pub(crate) const DEFAULT_NAN: u64 = 0xfff8_0000_0000_0000;
/// The quiet bit of an `f64` NaN.
pub(crate) const QUIET: u64 = 1 << 51;
const SIGN: u64 = 1 << 63;
/// `rcp.approx.ftz.f64`'s NaN.
const GROSS_NAN: u64 = 0x7fff_ffff_0000_0000;
const UPPER: u64 = 0xffff_ffff_0000_0000;

#[inline]
pub(crate) fn f64_of(bits: u64) -> f64 {
    f64::from_bits(bits)
}

/// The bits of result `x`: if it is NaN, the first NaN among `operands` (in the order the hardware
/// prefers them), quieted, else [`DEFAULT_NAN`].
pub(crate) fn f64_result(x: f64, operands: &[u64]) -> u64 {
    if !x.is_nan() {
        return x.to_bits();
    }
    operands
        .iter()
        .find(|&&b| f64_of(b).is_nan())
        .map_or(DEFAULT_NAN, |&b| b | QUIET)
}

/// PTX `min`/`max` on `f64`: the number when one operand is NaN (`b` when both are); −0 < +0.
fn min_max(a: u64, b: u64, max: bool) -> u64 {
    let (x, y) = (f64_of(a), f64_of(b));
    match (x.is_nan(), y.is_nan()) {
        (true, true) => b | QUIET,
        (true, false) => b,
        (false, true) => a,
        _ if x == y => {
            // Equal: only the zeros' signs can differ.
            if (x.is_sign_negative() && max) || (y.is_sign_negative() && !max) {
                b
            } else {
                a
            }
        }
        _ if (x > y) == max => a,
        _ => b,
    }
}

/// A two-operand `f64` instruction.
pub(crate) fn fbin(op: FBin, rnd: Rnd, a: u64, b: u64) -> u64 {
    let (x, y) = (f64_of(a), f64_of(b));
    match op {
        FBin::Add => f64_result(round::add(x, y, rnd), &[b, a]),
        FBin::Sub => f64_result(round::add(x, -y, rnd), &[b, a]),
        FBin::Mul => f64_result(round::mul(x, y, rnd), &[b, a]),
        FBin::Div(_) => f64_result(round::div(x, y, rnd), &[a, b]),
        FBin::Min | FBin::MinNan => min_max(a, b, false),
        FBin::Max | FBin::MaxNan => min_max(a, b, true),
    }
}

/// `fma.rnd.f64` / `mad.rnd.f64`: one rounding.
pub(crate) fn fma(rnd: Rnd, a: u64, b: u64, c: u64) -> u64 {
    f64_result(round::fma(f64_of(a), f64_of(b), f64_of(c), rnd), &[b, c, a])
}

/// A one-operand `f64` instruction.
pub(crate) fn fun(op: FUn, rnd: Rnd, a: u64) -> u64 {
    let x = f64_of(a);
    match op {
        // The ISA: `abs.f64` passes a NaN through unchanged; an H100 does so for `neg.f64` too
        // (quieting a signalling NaN).
        FUn::Neg | FUn::Abs if x.is_nan() => a | QUIET,
        FUn::Neg => a ^ SIGN,
        FUn::Abs => a & !SIGN,
        FUn::Sqrt => f64_result(round::sqrt(x, rnd), &[a]),
        FUn::RcpGross => rcp_gross(a),
        // Only `rcp` and the above are decoded for `f64`.
        _ => f64_result(round::div(1.0, x, rnd), &[a]),
    }
}

/// `rcp.approx.ftz.f64`.
fn rcp_gross(a: u64) -> u64 {
    let x = f64_of(a & UPPER);
    if x.is_nan() {
        return GROSS_NAN;
    }
    let x = if x.is_subnormal() {
        0.0f64.copysign(x)
    } else {
        x
    };
    let q = round::div(1.0, x, Rnd::Zero);
    let q = if q.is_subnormal() {
        0.0f64.copysign(q)
    } else {
        q
    };
    q.to_bits() & UPPER
}

/// An `f64` comparison (no `.ftz` on `f64`).
pub(crate) fn compare(cmp: Cmp, a: u64, b: u64) -> bool {
    let (x, y) = (f64_of(a), f64_of(b));
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

/// `atom.add.f64`: round to nearest even, subnormals kept (CUDA's `DADD`).
pub(crate) fn atomic_add(old: u64, b: u64) -> u64 {
    fbin(FBin::Add, Rnd::Nearest, old, b)
}
