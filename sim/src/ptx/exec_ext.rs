//! The extended-precision carry chains of the PTX ISA ("Extended-Precision Integer Arithmetic
//! Instructions": `add.cc`, `addc`, `sub.cc`, `subc`, `mad.cc`, `madc`) and the execution of every
//! instruction of `inst_int.rs` on a warp.
//!
//! The condition code `CC.CF` is per-thread state: a one-bit register of the warp's register file
//! (`Registers::carry`), 0 when the warp starts, read and written lane by lane like any register, so
//! a lane the guard or a divergent branch leaves out keeps its own carry and a chain split across
//! divergent paths carries each lane's bit. The carry out of an add is the unsigned carry out of the
//! top bit (signed types add the same bits); the borrow of `sub.cc`/`subc` is 1 when the unsigned
//! `a` is less than `b` plus the borrow in, as the ISA's `d = a − (b + CC.CF)` says.

use super::block::{PtxBlock, PtxWarp};
use super::exec_bits;
use super::exec_int::high_product;
use super::inst_int::{Carry, CarryKind, IntX, XOp};
use super::lanes;

/// `d` and the carry (borrow) out of a carry chain instruction on one lane.
pub(crate) fn carry(op: Carry, a: u64, b: u64, c: u64, cf: bool) -> (u64, bool) {
    let ty = op.ty;
    let n = ty.bits;
    let cin = u128::from(op.carry_in && cf);
    let (ua, ub, uc) = (
        u128::from(ty.trunc(a)),
        u128::from(ty.trunc(b)),
        u128::from(ty.trunc(c)),
    );
    let sum = match op.kind {
        CarryKind::Sub => {
            let take = ub + cin;
            let d = ua.wrapping_sub(take);
            return (ty.trunc(d as u64), ua < take);
        }
        CarryKind::Add => ua + ub + cin,
        CarryKind::MadLo => u128::from(ty.trunc(a.wrapping_mul(b))) + uc + cin,
        CarryKind::MadHi => u128::from(high_product(ty, a, b)) + uc + cin,
    };
    (ty.trunc(sum as u64), sum >> n != 0)
}

impl PtxBlock<'_> {
    /// Executes an instruction of `inst_int.rs` on `mask`'s lanes.
    pub(crate) fn exec_intx(&mut self, warp: &mut PtxWarp, x: &IntX, mask: u32) {
        let (a, b, c) = (
            warp.regs[x.a as usize],
            warp.regs[x.b as usize],
            warp.regs[x.c as usize],
        );
        match x.op {
            XOp::Carry(op) => {
                let cf = warp.regs[op.cc as usize];
                let results: [(u64, bool); 32] =
                    std::array::from_fn(|l| carry(op, a[l], b[l], c[l], cf[l] & 1 == 1));
                self.put(warp, x.d, mask, None, |l| results[l].0);
                if op.carry_out {
                    let col = &mut warp.regs[op.cc as usize];
                    for l in lanes(mask) {
                        col[l] = u64::from(results[l].1);
                    }
                }
            }
            XOp::Lop3 {
                pred: Some(pred), ..
            } => {
                let d: [u64; 32] = std::array::from_fn(|l| exec_bits::eval(x.op, a[l], b[l], c[l]));
                let q = warp.regs[pred.q as usize];
                self.put(warp, x.d, mask, None, |l| d[l]);
                self.put(warp, pred.p, mask, None, |l| {
                    let q = (q[l] & 1 == 1) != pred.negated;
                    u64::from(exec_bits::lop3_pred(pred.op, d[l], q))
                });
            }
            op => self.put(warp, x.d, mask, None, |l| {
                exec_bits::eval(op, a[l], b[l], c[l])
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::inst::Int;

    fn op(kind: CarryKind, bits: u32, carry_in: bool) -> Carry {
        Carry {
            kind,
            ty: Int {
                bits,
                signed: false,
            },
            carry_in,
            carry_out: true,
            cc: 0,
        }
    }

    #[test]
    fn carries_and_borrows() {
        let add = op(CarryKind::Add, 32, true);
        assert_eq!(carry(add, 0xffff_ffff, 0, 0, true), (0, true));
        assert_eq!(carry(add, 0xffff_fffe, 0, 0, true), (0xffff_ffff, false));
        let sub = op(CarryKind::Sub, 32, true);
        assert_eq!(carry(sub, 0, 0, 0, true), (0xffff_ffff, true));
        assert_eq!(carry(sub, 1, 0, 0, true), (0, false));
        let sub64 = op(CarryKind::Sub, 64, false);
        assert_eq!(carry(sub64, 0, u64::MAX, 0, true), (1, true));
        let hi = op(CarryKind::MadHi, 64, true);
        // (2^64 − 1)² = 2^128 − 2^65 + 1: high word 2^64 − 2, plus 1, plus the carry in.
        assert_eq!(carry(hi, u64::MAX, u64::MAX, 1, true), (0, true));
        assert_eq!(carry(hi, u64::MAX, u64::MAX, 0, true), (u64::MAX, false));
    }
}
