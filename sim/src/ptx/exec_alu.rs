//! The computing instructions on a warp: each lane the guard lets through computes its result
//! (`exec_int.rs`, `exec_float.rs`) into its destination register; other lanes keep theirs. A
//! result is written at the destination register's width: truncated, or extended (by the signedness
//! of the type) where the register is wider than the result, as PTX's `cvt` and `ld` do.

use super::address::{LOCAL_WINDOW, SHARED_WINDOW};
use super::block::{PtxBlock, PtxWarp};
use super::exec_int::{self, ones, sext};
use super::inst::{BoolOp, CmpTy, FTy, MemSpace, Op, Ty, R};
use super::lanes;
use super::{exec_cvt, exec_f64, exec_float};

/// Whether an `f32` value is one WGSL need not honour (NaN, infinity, negative zero). Branchless,
/// so that a warp's 32 lanes are tested in a vectorized loop.
#[inline(always)]
fn special(bits: u64) -> bool {
    let b = bits as u32;
    (b & 0x7f80_0000 == 0x7f80_0000) | (b == 0x8000_0000)
}

/// Whether `mask`'s lanes hold a [`special`] value in `col` (all 32 lanes as one vectorized OR).
#[inline]
fn any_special(col: &[u64; 32], mask: u32) -> bool {
    if mask == u32::MAX {
        col.iter().fold(false, |any, &v| any | special(v))
    } else {
        lanes(mask).any(|l| special(col[l]))
    }
}

impl PtxBlock<'_> {
    /// Writes `value(lane)` to register `d` on `mask`'s lanes, at the register's width (results of
    /// a signed type narrower than the register sign-extend when `signed_bits` says so).
    pub(super) fn put(
        &self,
        warp: &mut PtxWarp,
        d: R,
        mask: u32,
        signed_bits: Option<u32>,
        value: impl Fn(usize) -> u64,
    ) {
        let width = self.launch.program.reg_bits[d as usize];
        let col = &mut warp.regs[d as usize];
        for l in lanes(mask) {
            let v = value(l);
            let v = match signed_bits {
                Some(bits) if bits < width => sext(v, bits),
                _ => v,
            };
            col[l] = v & ones(width);
        }
    }

    /// Counts an `f32` instruction with a special value among `values` on `mask`'s lanes.
    pub(super) fn count_f32(&mut self, warp: &PtxWarp, mask: u32, regs: &[R], d: R) {
        let mut found = any_special(&warp.regs[d as usize], mask);
        for &r in regs {
            found |= any_special(&warp.regs[r as usize], mask);
        }
        self.run.counters.f32_special += u64::from(found);
    }

    /// Executes a computing instruction on `mask`'s lanes.
    pub(crate) fn exec_alu(&mut self, warp: &mut PtxWarp, op: &Op, mask: u32) {
        if self.exec_hot(warp, op, mask) {
            return;
        }
        let r = |warp: &PtxWarp, reg: R| warp.regs[reg as usize];
        match *op {
            Op::Mov { d, a, bits } => {
                let a = r(warp, a);
                self.put(warp, d, mask, None, |l| a[l] & ones(bits));
            }
            Op::Pack {
                d,
                ref parts,
                part_bits,
            } => {
                let cols: Vec<[u64; 32]> = parts.iter().map(|&p| r(warp, p)).collect();
                self.put(warp, d, mask, None, |l| {
                    cols.iter().enumerate().fold(0, |v, (i, c)| {
                        v | (c[l] & ones(part_bits)) << (i as u32 * part_bits)
                    })
                });
            }
            Op::Unpack {
                ref parts,
                a,
                part_bits,
            } => {
                let a = r(warp, a);
                for (i, part) in parts.iter().enumerate() {
                    if let Some(p) = *part {
                        let shift = i as u32 * part_bits;
                        self.put(warp, p, mask, None, |l| a[l] >> shift & ones(part_bits));
                    }
                }
            }
            Op::IntBin { op, ty, d, a, b } => {
                let (a, b) = (r(warp, a), r(warp, b));
                self.put(warp, d, mask, None, |l| {
                    exec_int::int_bin(op, ty, a[l], b[l])
                });
            }
            Op::IntUn { op, ty, d, a } => {
                let a = r(warp, a);
                self.put(warp, d, mask, None, |l| exec_int::int_un(op, ty, a[l]));
            }
            Op::Mad {
                half,
                ty,
                d,
                a,
                b,
                c,
            } => {
                let (a, b, c) = (r(warp, a), r(warp, b), r(warp, c));
                self.put(warp, d, mask, None, |l| {
                    exec_int::mad(half, ty, a[l], b[l], c[l])
                });
            }
            Op::MulWide { ty, d, a, b } => {
                let (a, b) = (r(warp, a), r(warp, b));
                let wide = super::inst::Half::Wide;
                self.put(warp, d, mask, None, |l| {
                    exec_int::mad(wide, ty, a[l], b[l], 0)
                });
            }
            Op::Bfe { ty, d, a, b, c } => {
                let (a, b, c) = (r(warp, a), r(warp, b), r(warp, c));
                self.put(warp, d, mask, None, |l| exec_int::bfe(ty, a[l], b[l], c[l]));
            }
            Op::Bfi {
                bits,
                d,
                a,
                b,
                c,
                e,
            } => {
                let (a, b, c, e) = (r(warp, a), r(warp, b), r(warp, c), r(warp, e));
                self.put(warp, d, mask, None, |l| {
                    exec_int::bfi(bits, a[l], b[l], c[l], e[l])
                });
            }
            Op::IntX(ref x) => self.exec_intx(warp, x, mask),
            Op::FloatX(ref x) => self.exec_float_x(warp, x, mask),
            Op::Prmt { d, a, b, c } => {
                let (a, b, c) = (r(warp, a), r(warp, b), r(warp, c));
                self.put(warp, d, mask, None, |l| exec_int::prmt(a[l], b[l], c[l]));
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
                let (ca, cb) = (r(warp, a), r(warp, b));
                let results: [bool; 32] = std::array::from_fn(|l| match ty {
                    CmpTy::Int(t) => exec_int::compare(cmp, t, ca[l], cb[l]),
                    CmpTy::F32 { ftz } => exec_float::compare(cmp, ftz, ca[l], cb[l]),
                    CmpTy::F64 => exec_f64::compare(cmp, ca[l], cb[l]),
                });
                if matches!(ty, CmpTy::F32 { .. }) {
                    let found = lanes(mask).any(|l| special(ca[l]) || special(cb[l]));
                    self.run.counters.f32_special += u64::from(found);
                }
                let c = combine.map(|(op, c, negated)| (op, r(warp, c), negated));
                let combined = |l: usize, v: bool| match c {
                    None => v,
                    Some((op, col, negated)) => {
                        let c = (col[l] & 1 == 1) != negated;
                        match op {
                            BoolOp::And => v && c,
                            BoolOp::Or => v || c,
                            BoolOp::Xor => v != c,
                        }
                    }
                };
                if let Some(p) = p {
                    self.put(warp, p, mask, None, |l| u64::from(combined(l, results[l])));
                }
                if let Some(q) = q {
                    self.put(warp, q, mask, None, |l| u64::from(combined(l, !results[l])));
                }
            }
            Op::Selp { d, a, b, c, bits } => {
                let (a, b, c) = (r(warp, a), r(warp, b), r(warp, c));
                self.put(warp, d, mask, None, |l| {
                    if c[l] & 1 == 1 {
                        a[l] & ones(bits)
                    } else {
                        b[l] & ones(bits)
                    }
                });
            }
            Op::Cvt {
                to,
                from,
                rnd,
                mods,
                d,
                a,
            } => {
                let col = r(warp, a);
                let signed = match to {
                    Ty::Int(t) if t.signed => Some(t.bits),
                    _ => None,
                };
                match (to, from) {
                    (Ty::Int(t), Ty::Int(f)) => {
                        self.put(warp, d, mask, signed, |l| {
                            exec_int::cvt_int(t, f, mods.sat, col[l])
                        });
                    }
                    (Ty::F64, _) | (_, Ty::F64) => {
                        self.put(warp, d, mask, signed, |l| {
                            exec_cvt::cvt(to, from, rnd, mods, col[l])
                        });
                    }
                    _ => {
                        self.put(warp, d, mask, signed, |l| {
                            exec_cvt::cvt(to, from, rnd, mods, col[l])
                        });
                        self.count_f32(warp, mask, &[a], d);
                    }
                }
            }
            Op::FBin {
                op,
                ty,
                mods,
                d,
                a,
                b,
            } => {
                let (ca, cb) = (r(warp, a), r(warp, b));
                if ty == FTy::F64 {
                    self.put(warp, d, mask, None, |l| {
                        exec_f64::fbin(op, mods.rnd, ca[l], cb[l])
                    });
                } else {
                    self.put(warp, d, mask, None, |l| {
                        exec_float::fbin(op, mods, ca[l], cb[l])
                    });
                    self.count_f32(warp, mask, &[a, b], d);
                }
            }
            Op::Fma {
                ty,
                mods,
                d,
                a,
                b,
                c,
            } => {
                let (ca, cb, cc) = (r(warp, a), r(warp, b), r(warp, c));
                if ty == FTy::F64 {
                    self.put(warp, d, mask, None, |l| {
                        exec_f64::fma(mods.rnd, ca[l], cb[l], cc[l])
                    });
                } else {
                    self.put(warp, d, mask, None, |l| {
                        exec_float::fma(mods, ca[l], cb[l], cc[l])
                    });
                    self.count_f32(warp, mask, &[a, b, c], d);
                }
            }
            Op::FUn { op, ty, mods, d, a } => {
                let ca = r(warp, a);
                if ty == FTy::F64 {
                    self.put(warp, d, mask, None, |l| exec_f64::fun(op, mods.rnd, ca[l]));
                } else {
                    self.put(warp, d, mask, None, |l| exec_float::fun(op, mods, ca[l]));
                    self.count_f32(warp, mask, &[a], d);
                }
            }
            Op::Cvta {
                space,
                to_generic,
                d,
                a,
                bits,
            } => {
                let a = r(warp, a);
                let window = match space {
                    MemSpace::Shared => SHARED_WINDOW,
                    MemSpace::Local => LOCAL_WINDOW,
                    _ => 0,
                };
                self.put(warp, d, mask, None, |l| {
                    let v = if to_generic {
                        a[l].wrapping_add(window)
                    } else {
                        a[l].wrapping_sub(window)
                    };
                    v & ones(bits)
                });
            }
            // Memory, control and collectives are executed elsewhere; `Nop` has no effect.
            _ => {}
        }
    }
}
