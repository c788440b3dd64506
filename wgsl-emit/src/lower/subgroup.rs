//! Warp collectives on native subgroups ([`WarpLowering::Subgroups`]): where the device's subgroups
//! are 32 invocations wide a warp *is* a subgroup; where they are 64 wide a warp is half of one. The
//! runtime chooses this lowering only after measuring that every subgroup has the width and that
//! subgroup lane `i` is workgroup invocation `i mod width` (`warpforge-runtime`'s subgroup probe), so
//! a warp's lane `l` (the local index mod 32) is subgroup lane `half + l`, with `half` 0 for a
//! 32-wide subgroup and `local & 32` for a 64-wide one.
//!
//! - **shuffle**: the source lane as the emulation computes it (its own lane when out of range), then
//!   one `subgroupShuffle` from `half + source`;
//! - **ballot / vote**: one `subgroupBallot`, the warp's 32 bits of it (`.x`, or `.y` for the upper
//!   half of a 64-wide subgroup), ANDed with the mask;
//! - **match_any**: 32 shuffles, one per lane of the warp (two for a 64-bit value);
//! - **warp_sync**: still `workgroupBarrier()` — a subgroup barrier orders only subgroup memory in
//!   SPIR-V, not the workgroup memory `__syncwarp` must order.
//!
//! No workgroup memory and no barrier per collective; the results are the emulation's bit for bit
//! when every lane of the warp passes the same mask (the IR's contract: the simulator reports a
//! collective whose lanes disagree on the mask). With masks that differ between lanes they differ:
//! the emulation masks each lane's own bit, this lowering masks the ballot with the reader's mask.

use naga::{BinaryOperator as Op, Expression, Handle, Scalar, Statement};
use warpforge_ir::{Mask, ScalarType, ShuffleMode, Value};

use super::Lowerer;
use crate::layout::WarpLowering;

type H = Handle<Expression>;

impl Lowerer<'_> {
    /// The subgroup lane of this warp's lane 0: 0, or `local & 32` in a 64-wide subgroup.
    fn half_base(&mut self, width: u32) -> H {
        if width == 32 {
            self.b.u32(0)
        } else {
            let tid = self.thread_index();
            let k = self.b.u32(32);
            self.b.binary(Op::And, tid, k)
        }
    }

    /// `subgroupShuffle(x, index)` of a `u32`.
    fn gather(&mut self, x: H, index: H) -> H {
        let ty = self.b.scalar_type(Scalar::U32);
        let result = self.b.subgroup_result(ty);
        self.b.push(Statement::SubgroupGather {
            mode: naga::GatherMode::Shuffle(index),
            argument: x,
            result,
        });
        result
    }

    /// A shuffle of the `u32` bits of a value: one `subgroupShuffle` from the source lane the
    /// emulation computes, in this warp's half of the subgroup.
    pub(super) fn subgroup_shuffle(
        &mut self,
        bits: H,
        mode: ShuffleMode,
        lane: H,
        lane_operand: Value,
        width: u32,
    ) -> H {
        let from = self.shuffle_source(mode, lane, lane_operand);
        let half = self.half_base(width);
        let index = self.b.binary(Op::Add, half, from);
        self.gather(bits, index)
    }

    /// The ballot of `pred` over `mask`: bit `i` set when lane `i` is in `mask` and its `pred` holds.
    pub(super) fn subgroup_ballot(&mut self, pred: Value, mask: Mask, width: u32) -> H {
        let p = self.b.value(pred);
        let result = self.b.ballot_result();
        self.b.push(Statement::SubgroupBallot {
            result,
            predicate: Some(p),
        });
        let low = self.b.emit(Expression::AccessIndex {
            base: result,
            index: 0,
        });
        let word = if width == 32 {
            low
        } else {
            let high = self.b.emit(Expression::AccessIndex {
                base: result,
                index: 1,
            });
            let upper = self.half_base(width);
            let zero = self.b.u32(0);
            let upper = self.b.binary(Op::NotEqual, upper, zero);
            self.b.select(upper, high, low)
        };
        let m = self.mask_expr(mask);
        self.b.binary(Op::And, word, m)
    }

    pub(super) fn subgroup_match_any(&mut self, value: Value, src: Value, mask: Mask, width: u32) {
        let (lo, hi) = self.match_words(src);
        let m = self.mask_expr(mask);
        let half = self.half_base(width);
        let acc = self.b.temp("wf_match", ScalarType::U32);
        self.for_lanes("wf_k", |l, k| {
            let index = l.b.binary(Op::Add, half, k);
            let theirs = l.gather(lo, index);
            let mut same = l.b.binary(Op::Equal, theirs, lo);
            if let Some(hi) = hi {
                let theirs_hi = l.gather(hi, index);
                let same_hi = l.b.binary(Op::Equal, theirs_hi, hi);
                same = l.b.binary(Op::LogicalAnd, same, same_hi);
            }
            l.match_accumulate(acc, same, k, m);
        });
        let result = self.b.load(acc);
        self.b.set_value(value, result);
    }
}

/// The subgroup width a lowering uses, if any.
pub(crate) fn width(warps: WarpLowering) -> Option<u32> {
    match warps {
        WarpLowering::Emulated => None,
        WarpLowering::Subgroups { width } => Some(width),
    }
}
