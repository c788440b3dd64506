//! Semantics of the [`FloatX`] instructions, per lane (PTX ISA 9.7.4 "Half Precision Floating
//! Point Instructions", 9.7.7 "Half Precision Comparison Instructions", `cvt`, `testp`,
//! `copysign`).
//!
//! - **Arithmetic** on `.f16`/`.bf16` (and on both halves of `.f16x2`/`.bf16x2`, lower half from
//!   bits 0–15): `add`, `sub`, `mul`, `fma` give the correctly rounded result (`.rn`, the only
//!   rounding the ISA has for them; computed in `f64` and rounded once, `half_fmt.rs`); `.ftz`
//!   flushes subnormal inputs and results to a zero of their sign, `.sat` clamps to [0, 1] (NaN
//!   to +0), `.relu` clamps negative results to +0 (NaN stays NaN). `neg` and `abs` only touch the
//!   sign bit. `min`/`max` follow the ISA's pseudo-code: the number when one operand is NaN
//!   (`.NaN`: NaN), −0 below +0, `.xorsign.abs` compares magnitudes and gives the result the XOR
//!   of the operands' signs. NaN results are the canonical `0x7fff`.
//! - `ex2.approx` and `tanh.approx` on halves: the function computed in `f64` and rounded to the
//!   nearest half — within the ISA's error bounds, not necessarily a GPU's bits.
//! - **Comparisons** (`setp`, `set`) as for `f32`: ordered ones false on NaN, unordered ones true.
//! - **Conversions** with a half on either side: to a half, correctly rounded from the exact source
//!   value in the direction given (also from 64-bit integers); from a half, exact (to a float) or
//!   rounded to an integral value and saturated (to an integer; NaN gives 0, or `1 << 63` for
//!   64-bit destinations, as the ISA says for non-`.f64` sources).

use super::block::{PtxBlock, PtxWarp};
use super::exec_cvt::range;
use super::exec_float::{flush, CANONICAL_NAN};
use super::exec_int::{self, ones};
use super::half_fmt::{odd_sum, NAN16};
use super::inst::{BoolOp, Cmp, Rnd, R};
use super::inst_half::{CmpSrc, CvtMods, CvtTy, FloatX, HArith, HFmt, HMods, SetDst, TestClass};
use super::{exec_cvt, exec_f64, exec_float, round};

/// A half-precision result after `.ftz`, `.sat` and `.relu`.
fn finish(fmt: HFmt, r: u16, m: HMods) -> u16 {
    let r = if m.ftz { fmt.flush(r) } else { r };
    if m.sat {
        if fmt.is_nan(r) || r & 0x8000 != 0 {
            return 0;
        }
        return if fmt.to_f64(r) > 1.0 { fmt.one() } else { r };
    }
    if m.relu && !fmt.is_nan(r) && r & 0x8000 != 0 {
        return 0;
    }
    r
}

/// One half-precision arithmetic operation.
pub(crate) fn arith(op: HArith, fmt: HFmt, m: HMods, a: u16, b: u16, c: u16) -> u16 {
    let input = |h: u16| if m.ftz { fmt.flush(h) } else { h };
    let (a, b, c) = (input(a), input(b), input(c));
    match op {
        HArith::Neg => return a ^ 0x8000,
        HArith::Abs => return a & 0x7fff,
        HArith::Min | HArith::Max => return finish(fmt, min_max(fmt, op, m, a, b), m),
        _ => {}
    }
    let (x, y, z) = (fmt.to_f64(a), fmt.to_f64(b), fmt.to_f64(c));
    let v = match op {
        HArith::Add => odd_sum(x, y),
        HArith::Sub => odd_sum(x, -y),
        // Exact: at most 22 significant bits, far inside f64's range.
        HArith::Mul => x * y,
        HArith::Fma if (x * y).is_finite() && z.is_finite() => odd_sum(x * y, z),
        HArith::Fma => x * y + z,
        HArith::Ex2 => x.exp2(),
        _ => x.tanh(),
    };
    finish(fmt, fmt.narrow(v, Rnd::Nearest, false), m)
}

/// `min`/`max` as the ISA's pseudo-code says.
fn min_max(fmt: HFmt, op: HArith, m: HMods, a: u16, b: u16) -> u16 {
    let sign = (a ^ b) & 0x8000;
    let (a, b) = if m.xorsign_abs {
        (a & 0x7fff, b & 0x7fff)
    } else {
        (a, b)
    };
    let (na, nb) = (fmt.is_nan(a), fmt.is_nan(b));
    let d = if (na && nb) || (m.nan && (na || nb)) {
        return NAN16;
    } else if na {
        b
    } else if nb {
        a
    } else {
        let (x, y) = (fmt.to_f64(a), fmt.to_f64(b));
        let a_first = if x == y {
            // Equal: only zeros' signs can differ; −0 < +0.
            (a & 0x8000 != 0) == (op == HArith::Min)
        } else {
            (x < y) == (op == HArith::Min)
        };
        if a_first {
            a
        } else {
            b
        }
    };
    if m.xorsign_abs {
        (d & 0x7fff) | sign
    } else {
        d
    }
}

/// A comparison of two halves (`.ftz`: subnormals compare as zero).
fn compare_half(cmp: Cmp, fmt: HFmt, ftz: bool, a: u16, b: u16) -> bool {
    let v = |h: u16| fmt.to_f64(if ftz { fmt.flush(h) } else { h }).to_bits();
    exec_f64::compare(cmp, v(a), v(b))
}

/// `set`'s or `setp`'s comparisons: one, or two for a packed source (lower half first).
fn compare(cmp: Cmp, src: CmpSrc, ftz: bool, a: u64, b: u64) -> [bool; 2] {
    match src {
        CmpSrc::Half { fmt, packed } => {
            let t = |s: u32| compare_half(cmp, fmt, ftz, (a >> s) as u16, (b >> s) as u16);
            [t(0), if packed { t(16) } else { false }]
        }
        CmpSrc::Int(t) => [exec_int::compare(cmp, t, a, b), false],
        CmpSrc::F32 => [exec_float::compare(cmp, ftz, a, b), false],
        CmpSrc::F64 => [exec_f64::compare(cmp, a, b), false],
    }
}

fn combine(v: bool, c: Option<(BoolOp, bool)>) -> bool {
    match c {
        None => v,
        Some((BoolOp::And, c)) => v && c,
        Some((BoolOp::Or, c)) => v || c,
        Some((BoolOp::Xor, c)) => v != c,
    }
}

/// A half result of a conversion after `.relu` and `.sat`.
fn half_result(fmt: HFmt, r: u16, m: CvtMods) -> u16 {
    let hm = HMods {
        sat: m.sat,
        relu: m.relu,
        ..HMods::default()
    };
    let r = finish(fmt, r, hm);
    if m.relu && fmt.is_nan(r) {
        NAN16
    } else {
        r
    }
}

/// A float result clamped to [0, 1] (NaN to +0) under `.sat`.
fn sat64(x: f64, sat: bool) -> f64 {
    match sat {
        true if x.is_nan() || x <= 0.0 => 0.0,
        true => x.min(1.0),
        false => x,
    }
}

/// One `cvt` with a half on either side (one element).
pub(crate) fn cvt(to: CvtTy, from: CvtTy, rnd: Rnd, m: CvtMods, a: u64) -> u64 {
    let to_half = |fmt: HFmt, x: f64| {
        let r = if m.integral {
            fmt.narrow(round::integral_f64(x, rnd), Rnd::Nearest, m.satfinite)
        } else {
            fmt.narrow(x, rnd, m.satfinite)
        };
        u64::from(half_result(fmt, r, m))
    };
    match (to, from) {
        (CvtTy::Half(t), CvtTy::Half(f)) => to_half(t, f.to_f64(a as u16)),
        (CvtTy::Half(t), CvtTy::F32) => {
            let x = f32::from_bits(a as u32);
            to_half(t, f64::from(if m.ftz { flush(x) } else { x }))
        }
        (CvtTy::Half(t), CvtTy::F64) => to_half(t, f64::from_bits(a)),
        (CvtTy::Half(t), CvtTy::Int(i)) => u64::from(half_result(
            t,
            t.narrow_int(i.value(a), rnd, m.satfinite),
            m,
        )),
        (CvtTy::F32, CvtTy::Half(f)) => {
            let x = f32::from_bits(f.to_f32_bits(a as u16));
            let x = if m.ftz { flush(x) } else { x };
            let x = if m.sat {
                sat64(f64::from(x), true) as f32
            } else {
                x
            };
            u64::from(x.to_bits())
        }
        (CvtTy::F64, CvtTy::Half(f)) => {
            let h = a as u16;
            if f.is_nan(h) {
                let b32 = f.to_f32_bits(h);
                let sign = u64::from(b32 >> 31) << 63;
                return sign | 0x7ff8_0000_0000_0000 | (u64::from(b32 & 0x3f_ffff) << 29);
            }
            sat64(f.to_f64(h), m.sat).to_bits()
        }
        (CvtTy::Int(t), CvtTy::Half(f)) => {
            let x = f.to_f64(a as u16);
            if x.is_nan() {
                return if t.bits == 64 {
                    exec_cvt::nan_to_int(64)
                } else {
                    0
                };
            }
            let dir = if rnd == Rnd::None { Rnd::Nearest } else { rnd };
            let (lo, hi) = range(t);
            t.trunc((round::integral_f64(x, dir) as i128).clamp(lo, hi) as u64)
        }
        // The decoder gives every `FloatX::Cvt` a half on one side.
        _ => u64::from(CANONICAL_NAN),
    }
}

/// `testp.class` on an `f32` or `f64`.
fn testp(class: TestClass, x: f64, subnormal: bool) -> bool {
    match class {
        TestClass::Finite => x.is_finite(),
        TestClass::Infinite => x.is_infinite(),
        TestClass::Number => !x.is_nan(),
        TestClass::NotANumber => x.is_nan(),
        TestClass::Normal => x.is_finite() && x != 0.0 && !subnormal,
        TestClass::Subnormal => subnormal,
    }
}

/// `op` on one half, or on both halves of a packed pair.
fn lanewise(packed: bool, a: u64, b: u64, c: u64, f: impl Fn(u16, u16, u16) -> u16) -> u64 {
    let lo = u64::from(f(a as u16, b as u16, c as u16));
    if !packed {
        return lo;
    }
    let hi = u64::from(f((a >> 16) as u16, (b >> 16) as u16, (c >> 16) as u16));
    hi << 16 | lo
}

impl PtxBlock<'_> {
    /// Executes a [`FloatX`] instruction on `mask`'s lanes.
    pub(crate) fn exec_float_x(&mut self, warp: &mut PtxWarp, x: &FloatX, mask: u32) {
        let r = |warp: &PtxWarp, reg: R| warp.regs[reg as usize];
        match *x {
            FloatX::Arith {
                op,
                fmt,
                packed,
                mods,
                d,
                a,
                b,
                c,
            } => {
                let (a, b, c) = (a as usize, b as usize, c as usize);
                self.put_with(warp, d, mask, None, |r, l| {
                    lanewise(packed, r[a][l], r[b][l], r[c][l], |x, y, z| {
                        arith(op, fmt, mods, x, y, z)
                    })
                });
            }
            FloatX::Setp {
                cmp,
                fmt,
                packed,
                ftz,
                p,
                q,
                a,
                b,
                combine: comb,
            } => {
                let (a, b) = (r(warp, a), r(warp, b));
                let c = comb.map(|(op, c, neg)| (op, r(warp, c), neg));
                let c_of = |l: usize| c.map(|(op, col, neg)| (op, (col[l] & 1 == 1) != neg));
                let src = CmpSrc::Half { fmt, packed };
                let t: [[bool; 2]; 32] =
                    std::array::from_fn(|l| compare(cmp, src, ftz, a[l], b[l]));
                if let Some(p) = p {
                    self.put(warp, p, mask, None, |l| {
                        u64::from(combine(t[l][0], c_of(l)))
                    });
                }
                if let Some(q) = q {
                    // A packed pair's `q` is the upper halves' result; a single half's `q` is
                    // the complement, as for other types.
                    let second = |l: usize| if packed { t[l][1] } else { !t[l][0] };
                    self.put(warp, q, mask, None, |l| {
                        u64::from(combine(second(l), c_of(l)))
                    });
                }
            }
            FloatX::Set {
                cmp,
                src,
                dst,
                ftz,
                d,
                a,
                b,
                combine: comb,
            } => {
                let (a, b) = (a as usize, b as usize);
                let packed = matches!(src, CmpSrc::Half { packed: true, .. });
                self.put_with(warp, d, mask, None, |r, l| {
                    let cl = comb.map(|(op, c, neg)| (op, (r[c as usize][l] & 1 == 1) != neg));
                    let t = compare(cmp, src, ftz, r[a][l], r[b][l]);
                    let one = |v: bool, bits: u32| match (v, dst) {
                        (false, _) => 0,
                        (true, SetDst::Ones(n)) => ones(bits.min(n)),
                        (true, SetDst::Half(f)) => u64::from(f.one()),
                        (true, SetDst::F32) => u64::from(1f32.to_bits()),
                    };
                    if packed {
                        one(combine(t[1], cl), 16) << 16 | one(combine(t[0], cl), 16)
                    } else {
                        one(combine(t[0], cl), 32)
                    }
                });
            }
            FloatX::Cvt {
                to,
                from,
                rnd,
                mods,
                d,
                a,
                b,
            } => {
                let a = a as usize;
                let signed = match to {
                    CvtTy::Int(t) if t.signed => Some(t.bits),
                    _ => None,
                };
                match b {
                    Some(b) => {
                        let b = b as usize;
                        self.put_with(warp, d, mask, None, |r, l| {
                            cvt(to, from, rnd, mods, r[a][l]) << 16
                                | cvt(to, from, rnd, mods, r[b][l])
                        });
                    }
                    None => self.put_with(warp, d, mask, signed, |r, l| {
                        cvt(to, from, rnd, mods, r[a][l])
                    }),
                }
            }
            FloatX::Testp { class, f64, d, a } => {
                let a = a as usize;
                self.put_with(warp, d, mask, None, |r, l| {
                    let (x, sub) = if f64 {
                        let x = f64::from_bits(r[a][l]);
                        (x, x.is_subnormal())
                    } else {
                        let x = f32::from_bits(r[a][l] as u32);
                        (f64::from(x), x.is_subnormal())
                    };
                    u64::from(testp(class, x, sub))
                });
            }
            FloatX::Copysign { f64, d, a, b } => {
                let (a, b) = (a as usize, b as usize);
                let sign = if f64 { 1u64 << 63 } else { 1u64 << 31 };
                self.put_with(warp, d, mask, None, |r, l| {
                    (r[b][l] & !sign) | (r[a][l] & sign)
                });
            }
        }
    }
}
