//! Memory methods of [`KernelBuilder`]: loads, stores, wide (vector) accesses and atomics.

use super::typed::*;
use super::KernelBuilder;
use crate::stmt::{AtomicOp, Stmt};

impl KernelBuilder {
    /// Loads element `index` of `array`.
    #[must_use]
    pub fn load<T: Storable, I: IndexKind>(
        &mut self,
        array: impl Array<T>,
        index: Val<I>,
    ) -> Val<T> {
        let value = self.fresh::<T>();
        self.push(Stmt::Load {
            value: value.value(),
            array: array.mem_ref(),
            index: index.value(),
        });
        value
    }

    /// Stores `value` to element `index` of `array`.
    pub fn store<T: Storable, I: IndexKind>(
        &mut self,
        array: impl Array<T>,
        index: Val<I>,
        value: Val<T>,
    ) {
        self.push(Stmt::Store {
            array: array.mem_ref(),
            index: index.value(),
            value: value.value(),
        });
    }

    /// Loads byte `index` of a `u32` array (little-endian: byte `index % 4` of element `index / 4`),
    /// zero-extended.
    #[must_use]
    pub fn load_byte<I: IndexKind>(&mut self, array: impl Array<U32>, index: Val<I>) -> Val<U32> {
        let value = self.fresh::<U32>();
        self.push(Stmt::LoadByte {
            value: value.value(),
            array: array.mem_ref(),
            index: index.value(),
        });
        value
    }

    /// Stores the low byte of `value` to byte `index` of a `u32` array (little-endian: byte
    /// `index % 4` of element `index / 4`); the element's other bytes are left as they are.
    pub fn store_byte<I: IndexKind>(
        &mut self,
        array: impl Array<U32>,
        index: Val<I>,
        value: Val<U32>,
    ) {
        self.push(Stmt::StoreByte {
            array: array.mem_ref(),
            index: index.value(),
            value: value.value(),
        });
    }

    /// Loads `N` (2 or 4) consecutive `u32` elements in one access; `index` should be a multiple of `N`.
    #[must_use]
    pub fn load_wide<const N: usize, I: IndexKind>(
        &mut self,
        array: impl Array<U32>,
        index: Val<I>,
    ) -> [Val<U32>; N] {
        let values: [Val<U32>; N] = std::array::from_fn(|_| self.fresh::<U32>());
        self.push(Stmt::LoadWide {
            values: values.iter().map(|v| v.value()).collect(),
            array: array.mem_ref(),
            index: index.value(),
        });
        values
    }

    /// Stores `N` (2 or 4) consecutive `u32` elements in one access.
    pub fn store_wide<const N: usize, I: IndexKind>(
        &mut self,
        array: impl Array<U32>,
        index: Val<I>,
        values: [Val<U32>; N],
    ) {
        self.push(Stmt::StoreWide {
            array: array.mem_ref(),
            index: index.value(),
            values: values.iter().map(|v| v.value()).collect(),
        });
    }

    /// Loads `N` (2 or 4) consecutive `u32`, `i32` or `f32` elements in one access (`ld.v2`/`.v4`);
    /// `index` should be a multiple of `N`.
    #[must_use]
    pub fn load_vec<const N: usize, T: Vector32, I: IndexKind>(
        &mut self,
        array: impl Array<T>,
        index: Val<I>,
    ) -> [Val<T>; N] {
        let values: [Val<T>; N] = std::array::from_fn(|_| self.fresh::<T>());
        self.push(Stmt::LoadWide {
            values: values.iter().map(|v| v.value()).collect(),
            array: array.mem_ref(),
            index: index.value(),
        });
        values
    }

    /// Stores `N` (2 or 4) consecutive `u32`, `i32` or `f32` elements in one access.
    pub fn store_vec<const N: usize, T: Vector32, I: IndexKind>(
        &mut self,
        array: impl Array<T>,
        index: Val<I>,
        values: [Val<T>; N],
    ) {
        self.push(Stmt::StoreWide {
            array: array.mem_ref(),
            index: index.value(),
            values: values.iter().map(|v| v.value()).collect(),
        });
    }

    /// Atomic read-modify-write (not compare-and-swap); returns the old contents.
    #[must_use]
    pub fn atomic<I: IndexKind>(
        &mut self,
        op: AtomicOp,
        array: impl Array<U32>,
        index: Val<I>,
        operand: Val<U32>,
    ) -> Val<U32> {
        self.atomic_stmt(op, array, index, operand, None)
    }

    /// Atomic add on a `u32` (wrapping), an `f32` element (IEEE, round to nearest; on global memory
    /// subnormals are flushed, as CUDA's global float atomics do) or an `f64` element (IEEE, no
    /// flush; PTX and the simulators only); returns the old contents.
    #[must_use]
    pub fn atomic_add<T: AtomicAdd, I: IndexKind>(
        &mut self,
        array: impl Array<T>,
        index: Val<I>,
        operand: Val<T>,
    ) -> Val<T> {
        let value = self.fresh::<T>();
        self.push(Stmt::Atomic {
            value: value.value(),
            op: AtomicOp::Add,
            array: array.mem_ref(),
            index: index.value(),
            operand: operand.value(),
            compare: None,
        });
        value
    }

    /// Atomic compare-and-swap: writes `new` if the element equals `expected`; returns the old contents.
    #[must_use]
    pub fn atomic_cas<I: IndexKind>(
        &mut self,
        array: impl Array<U32>,
        index: Val<I>,
        expected: Val<U32>,
        new: Val<U32>,
    ) -> Val<U32> {
        self.atomic_stmt(AtomicOp::CompareExchange, array, index, new, Some(expected))
    }

    fn atomic_stmt<I: IndexKind>(
        &mut self,
        op: AtomicOp,
        array: impl Array<U32>,
        index: Val<I>,
        operand: Val<U32>,
        compare: Option<Val<U32>>,
    ) -> Val<U32> {
        let value = self.fresh::<U32>();
        self.push(Stmt::Atomic {
            value: value.value(),
            op,
            array: array.mem_ref(),
            index: index.value(),
            operand: operand.value(),
            compare: compare.map(Val::value),
        });
        value
    }
}
