//! Lowering of loads, stores, wide accesses and atomics, and how each array is represented in WGSL.
//!
//! WGSL has no 8- or 16-bit storage types, so `u8`/`u16` arrays are arrays of 32-bit words holding 4 or
//! 2 elements each (the same bytes as on the CPU). A byte load is a word load, a shift and a mask. A byte
//! store must not race with other lanes storing neighbouring bytes of the same word, so writable packed
//! arrays are `atomic<u32>` and a store is `atomicAnd` (clear the byte) then `atomicOr` (set it): both
//! touch only this element's bits, so they commute with other lanes' stores. `u32` arrays that the
//! kernel uses atomically are `atomic<u32>` throughout (plain accesses become `atomicLoad`/`atomicStore`).

use std::collections::HashSet;

use naga::{AtomicFunction, BinaryOperator as Op, Expression, Handle, Scalar, Statement};
use warpforge_ir::{AtomicOp, Kernel, MemRef, ScalarType, Stmt, Value};

use super::builder::Builder;
use super::Lowerer;

type H = Handle<Expression>;

/// How an IR array is declared in WGSL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Repr {
    /// `array<T>` of the element's WGSL type.
    Plain,
    /// `array<atomic<u32>>`.
    Atomic,
    /// 8- or 16-bit elements packed in 32-bit words (`atomic<u32>` words when writable).
    Packed {
        /// Element width in bits.
        bits: u32,
        /// Whether the words are atomic.
        atomic: bool,
    },
}

impl Repr {
    pub fn choose(elem: ScalarType, used_atomically: bool, writable: bool) -> Repr {
        match elem {
            ScalarType::U8 => Repr::Packed {
                bits: 8,
                atomic: writable,
            },
            ScalarType::U16 | ScalarType::F16 | ScalarType::BF16 => Repr::Packed {
                bits: 16,
                atomic: writable,
            },
            _ if used_atomically => Repr::Atomic,
            _ => Repr::Plain,
        }
    }

    /// The WGSL type of one array slot.
    pub fn word_type(self, b: &mut Builder, elem: ScalarType) -> naga::Handle<naga::Type> {
        match self {
            Repr::Plain => b.value_type(elem),
            Repr::Atomic | Repr::Packed { atomic: true, .. } => b.atomic_u32_type(),
            Repr::Packed { atomic: false, .. } => b.scalar_type(Scalar::U32),
        }
    }

    /// Slots needed for `len` elements.
    pub fn words_for(self, len: u32) -> u32 {
        match self {
            Repr::Packed { bits, .. } => (u64::from(len) * u64::from(bits)).div_ceil(32) as u32,
            _ => len,
        }
    }
}

/// A WGSL array variable standing for an IR array.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ArrayVar {
    pub var: naga::Handle<naga::GlobalVariable>,
    pub elem: ScalarType,
    pub repr: Repr,
    /// Slots of a fixed-size array (`None` for runtime-sized storage buffers).
    pub slots: Option<u32>,
}

/// The arrays some atomic statement touches.
pub(crate) fn arrays_with_atomics(kernel: &Kernel) -> HashSet<MemRef> {
    fn walk(block: &[Stmt], found: &mut HashSet<MemRef>) {
        for stmt in block {
            match stmt {
                // A byte store changes part of a word that other threads may be changing too:
                // the word is atomic, as a `u8` array's are.
                Stmt::Atomic { array, .. } | Stmt::StoreByte { array, .. } => {
                    found.insert(*array);
                }
                Stmt::If {
                    then_block,
                    else_block,
                    ..
                } => {
                    walk(then_block, found);
                    walk(else_block, found);
                }
                Stmt::Loop { body } => walk(body, found),
                _ => {}
            }
        }
    }
    let mut found = HashSet::new();
    walk(&kernel.body, &mut found);
    found
}

impl Lowerer<'_> {
    fn array_var(&self, array: MemRef) -> ArrayVar {
        match array {
            MemRef::Global(p) => {
                self.buffers[p.index()]
                    .as_ref()
                    .expect("verified: a buffer parameter")
                    .1
            }
            MemRef::Shared(s) => self.shared[s.index()],
        }
    }

    /// The IR index as a `u32` (WGSL indexes arrays with 32-bit integers).
    fn index_u32(&mut self, index: Value) -> H {
        let h = self.b.value(index);
        if self.kernel.values[index].ty == ScalarType::U64 {
            self.low_u32(h, false)
        } else {
            h
        }
    }

    /// A pointer to slot `slot` of `array`. Slots of fixed-size (workgroup) arrays are clamped to the
    /// array: naga rejects a constant index past the end at compile time, while in the IR an
    /// out-of-range shared index is a run-time hazard (the analyzer reports it). In-range indices are
    /// unchanged, and WebGPU clamps out-of-range accesses at run time anyway.
    fn slot_ptr(&mut self, array: ArrayVar, slot: H) -> H {
        let slot = match array.slots {
            Some(len) => {
                let last = self.b.u32(len - 1);
                self.b.math(naga::MathFunction::Min, slot, Some(last))
            }
            None => slot,
        };
        let base = self.b.global_expr(array.var);
        self.b.index(base, slot)
    }

    /// For a packed array: the slot of element `index` and the bit position of the element in it.
    fn packed_slot(&mut self, index: H, bits: u32) -> (H, H) {
        let per_word_log2 = self.b.u32(if bits == 8 { 2 } else { 1 });
        let slot = self.b.binary(Op::ShiftRight, index, per_word_log2);
        let in_word = self.b.u32(32 / bits - 1);
        let lane = self.b.binary(Op::And, index, in_word);
        let width = self.b.u32(bits);
        let shift = self.b.binary(Op::Multiply, lane, width);
        (slot, shift)
    }

    /// The value of element `index` (a `u32` expression).
    fn load_element(&mut self, array: ArrayVar, index: H) -> H {
        match array.repr {
            // An f32 array used atomically is held as `atomic<u32>` bits.
            Repr::Atomic if array.elem == ScalarType::F32 => {
                let ptr = self.slot_ptr(array, index);
                let bits = self.b.load(ptr);
                self.b.cast(bits, Scalar::F32, true)
            }
            Repr::Plain | Repr::Atomic => {
                let ptr = self.slot_ptr(array, index);
                self.b.load(ptr)
            }
            Repr::Packed { bits, .. } => {
                let (slot, shift) = self.packed_slot(index, bits);
                let ptr = self.slot_ptr(array, slot);
                let word = self.b.load(ptr);
                let shifted = self.b.binary(Op::ShiftRight, word, shift);
                self.normalize(shifted, array.elem)
            }
        }
    }

    /// `f32` atomic add on `atomic<u32>` bits, which WGSL has no instruction for: a loop of
    /// `atomicCompareExchangeWeak` until the bits it read are still there; the old value.
    fn float_add_loop(&mut self, ptr: H, v: H) -> H {
        let slot = self.b.temp("atomic_old", ScalarType::U32);
        self.b.open();
        let current = self.b.load(ptr);
        let as_float = self.b.cast(current, Scalar::F32, true);
        let sum = self.b.binary(Op::Add, as_float, v);
        let bits = self.b.cast(sum, Scalar::U32, true);
        let ty = self.b.compare_exchange_type();
        let result = self.b.atomic_result(ty, true);
        self.atomic_stmt(
            ptr,
            AtomicFunction::Exchange {
                compare: Some(current),
            },
            bits,
            Some(result),
        );
        let old = self.b.emit(Expression::AccessIndex {
            base: result,
            index: 0,
        });
        self.b.push(Statement::Store {
            pointer: slot,
            value: old,
        });
        let exchanged = self.b.emit(Expression::AccessIndex {
            base: result,
            index: 1,
        });
        self.b.if_then(exchanged, |b| b.push(Statement::Break));
        let body = self.b.close();
        self.b.push(Statement::Loop {
            body,
            continuing: naga::Block::new(),
            break_if: None,
        });
        let old = self.b.load(slot);
        self.b.cast(old, Scalar::F32, true)
    }

    fn atomic_stmt(&mut self, pointer: H, fun: AtomicFunction, value: H, result: Option<H>) {
        self.b.push(Statement::Atomic {
            pointer,
            fun,
            value,
            result,
        });
    }

    /// Writes `value` to element `index`.
    fn store_element(&mut self, array: ArrayVar, index: H, value: H) {
        match array.repr {
            Repr::Atomic if array.elem == ScalarType::F32 => {
                let ptr = self.slot_ptr(array, index);
                let bits = self.b.cast(value, Scalar::U32, true);
                self.b.push(Statement::Store {
                    pointer: ptr,
                    value: bits,
                });
            }
            Repr::Plain | Repr::Atomic => {
                let ptr = self.slot_ptr(array, index);
                self.b.push(Statement::Store {
                    pointer: ptr,
                    value,
                });
            }
            Repr::Packed { bits, .. } => self.store_packed(array, index, value, bits),
        }
    }

    /// The low `bits` of `value` to the `bits`-wide field `index` of an atomic word array: the field
    /// cleared, then set, in its word (`atomicAnd`, `atomicOr`), so neighbouring fields written by
    /// other threads are kept.
    fn store_packed(&mut self, array: ArrayVar, index: H, value: H, bits: u32) {
        let (slot, shift) = self.packed_slot(index, bits);
        let ptr = self.slot_ptr(array, slot);
        let mask = self.b.u32((1 << bits) - 1);
        let field = self.b.binary(Op::ShiftLeft, mask, shift);
        let clear = self.b.emit(Expression::Unary {
            op: naga::UnaryOperator::BitwiseNot,
            expr: field,
        });
        let bits_in = self.b.binary(Op::And, value, mask);
        let set = self.b.binary(Op::ShiftLeft, bits_in, shift);
        self.atomic_stmt(ptr, AtomicFunction::And, clear, None);
        self.atomic_stmt(ptr, AtomicFunction::InclusiveOr, set, None);
    }

    pub(super) fn load(&mut self, value: Value, array: MemRef, index: Value) {
        let var = self.array_var(array);
        let i = self.index_u32(index);
        let h = self.load_element(var, i);
        self.b.set_value(value, h);
    }

    pub(super) fn store(&mut self, array: MemRef, index: Value, value: Value) {
        let var = self.array_var(array);
        let i = self.index_u32(index);
        let v = self.b.value(value);
        self.store_element(var, i, v);
    }

    /// Byte `index` of a `u32` array: WGSL has no byte access, so the word holding it is loaded
    /// and the byte shifted down and masked (`(a[i >> 2] >> ((i & 3) * 8)) & 0xff`).
    pub(super) fn load_byte(&mut self, value: Value, array: MemRef, index: Value) {
        let var = self.array_var(array);
        let i = self.index_u32(index);
        let (word, shift) = self.packed_slot(i, 8);
        let word = self.load_element(var, word);
        let shifted = self.b.binary(Op::ShiftRight, word, shift);
        let byte = self.normalize(shifted, ScalarType::U8);
        self.b.set_value(value, byte);
    }

    /// The low byte of `value` to byte `index` of a `u32` array, which is atomic in WGSL (see
    /// [`arrays_with_atomics`]): the byte cleared, then set, in its word (`atomicAnd`, `atomicOr`).
    pub(super) fn store_byte(&mut self, array: MemRef, index: Value, value: Value) {
        let var = self.array_var(array);
        let i = self.index_u32(index);
        let v = self.b.value(value);
        self.store_packed(var, i, v, 8);
    }

    fn offset(&mut self, base: H, k: usize) -> H {
        if k == 0 {
            return base;
        }
        let k = self.b.u32(k as u32);
        self.b.binary(Op::Add, base, k)
    }

    pub(super) fn load_wide(&mut self, values: &[Value], array: MemRef, index: Value) {
        let var = self.array_var(array);
        let base = self.index_u32(index);
        for (k, &v) in values.iter().enumerate() {
            let i = self.offset(base, k);
            let h = self.load_element(var, i);
            self.b.set_value(v, h);
        }
    }

    pub(super) fn store_wide(&mut self, array: MemRef, index: Value, values: &[Value]) {
        let var = self.array_var(array);
        let base = self.index_u32(index);
        for (k, &v) in values.iter().enumerate() {
            let i = self.offset(base, k);
            let h = self.b.value(v);
            self.store_element(var, i, h);
        }
    }

    pub(super) fn atomic(
        &mut self,
        value: Value,
        op: AtomicOp,
        array: MemRef,
        index: Value,
        operand: Value,
        compare: Option<Value>,
    ) {
        let var = self.array_var(array);
        let i = self.index_u32(index);
        let ptr = self.slot_ptr(var, i);
        let v = self.b.value(operand);
        if var.elem == ScalarType::F32 {
            let old = self.float_add_loop(ptr, v);
            self.b.set_value(value, old);
            return;
        }
        let fun = match op {
            AtomicOp::Add => AtomicFunction::Add,
            AtomicOp::Min => AtomicFunction::Min,
            AtomicOp::Max => AtomicFunction::Max,
            AtomicOp::And => AtomicFunction::And,
            AtomicOp::Or => AtomicFunction::InclusiveOr,
            AtomicOp::Exchange => AtomicFunction::Exchange { compare: None },
            AtomicOp::CompareExchange => {
                let c = self
                    .b
                    .value(compare.expect("verified: compare-and-swap has a compared value"));
                AtomicFunction::Exchange { compare: Some(c) }
            }
        };
        let old = if op == AtomicOp::CompareExchange {
            let ty = self.b.compare_exchange_type();
            let result = self.b.atomic_result(ty, true);
            self.atomic_stmt(ptr, fun, v, Some(result));
            self.b.emit(Expression::AccessIndex {
                base: result,
                index: 0,
            })
        } else {
            let ty = self.b.scalar_type(Scalar::U32);
            let result = self.b.atomic_result(ty, false);
            self.atomic_stmt(ptr, fun, v, Some(result));
            result
        };
        self.b.set_value(value, old);
    }
}
