//! Warp collectives on WebGPU: a 32-lane warp emulated through workgroup memory.
//!
//! Each collective stores every lane's operand in `wf_exchange[thread_index]`, crosses a
//! `workgroupBarrier`, reads what it needs from its own warp's 32 slots, and crosses a second barrier
//! before the slots may be reused. Results therefore do not depend on the adapter's subgroup size
//! (8 on lavapipe, 32 on NVIDIA, 64 on AMD). The price: every collective must be reached in
//! workgroup-uniform control flow (naga checks it), and costs two or three barriers. When the
//! workgroup is a single warp (block size 32), warp-uniform and workgroup-uniform coincide and ballot /
//! vote results come back through `workgroupUniformLoad`, so naga also knows they are uniform and loops
//! may branch on them.

use naga::{BinaryOperator as Op, Expression, Handle, Scalar, Statement};
use warpforge_ir::{Kernel, Mask, ScalarType, ShuffleMode, Stmt, Value, VoteMode, WarpOp};

use super::builder::{scalar_of, Builder};
use super::{subgroup, Lowerer};

type H = Handle<Expression>;

/// The workgroup arrays the emulation needs (declared only if used).
pub(crate) struct Scratch {
    exchange: Option<naga::Handle<naga::GlobalVariable>>,
    exchange_hi: Option<naga::Handle<naga::GlobalVariable>>,
    vote: Option<naga::Handle<naga::GlobalVariable>>,
}

impl Scratch {
    /// No arrays: the collectives lower to subgroup operations.
    pub fn none() -> Scratch {
        Scratch {
            exchange: None,
            exchange_hi: None,
            vote: None,
        }
    }

    pub fn declare(b: &mut Builder, kernel: &Kernel) -> Scratch {
        let (mut any, mut wide_match, mut ballots) = (false, false, false);
        fn walk(block: &[Stmt], k: &Kernel, f: &mut impl FnMut(&WarpOp, &Kernel)) {
            for stmt in block {
                match stmt {
                    Stmt::Warp(op) => f(op, k),
                    Stmt::If {
                        then_block,
                        else_block,
                        ..
                    } => {
                        walk(then_block, k, f);
                        walk(else_block, k, f);
                    }
                    Stmt::Loop { body } => walk(body, k, f),
                    _ => {}
                }
            }
        }
        walk(&kernel.body, kernel, &mut |op, k| match op {
            WarpOp::Sync { .. } => {}
            WarpOp::MatchAny { src, .. } => {
                any = true;
                wide_match |= k.values[*src].ty == ScalarType::U64;
            }
            WarpOp::Ballot { .. } | WarpOp::Vote { .. } => {
                any = true;
                ballots = true;
            }
            WarpOp::Shuffle { .. } => any = true,
        });
        let u32_ty = b.scalar_type(Scalar::U32);
        let mut array = |name: &str, len: u32| {
            let ty = b.array_type(u32_ty, Some(len));
            b.global(name, naga::AddressSpace::WorkGroup, ty, None)
        };
        Scratch {
            exchange: any.then(|| array("wf_exchange", kernel.block_size)),
            exchange_hi: wide_match.then(|| array("wf_exchange_hi", kernel.block_size)),
            vote: ballots.then(|| array("wf_vote", kernel.block_size / 32)),
        }
    }
}

impl Lowerer<'_> {
    pub(super) fn mask_expr(&mut self, mask: Mask) -> H {
        match mask {
            Mask::Const(m) => self.b.u32(m),
            Mask::Dynamic(v) => self.b.value(v),
        }
    }

    pub(super) fn lane_and_base(&mut self) -> (H, H, H) {
        let tid = self.thread_index();
        let m = self.b.u32(31);
        let lane = self.b.binary(Op::And, tid, m);
        let base = self.b.binary(Op::Subtract, tid, lane);
        (tid, lane, base)
    }

    fn slot(&mut self, var: naga::Handle<naga::GlobalVariable>, index: H) -> H {
        let g = self.b.global_expr(var);
        self.b.index(g, index)
    }

    fn exchange(&self) -> naga::Handle<naga::GlobalVariable> {
        self.scratch
            .exchange
            .expect("declared when the kernel has warp collectives")
    }

    /// `for k in 0..32 { body(k) }` with a function-scope counter.
    pub(super) fn for_lanes(&mut self, name: &str, body: impl FnOnce(&mut Self, H)) {
        let counter = self.b.temp(name, ScalarType::U32);
        self.b.open();
        let k = self.b.load(counter);
        let lanes = self.b.u32(32);
        let done = self.b.binary(Op::GreaterEqual, k, lanes);
        self.b.if_then(done, |b| b.push(Statement::Break));
        body(self, k);
        let one = self.b.u32(1);
        let next = self.b.binary(Op::Add, k, one);
        self.b.push(Statement::Store {
            pointer: counter,
            value: next,
        });
        let body = self.b.close();
        self.b.push(Statement::Loop {
            body,
            continuing: naga::Block::new(),
            break_if: None,
        });
    }

    /// The source lane of a shuffle of `mode` (its operand taken mod 32); a lane whose source is out
    /// of range is its own source, i.e. keeps its value.
    pub(super) fn shuffle_source(&mut self, mode: ShuffleMode, lane: H, lane_operand: Value) -> H {
        let d = self.b.value(lane_operand);
        let m = self.b.u32(31);
        let d = self.b.binary(Op::And, d, m);
        match mode {
            ShuffleMode::Index => d,
            ShuffleMode::Xor => self.b.binary(Op::ExclusiveOr, lane, d),
            ShuffleMode::Up => {
                let ok = self.b.binary(Op::GreaterEqual, lane, d);
                let j = self.b.binary(Op::Subtract, lane, d);
                self.b.select(ok, j, lane)
            }
            ShuffleMode::Down => {
                let j = self.b.binary(Op::Add, lane, d);
                let lanes = self.b.u32(32);
                let ok = self.b.binary(Op::Less, j, lanes);
                self.b.select(ok, j, lane)
            }
        }
    }

    /// A `match_any` operand as 32-bit words: the low word, and the high one of a `u64`.
    pub(super) fn match_words(&mut self, src: Value) -> (H, Option<H>) {
        let wide = self.kernel.values[src].ty == ScalarType::U64;
        let x = self.b.value(src);
        let (lo, hi) = if wide {
            let lo = self.low_u32(x, false);
            let k = self.b.u32(32);
            let shifted = self.b.binary(Op::ShiftRight, x, k);
            (lo, Some(self.low_u32(shifted, false)))
        } else {
            (x, None)
        };
        (lo, hi)
    }

    /// Sets bit `k` of the `match_any` accumulator `acc` when lane `k` holds the same value (`same`)
    /// and is in the mask `m`.
    pub(super) fn match_accumulate(&mut self, acc: H, same: H, k: H, m: H) {
        let one = self.b.u32(1);
        let bit = self.b.binary(Op::ShiftLeft, one, k);
        let in_mask = self.b.binary(Op::And, m, bit);
        let zero = self.b.u32(0);
        let member = self.b.binary(Op::NotEqual, in_mask, zero);
        let hit = self.b.binary(Op::LogicalAnd, same, member);
        let so_far = self.b.load(acc);
        let with_bit = self.b.binary(Op::InclusiveOr, so_far, bit);
        let merged = self.b.select(hit, with_bit, so_far);
        self.b.push(Statement::Store {
            pointer: acc,
            value: merged,
        });
    }

    /// Lowers one collective: through workgroup memory, or on subgroups where the lowering says
    /// (`subgroup.rs`); the parts both share are here.
    pub(super) fn warp(&mut self, op: &WarpOp) {
        let width = subgroup::width(self.warps);
        match *op {
            WarpOp::Shuffle {
                value,
                mode,
                src,
                lane,
                ..
            } => self.shuffle(value, mode, src, lane),
            WarpOp::Ballot { value, pred, mask } => {
                let ballot = self.any_ballot(pred, mask, width);
                self.b.set_value(value, ballot);
            }
            WarpOp::Vote {
                value,
                mode,
                pred,
                mask,
            } => {
                let ballot = self.any_ballot(pred, mask, width);
                let result = if mode == VoteMode::Any {
                    let zero = self.b.u32(0);
                    self.b.binary(Op::NotEqual, ballot, zero)
                } else {
                    let m = self.mask_expr(mask);
                    self.b.binary(Op::Equal, ballot, m)
                };
                self.b.set_value(value, result);
            }
            WarpOp::MatchAny { value, src, mask } => match width {
                Some(width) => self.subgroup_match_any(value, src, mask, width),
                None => self.match_any(value, src, mask),
            },
            WarpOp::Sync { .. } => self.b.barrier(),
        }
    }

    /// [`Self::ballot`], or on subgroups `width` wide [`Self::subgroup_ballot`].
    fn any_ballot(&mut self, pred: Value, mask: Mask, width: Option<u32>) -> H {
        match width {
            Some(width) => self.subgroup_ballot(pred, mask, width),
            None => self.ballot(pred, mask),
        }
    }

    fn shuffle(&mut self, value: Value, mode: ShuffleMode, src: Value, lane_operand: Value) {
        let t = self.kernel.values[src].ty;
        let (tid, lane, base) = self.lane_and_base();
        let x = self.b.value(src);
        let bits = if t == ScalarType::U32 {
            x
        } else {
            self.b.cast(x, Scalar::U32, true)
        };
        let width = subgroup::width(self.warps);
        let got = match width {
            Some(width) => self.subgroup_shuffle(bits, mode, lane, lane_operand, width),
            None => {
                let own = self.slot(self.exchange(), tid);
                self.b.push(Statement::Store {
                    pointer: own,
                    value: bits,
                });
                self.b.barrier();
                let from = self.shuffle_source(mode, lane, lane_operand);
                let at = self.b.binary(Op::Add, base, from);
                let ptr = self.slot(self.exchange(), at);
                self.b.load(ptr)
            }
        };
        let result = if t == ScalarType::U32 {
            got
        } else {
            self.b.cast(got, scalar_of(t), true)
        };
        self.b.set_value(value, result);
        if width.is_none() {
            // The slots may be reused by the next collective only after every lane has read.
            self.b.barrier();
        }
    }

    /// The ballot of `pred` over `mask`: bit `i` set when lane `i` is in `mask` and its `pred` holds.
    fn ballot(&mut self, pred: Value, mask: Mask) -> H {
        let (tid, lane, base) = self.lane_and_base();
        let p = self.b.value(pred);
        let m = self.mask_expr(mask);
        let one = self.b.u32(1);
        let my_bit = self.b.binary(Op::ShiftLeft, one, lane);
        let zero = self.b.u32(0);
        let bit = self.b.select(p, my_bit, zero);
        let bit = self.b.binary(Op::And, bit, m);
        let own = self.slot(self.exchange(), tid);
        self.b.push(Statement::Store {
            pointer: own,
            value: bit,
        });
        self.b.barrier();
        let vote = self
            .scratch
            .vote
            .expect("declared when the kernel has ballots or votes");
        let warp = {
            let five = self.b.u32(5);
            self.b.binary(Op::ShiftRight, tid, five)
        };
        let first = self.b.binary(Op::Equal, lane, zero);
        self.b.open();
        let acc = self.b.temp("wf_ballot", ScalarType::U32);
        self.for_lanes("wf_k", |l, k| {
            let at = l.b.binary(Op::Add, base, k);
            let ptr = l.slot(l.exchange(), at);
            let word = l.b.load(ptr);
            let so_far = l.b.load(acc);
            let merged = l.b.binary(Op::InclusiveOr, so_far, word);
            l.b.push(Statement::Store {
                pointer: acc,
                value: merged,
            });
        });
        let total = self.b.load(acc);
        let out = self.slot(vote, warp);
        self.b.push(Statement::Store {
            pointer: out,
            value: total,
        });
        let accept = self.b.close();
        self.b.push(Statement::If {
            condition: first,
            accept,
            reject: naga::Block::new(),
        });
        if self.kernel.block_size == 32 {
            // One warp per workgroup: the result is workgroup-uniform, and naga must know it.
            let g = self.b.global_expr(vote);
            let pointer = self.b.emit(Expression::AccessIndex { base: g, index: 0 });
            let ty = self.b.scalar_type(Scalar::U32);
            let result = self.b.uniform_load_result(ty);
            self.b
                .push(Statement::WorkGroupUniformLoad { pointer, result });
            result
        } else {
            self.b.barrier();
            let ptr = self.slot(vote, warp);
            let result = self.b.load(ptr);
            self.b.barrier();
            result
        }
    }

    fn match_any(&mut self, value: Value, src: Value, mask: Mask) {
        let (tid, _, base) = self.lane_and_base();
        let (lo, hi) = self.match_words(src);
        let own = self.slot(self.exchange(), tid);
        self.b.push(Statement::Store {
            pointer: own,
            value: lo,
        });
        if let (Some(hi), Some(var)) = (hi, self.scratch.exchange_hi) {
            let own_hi = self.slot(var, tid);
            self.b.push(Statement::Store {
                pointer: own_hi,
                value: hi,
            });
        }
        self.b.barrier();
        let m = self.mask_expr(mask);
        let acc = self.b.temp("wf_match", ScalarType::U32);
        self.for_lanes("wf_k", |l, k| {
            let at = l.b.binary(Op::Add, base, k);
            let ptr = l.slot(l.exchange(), at);
            let theirs = l.b.load(ptr);
            let mut same = l.b.binary(Op::Equal, theirs, lo);
            if let (Some(hi), Some(var)) = (hi, l.scratch.exchange_hi) {
                let ptr = l.slot(var, at);
                let theirs_hi = l.b.load(ptr);
                let same_hi = l.b.binary(Op::Equal, theirs_hi, hi);
                same = l.b.binary(Op::LogicalAnd, same, same_hi);
            }
            l.match_accumulate(acc, same, k, m);
        });
        let result = self.b.load(acc);
        self.b.set_value(value, result);
        self.b.barrier();
    }
}
