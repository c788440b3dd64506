//! The instructions that make up most of what kernels execute — integer `add`/`sub`/`mul`/`mad`,
//! `min`/`max`, `neg`/`not`, logic and shifts, conversions between integers, `cvta`, `mov`, `selp`,
//! integer `setp`, `f32` `setp` without `.ftz`, and `f32` `add`/`sub`/`mul`/`fma`/`min`/`max` rounded
//! to nearest without `.ftz`/`.sat` — executed with the operation chosen once per warp-instruction
//! and a lane loop over the register file (the general path in `exec_alu.rs` chooses the operation
//! per lane). Each result and counter is the general path's: `exec_hot_tests.rs` compares both on
//! random operands.

use super::address::{LOCAL_WINDOW, SHARED_WINDOW};
use super::block::{PtxBlock, PtxWarp};
use super::exec_alu::any_special;
use super::exec_float::{self, CANONICAL_NAN};
use super::exec_int::ones;
use super::inst::{
    BoolOp, Cmp, CmpTy, FBin, FMods, FTy, Half, Int, IntBin, IntUn, MemSpace, Op, Rnd, Ty,
};
use super::lanes;

/// Tests turn the fast forms off to compare them with the general path (`exec_hot_tests.rs`).
#[cfg(test)]
pub(super) static GENERAL_ONLY: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Held by a test while it compares the fast forms with the general path (so that two such tests
/// do not turn the switch for each other).
#[cfg(test)]
pub(super) static GENERAL_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Whether the fast forms are off (tests only).
#[inline(always)]
pub(super) fn general_only() -> bool {
    #[cfg(test)]
    return GENERAL_ONLY.load(std::sync::atomic::Ordering::SeqCst);
    #[cfg(not(test))]
    false
}

/// The bits of an `f32` result, NaN canonical (as `exec_float::f32_result` without `.ftz`/`.sat`).
#[inline(always)]
fn canonical(x: f32) -> u64 {
    u64::from(if x.is_nan() {
        CANONICAL_NAN
    } else {
        x.to_bits()
    })
}

#[inline(always)]
fn f(bits: u64) -> f32 {
    f32::from_bits(bits as u32)
}

/// `mods` round to nearest even with nothing else: the fast `f32` forms apply.
fn plain(mods: FMods) -> bool {
    !mods.ftz && !mods.sat && matches!(mods.rnd, Rnd::None | Rnd::Nearest)
}

/// `fma.rn.f32 d, a, b, c` on all 32 lanes: with the CPU's fused multiply-add over the lanes at
/// once where it has one (without it, each `mul_add` is a call into a software routine, a third of
/// a register-blocked SGEMM's time); the same correctly rounded results either way.
#[inline]
fn fma_warp(regs: &mut [[u64; 32]], [a, b, c]: [usize; 3], d: usize, keep: u64) {
    let (x, y, z) = (regs[a], regs[b], regs[c]);
    crate::simd::fma_f32_lanes(&x, &y, &z, &mut regs[d], keep, CANONICAL_NAN);
}

/// Writes `value(registers, lane)` to register `d` on `mask`'s lanes at the register's width. The
/// closure reads the register file in place: each lane reads its operands before its result is
/// written, so a destination that is also an operand is read before it is overwritten, as on the
/// general path.
#[inline(always)]
fn apply(
    reg_bits: &[u32],
    warp: &mut PtxWarp,
    d: usize,
    mask: u32,
    value: impl Fn(&[[u64; 32]], usize) -> u64,
) {
    let keep = ones(reg_bits[d]);
    let regs = &mut warp.regs;
    if mask == u32::MAX {
        for l in 0..32 {
            let v = value(regs, l) & keep;
            regs[d][l] = v;
        }
    } else {
        for l in lanes(mask) {
            let v = value(regs, l) & keep;
            regs[d][l] = v;
        }
    }
}

/// The lanes of `mask` for which `test(a, b)` holds, as a mask.
#[inline(always)]
fn compare_lanes(
    regs: &[[u64; 32]],
    a: usize,
    b: usize,
    mask: u32,
    test: impl Fn(u64, u64) -> bool,
) -> u32 {
    // Every lane is compared (a loop the compiler vectorizes) and the others masked off.
    let (ca, cb) = (&regs[a], &regs[b]);
    let mut m = 0u32;
    for l in 0..32 {
        m |= u32::from(test(ca[l], cb[l])) << l;
    }
    m & mask
}

/// An integer comparison of `mask`'s lanes as a mask of the lanes where it holds.
fn int_compare(regs: &[[u64; 32]], cmp: Cmp, t: Int, a: usize, b: usize, mask: u32) -> Option<u32> {
    let shift = 64 - t.bits;
    let keep = ones(t.bits);
    macro_rules! by {
        ($value:expr) => {{
            let v = $value;
            Some(match cmp {
                Cmp::Eq => compare_lanes(regs, a, b, mask, |x, y| v(x) == v(y)),
                Cmp::Ne => compare_lanes(regs, a, b, mask, |x, y| v(x) != v(y)),
                Cmp::Lt => compare_lanes(regs, a, b, mask, |x, y| v(x) < v(y)),
                Cmp::Le => compare_lanes(regs, a, b, mask, |x, y| v(x) <= v(y)),
                Cmp::Gt => compare_lanes(regs, a, b, mask, |x, y| v(x) > v(y)),
                Cmp::Ge => compare_lanes(regs, a, b, mask, |x, y| v(x) >= v(y)),
                _ => return None,
            })
        }};
    }
    if t.bits == 0 || t.bits > 64 {
        return None;
    }
    if t.signed {
        by!(|x: u64| ((x << shift) as i64) >> shift)
    } else {
        by!(|x: u64| x & keep)
    }
}

/// An `f32` comparison (without `.ftz`) of `mask`'s lanes as a mask of the lanes where it holds:
/// the ordered forms are false and the unordered (`…u`) forms true where an operand is NaN.
fn float_compare(regs: &[[u64; 32]], cmp: Cmp, a: usize, b: usize, mask: u32) -> u32 {
    let nan = |x: f32, y: f32| x.is_nan() || y.is_nan();
    macro_rules! by {
        ($test:expr) => {{
            let test = $test;
            compare_lanes(regs, a, b, mask, |x, y| test(f(x), f(y)))
        }};
    }
    match cmp {
        Cmp::Eq => by!(|x: f32, y: f32| x == y),
        Cmp::Ne => by!(|x: f32, y: f32| !nan(x, y) && x != y),
        Cmp::Lt => by!(|x: f32, y: f32| x < y),
        Cmp::Le => by!(|x: f32, y: f32| x <= y),
        Cmp::Gt => by!(|x: f32, y: f32| x > y),
        Cmp::Ge => by!(|x: f32, y: f32| x >= y),
        Cmp::Equ => by!(|x: f32, y: f32| nan(x, y) || x == y),
        Cmp::Neu => by!(|x: f32, y: f32| x != y),
        Cmp::Ltu => by!(|x: f32, y: f32| nan(x, y) || x < y),
        Cmp::Leu => by!(|x: f32, y: f32| nan(x, y) || x <= y),
        Cmp::Gtu => by!(|x: f32, y: f32| nan(x, y) || x > y),
        Cmp::Geu => by!(|x: f32, y: f32| nan(x, y) || x >= y),
        Cmp::Num => by!(|x: f32, y: f32| !nan(x, y)),
        Cmp::Nan => by!(nan),
    }
}

/// `min`/`max` of integers of type `t` on `mask`'s lanes.
fn int_min_max(
    bits: &[u32],
    warp: &mut PtxWarp,
    t: Int,
    max: bool,
    [a, b, d]: [usize; 3],
    mask: u32,
) {
    let (shift, keep) = (64 - t.bits, ones(t.bits));
    macro_rules! by {
        ($value:expr, $pick:expr) => {{
            let (value, pick) = ($value, $pick);
            apply(bits, warp, d, mask, |r, l| {
                let (x, y) = (r[a][l], r[b][l]);
                (if pick(value(x), value(y)) { x } else { y }) & keep
            })
        }};
    }
    let signed = |x: u64| ((x << shift) as i64) >> shift;
    let unsigned = |x: u64| x & keep;
    match (t.signed, max) {
        (true, false) => by!(signed, |x: i64, y: i64| x <= y),
        (true, true) => by!(signed, |x: i64, y: i64| x >= y),
        (false, false) => by!(unsigned, |x: u64, y: u64| x <= y),
        (false, true) => by!(unsigned, |x: u64, y: u64| x >= y),
    }
}

impl PtxBlock<'_> {
    /// Executes `op` on `mask`'s lanes when it is one of this file's forms; `false` otherwise
    /// (nothing done).
    pub(super) fn exec_hot(&mut self, warp: &mut PtxWarp, op: &Op, mask: u32) -> bool {
        if general_only() {
            return false;
        }
        let program = self.launch.program;
        let bits = &program.reg_bits;
        match *op {
            Op::Mov { d, a, bits: width } => {
                let (a, keep) = (a as usize, ones(width));
                apply(bits, warp, d as usize, mask, |r, l| r[a][l] & keep);
            }
            Op::IntBin { op, ty, d, a, b } => {
                let (a, b, d, keep) = (a as usize, b as usize, d as usize, ones(ty.bits));
                match op {
                    IntBin::Add => apply(bits, warp, d, mask, |r, l| {
                        r[a][l].wrapping_add(r[b][l]) & keep
                    }),
                    IntBin::Sub => apply(bits, warp, d, mask, |r, l| {
                        r[a][l].wrapping_sub(r[b][l]) & keep
                    }),
                    IntBin::MulLo => apply(bits, warp, d, mask, |r, l| {
                        r[a][l].wrapping_mul(r[b][l]) & keep
                    }),
                    IntBin::And => apply(bits, warp, d, mask, |r, l| r[a][l] & r[b][l] & keep),
                    IntBin::Or => apply(bits, warp, d, mask, |r, l| (r[a][l] | r[b][l]) & keep),
                    IntBin::Xor => apply(bits, warp, d, mask, |r, l| (r[a][l] ^ r[b][l]) & keep),
                    IntBin::Shl => {
                        let n = ty.bits;
                        apply(bits, warp, d, mask, |r, l| {
                            let s = r[b][l] as u32;
                            if s >= n {
                                0
                            } else {
                                ((r[a][l] & keep) << s) & keep
                            }
                        })
                    }
                    IntBin::Shr if !ty.signed => {
                        let n = ty.bits;
                        apply(bits, warp, d, mask, |r, l| {
                            let s = r[b][l] as u32;
                            if s >= n {
                                0
                            } else {
                                (r[a][l] & keep) >> s
                            }
                        })
                    }
                    IntBin::Shr => {
                        let (n, shift) = (ty.bits.min(63), 64 - ty.bits);
                        apply(bits, warp, d, mask, |r, l| {
                            let s = (r[b][l] as u32).min(n);
                            ((((r[a][l] << shift) as i64) >> shift >> s) as u64) & keep
                        })
                    }
                    IntBin::Min | IntBin::Max => {
                        let max = op == IntBin::Max;
                        int_min_max(bits, warp, ty, max, [a, b, d], mask)
                    }
                    _ => return false,
                }
            }
            Op::IntUn { op, ty, d, a } if matches!(op, IntUn::Neg | IntUn::Not) => {
                let (a, keep) = (a as usize, ones(ty.bits));
                if op == IntUn::Neg {
                    apply(bits, warp, d as usize, mask, |r, l| {
                        r[a][l].wrapping_neg() & keep
                    });
                } else {
                    apply(bits, warp, d as usize, mask, |r, l| !r[a][l] & keep);
                }
            }
            Op::Cvt {
                to: Ty::Int(t),
                from: Ty::Int(f),
                mods,
                d,
                a,
                ..
            } if !mods.sat => {
                // The source's value at its type, truncated to the destination's, extended by the
                // destination's signedness where the register is wider.
                let (a, fs, ts) = (a as usize, 64 - f.bits, 64 - t.bits);
                let extend = t.signed && t.bits < bits[d as usize];
                let at = |x: u64, shift: u32, signed: bool| {
                    if signed {
                        (((x << shift) as i64) >> shift) as u64
                    } else {
                        (x << shift) >> shift
                    }
                };
                apply(bits, warp, d as usize, mask, |r, l| {
                    at(at(r[a][l], fs, f.signed), ts, extend)
                });
            }
            Op::Cvta {
                space,
                to_generic,
                d,
                a,
                bits: width,
            } => {
                let window = match space {
                    MemSpace::Shared => SHARED_WINDOW,
                    MemSpace::Local => LOCAL_WINDOW,
                    _ => 0,
                };
                let delta = if to_generic {
                    window
                } else {
                    window.wrapping_neg()
                };
                let (a, keep) = (a as usize, ones(width));
                apply(bits, warp, d as usize, mask, |r, l| {
                    r[a][l].wrapping_add(delta) & keep
                });
            }
            Op::Mad {
                half: Half::Lo,
                ty,
                d,
                a,
                b,
                c,
            } => {
                let (a, b, c, keep) = (a as usize, b as usize, c as usize, ones(ty.bits));
                apply(bits, warp, d as usize, mask, |r, l| {
                    r[a][l].wrapping_mul(r[b][l]).wrapping_add(r[c][l]) & keep
                });
            }
            Op::Mad {
                half: Half::Wide,
                ty,
                d,
                a,
                b,
                c,
            } if ty.bits == 32 => {
                let (a, b, c) = (a as usize, b as usize, c as usize);
                if ty.signed {
                    apply(bits, warp, d as usize, mask, |r, l| {
                        wide_signed(r[a][l], r[b][l]).wrapping_add(r[c][l])
                    });
                } else {
                    apply(bits, warp, d as usize, mask, |r, l| {
                        ((r[a][l] & 0xffff_ffff) * (r[b][l] & 0xffff_ffff)).wrapping_add(r[c][l])
                    });
                }
            }
            Op::MulWide { ty, d, a, b } if ty.bits == 32 => {
                let (a, b) = (a as usize, b as usize);
                if ty.signed {
                    apply(bits, warp, d as usize, mask, |r, l| {
                        wide_signed(r[a][l], r[b][l])
                    });
                } else {
                    apply(bits, warp, d as usize, mask, |r, l| {
                        (r[a][l] & 0xffff_ffff) * (r[b][l] & 0xffff_ffff)
                    });
                }
            }
            Op::Selp {
                d,
                a,
                b,
                c,
                bits: width,
            } => {
                let (a, b, c, keep) = (a as usize, b as usize, c as usize, ones(width));
                apply(bits, warp, d as usize, mask, |r, l| {
                    if r[c][l] & 1 == 1 {
                        r[a][l] & keep
                    } else {
                        r[b][l] & keep
                    }
                });
            }
            Op::Setp {
                cmp,
                ty,
                p,
                q,
                a,
                b,
                combine,
            } => {
                let (a, b) = (a as usize, b as usize);
                let holds = match ty {
                    CmpTy::Int(t) => match int_compare(&warp.regs, cmp, t, a, b, mask) {
                        Some(holds) => holds,
                        None => return false,
                    },
                    CmpTy::F32 { ftz: false } => {
                        let regs = &warp.regs;
                        let found = any_special(&regs[a], mask) || any_special(&regs[b], mask);
                        self.run.counters.f32_special += u64::from(found);
                        float_compare(regs, cmp, a, b, mask)
                    }
                    _ => return false,
                };
                let with = |v: u32| match combine {
                    None => v,
                    Some((op, c, negated)) => {
                        let col = &warp.regs[c as usize];
                        let mut cm = 0u32;
                        for (l, v) in col.iter().enumerate() {
                            cm |= u32::from((v & 1 == 1) != negated) << l;
                        }
                        match op {
                            BoolOp::And => v & cm,
                            BoolOp::Or => v | cm,
                            BoolOp::Xor => v ^ cm,
                        }
                    }
                };
                let (pm, qm) = (with(holds), with(!holds));
                for (reg, m) in [(p, pm), (q, qm)] {
                    if let Some(reg) = reg {
                        apply(bits, warp, reg as usize, mask, |_, l| u64::from(m >> l & 1));
                    }
                }
            }
            Op::FBin {
                op,
                ty: FTy::F32,
                mods,
                d,
                a,
                b,
            } if plain(mods) => {
                let (a, b, d) = (a as usize, b as usize, d as usize);
                match op {
                    FBin::Add => apply(bits, warp, d, mask, |r, l| {
                        canonical(f(r[a][l]) + f(r[b][l]))
                    }),
                    FBin::Sub => apply(bits, warp, d, mask, |r, l| {
                        canonical(f(r[a][l]) - f(r[b][l]))
                    }),
                    FBin::Mul => apply(bits, warp, d, mask, |r, l| {
                        canonical(f(r[a][l]) * f(r[b][l]))
                    }),
                    FBin::Min | FBin::Max => apply(bits, warp, d, mask, |r, l| {
                        exec_float::fbin(op, mods, r[a][l], r[b][l])
                    }),
                    _ => return false,
                }
                self.count_f32(warp, mask, &[a as u32, b as u32], d as u32);
            }
            Op::Fma {
                ty: FTy::F32,
                mods,
                d,
                a,
                b,
                c,
            } if plain(mods) => {
                let (ua, ub, uc) = (a as usize, b as usize, c as usize);
                if mask == u32::MAX {
                    fma_warp(
                        &mut warp.regs,
                        [ua, ub, uc],
                        d as usize,
                        ones(bits[d as usize]),
                    );
                } else {
                    apply(bits, warp, d as usize, mask, |r, l| {
                        canonical(f(r[ua][l]).mul_add(f(r[ub][l]), f(r[uc][l])))
                    });
                }
                self.count_f32(warp, mask, &[a, b, c], d);
            }
            Op::FloatX(ref x) => return super::exec_hot_half::widen(bits, warp, x, mask),
            _ => return false,
        }
        true
    }
}

/// The 64-bit product of two signed 32-bit values.
#[inline(always)]
fn wide_signed(a: u64, b: u64) -> u64 {
    (i64::from(a as u32 as i32) * i64::from(b as u32 as i32)) as u64
}
