//! Lowering of warp collectives to their `.sync` forms, each with the IR's lane mask.

use warpforge_ir::{Mask, ShuffleMode, VoteMode, WarpOp};

use super::{Lowerer, B32, B64, PRED};
use crate::ast::Operand;
use crate::isa::{Modifier as M, Opcode as O};

impl Lowerer<'_> {
    fn mask(&self, mask: Mask) -> Operand {
        match mask {
            Mask::Const(m) => Operand::Bits(u64::from(m)),
            Mask::Dynamic(v) => self.op(v),
        }
    }

    pub(super) fn warp(&mut self, op: &WarpOp) {
        let mask = self.mask(op.mask());
        match *op {
            WarpOp::Shuffle {
                value,
                mode,
                src,
                lane,
                ..
            } => {
                // c = 0 for `up` (lanes below the delta keep their value), 31 (clamp to the warp) otherwise.
                let (name, c) = match mode {
                    ShuffleMode::Index => (M::Idx, 31),
                    ShuffleMode::Up => (M::Up, 0),
                    ShuffleMode::Down => (M::Down, 31),
                    ShuffleMode::Xor => (M::Bfly, 31),
                };
                let lane = self.masked_u32(lane, 32);
                let src = self.op(src);
                let dst = self.def(value);
                let args = vec![Operand::Reg(dst), src, lane, Operand::Imm(c), mask];
                self.inst((O::Shfl, &[M::Sync, name, B32]), args);
            }
            WarpOp::Ballot { value, pred, .. } => {
                let pred = self.op(pred);
                let dst = self.def(value);
                self.inst(
                    (O::Vote, &[M::Sync, M::Ballot, B32]),
                    vec![Operand::Reg(dst), pred, mask],
                );
            }
            WarpOp::Vote {
                value, mode, pred, ..
            } => {
                let pred = self.op(pred);
                let dst = self.def(value);
                let name = if mode == VoteMode::Any {
                    M::Any
                } else {
                    M::All
                };
                self.inst(
                    (O::Vote, &[M::Sync, name, PRED]),
                    vec![Operand::Reg(dst), pred, mask],
                );
            }
            WarpOp::MatchAny { value, src, .. } => {
                let width = if self.ty(src) == warpforge_ir::ScalarType::U64 {
                    B64
                } else {
                    B32
                };
                let src = self.op(src);
                let dst = self.def(value);
                self.inst(
                    (O::Match, &[M::Any, M::Sync, width]),
                    vec![Operand::Reg(dst), src, mask],
                );
            }
            WarpOp::Sync { .. } => self.inst((O::Bar, &[M::Warp, M::Sync]), vec![mask]),
        }
    }
}
