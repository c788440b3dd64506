//! Lowering of warp collectives to their `.sync` forms, each with the IR's lane mask.

use warpforge_ir::{Mask, ShuffleMode, VoteMode, WarpOp};

use super::Lowerer;
use crate::ast::Operand;

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
                    ShuffleMode::Index => ("idx", 31),
                    ShuffleMode::Up => ("up", 0),
                    ShuffleMode::Down => ("down", 31),
                    ShuffleMode::Xor => ("bfly", 31),
                };
                let lane = self.masked_u32(lane, 32);
                let src = self.op(src);
                let dst = self.def(value);
                let args = vec![Operand::Reg(dst), src, lane, Operand::Imm(c), mask];
                self.inst(format!("shfl.sync.{name}.b32"), args);
            }
            WarpOp::Ballot { value, pred, .. } => {
                let pred = self.op(pred);
                let dst = self.def(value);
                self.inst("vote.sync.ballot.b32", vec![Operand::Reg(dst), pred, mask]);
            }
            WarpOp::Vote {
                value, mode, pred, ..
            } => {
                let pred = self.op(pred);
                let dst = self.def(value);
                let name = if mode == VoteMode::Any { "any" } else { "all" };
                self.inst(
                    format!("vote.sync.{name}.pred"),
                    vec![Operand::Reg(dst), pred, mask],
                );
            }
            WarpOp::MatchAny { value, src, .. } => {
                let width = if self.ty(src) == warpforge_ir::ScalarType::U64 {
                    "b64"
                } else {
                    "b32"
                };
                let src = self.op(src);
                let dst = self.def(value);
                self.inst(
                    format!("match.any.sync.{width}"),
                    vec![Operand::Reg(dst), src, mask],
                );
            }
            WarpOp::Sync { .. } => self.inst("bar.warp.sync", vec![mask]),
        }
    }
}
