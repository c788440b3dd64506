//! The generator's choices for [`super::random_defined_kernel`]: indices masked into their arrays (the
//! thread's own slot for most writes), loops that count their iterations, and a digest: every value a
//! statement defines is folded into the local `acc` (`acc = acc * 0x0100_0193 ^ bits`), which each
//! thread stores to its own slot of `out` when it returns or ends, so a wrong value anywhere shows in
//! the output.

use super::{Gen, LOOP_COUNTERS};
use crate::expr::{BinaryOp, CastKind, CmpOp, Expr, Special};
use crate::kernel::Value;
use crate::stmt::{Block, MemRef, Stmt, WarpOp};
use crate::types::{Literal, ScalarType};

impl Gen<'_> {
    /// An index into `array` for an access of `width` elements (1, 2 or 4). Defined kernels mask it
    /// into the array (aligned for wide accesses) and use the thread's own slot `own_slot` times in 4;
    /// `None` when the array is too short for the access.
    pub(super) fn index(
        &mut self,
        out: &mut Block,
        array: MemRef,
        width: u32,
        own_slot: u32,
    ) -> Option<Value> {
        let ty = if self.below(4) == 0 {
            ScalarType::U64
        } else {
            ScalarType::U32
        };
        let Some(elements) = self.defined else {
            return Some(self.operand(ty, out));
        };
        let len = match array {
            MemRef::Global(_) => elements,
            MemRef::Shared(s) => self.kernel.shared[s].len,
        };
        let span = 1u32 << (31 - len.leading_zeros());
        if span < width {
            return None;
        }
        // Atomics (always on the own slot) need a slot per thread: contended atomics are not races,
        // but the values they return depend on the order the threads got there.
        let threads = match array {
            MemRef::Global(_) => 0,
            MemRef::Shared(_) => self.kernel.block_size,
        };
        if own_slot == 4 && span < threads * width {
            return None;
        }
        let u32_ = ScalarType::U32;
        let raw = if (self.below(4) as u32) < own_slot {
            // The thread's own slot: `block_index * block_size + thread_index` in a global buffer,
            // `thread_index` in a shared array; times the access width.
            let mut slot = self.value(u32_, Expr::Special(Special::ThreadIndex), out);
            if let MemRef::Global(_) = array {
                let block = self.value(u32_, Expr::Special(Special::BlockIndex), out);
                let size = self.value(u32_, Expr::Special(Special::BlockSize), out);
                let base = self.value(u32_, Expr::Binary(BinaryOp::Mul, block, size), out);
                slot = self.value(u32_, Expr::Binary(BinaryOp::Add, base, slot), out);
            }
            let w = self.value(u32_, Expr::Literal(Literal::U32(width)), out);
            self.value(u32_, Expr::Binary(BinaryOp::Mul, slot, w), out)
        } else {
            self.operand(u32_, out)
        };
        let keep = Literal::U32((span - 1) & !(width - 1));
        let keep = self.value(u32_, Expr::Literal(keep), out);
        let masked = self.value(u32_, Expr::Binary(BinaryOp::And, raw, keep), out);
        Some(if ty == ScalarType::U64 {
            let cast = Expr::Cast(CastKind::ZeroExtend, masked, ScalarType::U64);
            self.value(ScalarType::U64, cast, out)
        } else {
            masked
        })
    }

    /// Defined kernels: the loop's counter set to 0 before it (in `out`), and at the top of its
    /// `body`: `if counter >= limit { break }; counter += 1`, so it runs at most a few times.
    pub(super) fn count_iterations(&mut self, out: &mut Block, body: &mut Block) {
        let name = LOOP_COUNTERS[self.loop_depth as usize % LOOP_COUNTERS.len()];
        let Some((counter, _)) = self.kernel.locals.iter().find(|(_, l)| l.name == name) else {
            return;
        };
        let u32_ = ScalarType::U32;
        let zero = self.value(u32_, Expr::Literal(Literal::U32(0)), out);
        out.push(Stmt::Assign {
            local: counter,
            value: zero,
        });
        let count = self.value(u32_, Expr::Local(counter), body);
        let limit = Literal::U32(1 + self.below(4) as u32);
        let limit = self.value(u32_, Expr::Literal(limit), body);
        let done = self.value(
            ScalarType::Bool,
            Expr::Compare(CmpOp::Ge, count, limit),
            body,
        );
        body.push(Stmt::If {
            cond: done,
            then_block: vec![Stmt::Break],
            else_block: Vec::new(),
        });
        let one = self.value(u32_, Expr::Literal(Literal::U32(1)), body);
        let next = self.value(u32_, Expr::Binary(BinaryOp::Add, count, one), body);
        body.push(Stmt::Assign {
            local: counter,
            value: next,
        });
    }

    /// A fresh value bound to `expr`.
    pub(super) fn value(&mut self, ty: ScalarType, expr: Expr, out: &mut Block) -> Value {
        let value = self.define(ty);
        out.push(Stmt::Let { value, expr });
        value
    }

    /// Folds the values the last statement of `block` defines into the digest.
    pub(super) fn fold_last(&mut self, block: &mut Block) {
        let defined: Vec<Value> = match block.last() {
            Some(
                Stmt::Let { value, .. }
                | Stmt::Load { value, .. }
                | Stmt::LoadByte { value, .. }
                | Stmt::Atomic { value, .. },
            ) => {
                vec![*value]
            }
            Some(Stmt::LoadWide { values, .. }) => values.clone(),
            Some(Stmt::Warp(op)) => match op {
                WarpOp::Shuffle { value, .. }
                | WarpOp::Ballot { value, .. }
                | WarpOp::Vote { value, .. }
                | WarpOp::MatchAny { value, .. } => vec![*value],
                WarpOp::Sync { .. } => Vec::new(),
            },
            _ => Vec::new(),
        };
        for v in defined {
            self.fold(v, block);
        }
    }

    fn fold(&mut self, v: Value, out: &mut Block) {
        use ScalarType as T;
        let Some((acc, _)) = self.kernel.locals.iter().find(|(_, l)| l.name == "acc") else {
            return;
        };
        let ty = self.kernel.values[v].ty;
        let bits = match ty {
            T::Bool | T::U8 | T::U16 => {
                self.value(T::U32, Expr::Cast(CastKind::ZeroExtend, v, T::U32), out)
            }
            T::U32 => v,
            T::I32 | T::F32 => self.value(T::U32, Expr::Cast(CastKind::Bitcast, v, T::U32), out),
            T::F16 | T::BF16 => {
                let half = self.value(T::U16, Expr::Cast(CastKind::Bitcast, v, T::U16), out);
                self.value(T::U32, Expr::Cast(CastKind::ZeroExtend, half, T::U32), out)
            }
            T::U64 | T::I64 | T::F64 => {
                let wide = if ty != T::U64 {
                    self.value(T::U64, Expr::Cast(CastKind::Bitcast, v, T::U64), out)
                } else {
                    v
                };
                let low = self.value(T::U32, Expr::Cast(CastKind::Truncate, wide, T::U32), out);
                let shift = self.value(T::U32, Expr::Literal(Literal::U32(32)), out);
                let high = self.value(T::U64, Expr::Binary(BinaryOp::Shr, wide, shift), out);
                let high = self.value(T::U32, Expr::Cast(CastKind::Truncate, high, T::U32), out);
                self.value(T::U32, Expr::Binary(BinaryOp::Xor, low, high), out)
            }
        };
        let old = self.value(T::U32, Expr::Local(acc), out);
        let prime = self.value(T::U32, Expr::Literal(Literal::U32(0x0100_0193)), out);
        let mixed = self.value(T::U32, Expr::Binary(BinaryOp::Mul, old, prime), out);
        let new = self.value(T::U32, Expr::Binary(BinaryOp::Xor, mixed, bits), out);
        out.push(Stmt::Assign {
            local: acc,
            value: new,
        });
    }

    /// Stores the digest to the thread's own slot of `out` (the first parameter).
    pub(super) fn store_digest(&mut self, out: &mut Block) {
        use ScalarType as T;
        let (Some(elements), Some((acc, _)), Some((param, _))) = (
            self.defined,
            self.kernel.locals.iter().find(|(_, l)| l.name == "acc"),
            self.kernel.params.iter().find(|(_, p)| p.name == "out"),
        ) else {
            return;
        };
        let tid = self.value(T::U32, Expr::Special(Special::ThreadIndex), out);
        let block = self.value(T::U32, Expr::Special(Special::BlockIndex), out);
        let size = self.value(T::U32, Expr::Special(Special::BlockSize), out);
        let base = self.value(T::U32, Expr::Binary(BinaryOp::Mul, block, size), out);
        let slot = self.value(T::U32, Expr::Binary(BinaryOp::Add, base, tid), out);
        let span = 1u32 << (31 - elements.leading_zeros());
        let keep = self.value(T::U32, Expr::Literal(Literal::U32(span - 1)), out);
        let index = self.value(T::U32, Expr::Binary(BinaryOp::And, slot, keep), out);
        let digest = self.value(T::U32, Expr::Local(acc), out);
        out.push(Stmt::Store {
            array: MemRef::Global(param),
            index,
            value: digest,
        });
    }
}
