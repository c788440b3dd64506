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
pub(super) fn any_special(col: &[u64; 32], mask: u32) -> bool {
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
        self.put_with(warp, d, mask, signed_bits, |_, l| value(l));
    }

    /// [`Self::put`] with `value(registers, lane)` reading the register file in place: each lane
    /// reads its operands before its result is written (no copy of the operands' columns).
    #[inline(always)]
    pub(super) fn put_with(
        &self,
        warp: &mut PtxWarp,
        d: R,
        mask: u32,
        signed_bits: Option<u32>,
        value: impl Fn(&[[u64; 32]], usize) -> u64,
    ) {
        let width = self.launch.program.reg_bits[d as usize];
        let keep = ones(width);
        let extend = signed_bits.filter(|&bits| bits < width);
        let (regs, d) = (&mut warp.regs, d as usize);
        for l in lanes(mask) {
            let v = value(regs, l);
            let v = match extend {
                Some(bits) => sext(v, bits),
                None => v,
            };
            regs[d][l] = v & keep;
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
                let a = a as usize;
                self.put_with(warp, d, mask, None, |r, l| r[a][l] & ones(bits));
            }
            Op::Pack {
                d,
                ref parts,
                part_bits,
            } => {
                self.put_with(warp, d, mask, None, |r, l| {
                    parts.iter().enumerate().fold(0, |v, (i, &p)| {
                        v | (r[p as usize][l] & ones(part_bits)) << (i as u32 * part_bits)
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
                let (a, b) = (a as usize, b as usize);
                self.put_with(warp, d, mask, None, |r, l| {
                    exec_int::int_bin(op, ty, r[a][l], r[b][l])
                });
            }
            Op::IntUn { op, ty, d, a } => {
                let a = a as usize;
                self.put_with(warp, d, mask, None, |r, l| {
                    exec_int::int_un(op, ty, r[a][l])
                });
            }
            Op::Mad {
                half,
                ty,
                d,
                a,
                b,
                c,
            } => {
                let (a, b, c) = (a as usize, b as usize, c as usize);
                self.put_with(warp, d, mask, None, |r, l| {
                    exec_int::mad(half, ty, r[a][l], r[b][l], r[c][l])
                });
            }
            Op::MulWide { ty, d, a, b } => {
                let (a, b) = (a as usize, b as usize);
                let wide = super::inst::Half::Wide;
                self.put_with(warp, d, mask, None, |r, l| {
                    exec_int::mad(wide, ty, r[a][l], r[b][l], 0)
                });
            }
            Op::Bfe { ty, d, a, b, c } => {
                let (a, b, c) = (a as usize, b as usize, c as usize);
                self.put_with(warp, d, mask, None, |r, l| {
                    exec_int::bfe(ty, r[a][l], r[b][l], r[c][l])
                });
            }
            Op::Bfi {
                bits,
                d,
                a,
                b,
                c,
                e,
            } => {
                let (a, b, c, e) = (a as usize, b as usize, c as usize, e as usize);
                self.put_with(warp, d, mask, None, |r, l| {
                    exec_int::bfi(bits, r[a][l], r[b][l], r[c][l], r[e][l])
                });
            }
            Op::IntX(ref x) => self.exec_intx(warp, x, mask),
            Op::FloatX(ref x) => self.exec_float_x(warp, x, mask),
            Op::Prmt { d, a, b, c } => {
                let (a, b, c) = (a as usize, b as usize, c as usize);
                self.put_with(warp, d, mask, None, |r, l| {
                    exec_int::prmt(r[a][l], r[b][l], r[c][l])
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
                let (ca, cb) = (&warp.regs[a as usize], &warp.regs[b as usize]);
                let results: [bool; 32] = std::array::from_fn(|l| match ty {
                    CmpTy::Int(t) => exec_int::compare(cmp, t, ca[l], cb[l]),
                    CmpTy::F32 { ftz } => exec_float::compare(cmp, ftz, ca[l], cb[l]),
                    CmpTy::F64 => exec_f64::compare(cmp, ca[l], cb[l]),
                });
                if matches!(ty, CmpTy::F32 { .. }) {
                    let found = any_special(ca, mask) || any_special(cb, mask);
                    self.run.counters.f32_special += u64::from(found);
                }
                // The combining predicate's value on each lane, as a mask.
                let c = combine.map(|(op, c, negated)| {
                    let col = &warp.regs[c as usize];
                    let held = (0..32).fold(0u32, |m, l| {
                        m | u32::from((col[l] & 1 == 1) != negated) << l
                    });
                    (op, held)
                });
                let combined = |l: usize, v: bool| match c {
                    None => v,
                    Some((op, held)) => {
                        let c = held >> l & 1 == 1;
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
                let (a, b, c) = (a as usize, b as usize, c as usize);
                self.put_with(warp, d, mask, None, |r, l| {
                    if r[c][l] & 1 == 1 {
                        r[a][l] & ones(bits)
                    } else {
                        r[b][l] & ones(bits)
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
                let a_reg = a as usize;
                let signed = match to {
                    Ty::Int(t) if t.signed => Some(t.bits),
                    _ => None,
                };
                match (to, from) {
                    (Ty::Int(t), Ty::Int(f)) => {
                        self.put_with(warp, d, mask, signed, |r, l| {
                            exec_int::cvt_int(t, f, mods.sat, r[a_reg][l])
                        });
                    }
                    (Ty::F64, _) | (_, Ty::F64) => {
                        self.put_with(warp, d, mask, signed, |r, l| {
                            exec_cvt::cvt(to, from, rnd, mods, r[a_reg][l])
                        });
                    }
                    _ => {
                        self.put_with(warp, d, mask, signed, |r, l| {
                            exec_cvt::cvt(to, from, rnd, mods, r[a_reg][l])
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
                let (ua, ub) = (a as usize, b as usize);
                if ty == FTy::F64 {
                    self.put_with(warp, d, mask, None, |r, l| {
                        exec_f64::fbin(op, mods.rnd, r[ua][l], r[ub][l])
                    });
                } else {
                    self.put_with(warp, d, mask, None, |r, l| {
                        exec_float::fbin(op, mods, r[ua][l], r[ub][l])
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
                let (ua, ub, uc) = (a as usize, b as usize, c as usize);
                if ty == FTy::F64 {
                    self.put_with(warp, d, mask, None, |r, l| {
                        exec_f64::fma(mods.rnd, r[ua][l], r[ub][l], r[uc][l])
                    });
                } else {
                    self.put_with(warp, d, mask, None, |r, l| {
                        exec_float::fma(mods, r[ua][l], r[ub][l], r[uc][l])
                    });
                    self.count_f32(warp, mask, &[a, b, c], d);
                }
            }
            Op::FUn { op, ty, mods, d, a } => {
                let ua = a as usize;
                if ty == FTy::F64 {
                    self.put_with(warp, d, mask, None, |r, l| {
                        exec_f64::fun(op, mods.rnd, r[ua][l])
                    });
                } else {
                    self.put_with(warp, d, mask, None, |r, l| {
                        exec_float::fun(op, mods, r[ua][l])
                    });
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
                let a = a as usize;
                let window = match space {
                    MemSpace::Shared => SHARED_WINDOW,
                    MemSpace::Local => LOCAL_WINDOW,
                    _ => 0,
                };
                self.put_with(warp, d, mask, None, |r, l| {
                    let v = if to_generic {
                        r[a][l].wrapping_add(window)
                    } else {
                        r[a][l].wrapping_sub(window)
                    };
                    v & ones(bits)
                });
            }
            // Memory, control and collectives are executed elsewhere; `Nop` has no effect.
            _ => {}
        }
    }
}
