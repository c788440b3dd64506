//! Lowering of loads, stores, wide accesses and atomics.
//!
//! Global addresses are `base + index * size` in 64 bits from the `cvta.to.global` base of the buffer.
//! Shared addresses are 32-bit offsets from the array's own `.shared` symbol (`mov.u32 %r, s_tile`),
//! never a generic pointer, so every shared access is a `.shared` access ptxas can check.

use warpforge_ir::{AtomicOp, MemRef, ScalarType, Value};

use super::{Lowerer, B32, F32, F64, S64, U16, U32, U64, U8};
use crate::ast::Operand;
use crate::isa::{Modifier as M, Opcode as O};
use crate::regs::RegClass;

/// The memory type suffix of an element type.
fn mem_type(t: ScalarType) -> M {
    match t {
        ScalarType::U8 => U8,
        ScalarType::U16 | ScalarType::F16 | ScalarType::BF16 => U16,
        ScalarType::U32 | ScalarType::I32 | ScalarType::Bool => U32,
        ScalarType::U64 | ScalarType::I64 => U64,
        ScalarType::F32 => F32,
        ScalarType::F64 => F64,
    }
}

/// The state space modifiers of an access (`.global.nc` for read-only buffers).
type Space = &'static [M];

impl Lowerer<'_> {
    fn elem_type(&self, array: MemRef) -> ScalarType {
        match array {
            MemRef::Global(p) => match self.kernel.params[p].kind {
                warpforge_ir::ParamKind::Buffer { elem, .. } => elem,
                warpforge_ir::ParamKind::Scalar(_) => {
                    unreachable!("verified: memory goes to buffers")
                }
            },
            MemRef::Shared(s) => self.kernel.shared[s].elem,
        }
    }

    /// The state space and address of element `index` of `array`.
    fn address(&mut self, array: MemRef, index: Value) -> (Space, Operand) {
        let size = i64::from(self.elem_type(array).size_bytes().unwrap_or(1));
        self.address_scaled(array, index, size)
    }

    /// The state space and address of the `size`-byte unit `index` of `array`.
    fn address_scaled(&mut self, array: MemRef, index: Value, size: i64) -> (Space, Operand) {
        let wide_index = self.ty(index) == ScalarType::U64;
        let idx = self.op(index);
        match array {
            MemRef::Global(p) => {
                let base = self.buffers[p.index()]
                    .expect("every buffer parameter is converted in the prologue");
                let offset = self.fresh(RegClass::B64);
                if wide_index {
                    self.inst(
                        (O::Mul, &[M::Lo, U64]),
                        vec![Operand::Reg(offset), idx, Operand::Imm(size)],
                    );
                } else {
                    self.inst(
                        (O::Mul, &[M::Wide, U32]),
                        vec![Operand::Reg(offset), idx, Operand::Imm(size)],
                    );
                }
                let addr = self.fresh(RegClass::B64);
                self.inst(
                    (O::Add, &[S64]),
                    vec![Operand::Reg(addr), Operand::Reg(base), Operand::Reg(offset)],
                );
                (&[M::Global], Operand::Addr(Box::new(Operand::Reg(addr)), 0))
            }
            MemRef::Shared(s) => {
                let idx = if wide_index {
                    // Shared memory is far below 4 GiB: the low 32 bits of the index address it.
                    let low = self.fresh(RegClass::B32);
                    self.inst((O::Cvt, &[U32, U64]), vec![Operand::Reg(low), idx]);
                    Operand::Reg(low)
                } else {
                    idx
                };
                let base = self.fresh(RegClass::B32);
                let (symbol, offset) = self.shared_bases[s.index()].clone();
                self.inst(
                    (O::Mov, &[U32]),
                    vec![Operand::Reg(base), Operand::Sym(symbol.0)],
                );
                if offset != 0 {
                    self.inst(
                        (O::Add, &[U32]),
                        vec![
                            Operand::Reg(base),
                            Operand::Reg(base),
                            Operand::Imm(offset as i64),
                        ],
                    );
                }
                let addr = self.fresh(RegClass::B32);
                self.inst(
                    (O::Mad, &[M::Lo, U32]),
                    vec![
                        Operand::Reg(addr),
                        idx,
                        Operand::Imm(size),
                        Operand::Reg(base),
                    ],
                );
                (&[M::Shared], Operand::Addr(Box::new(Operand::Reg(addr)), 0))
            }
        }
    }

    /// `global.nc` for buffers the kernel never writes (the read-only data path; it also tells PTX
    /// readers such as the linter that the loaded value cannot be changed by other threads).
    fn load_space(&self, array: MemRef, space: Space) -> Space {
        match array {
            MemRef::Global(p)
                if matches!(
                    self.kernel.params[p].kind,
                    warpforge_ir::ParamKind::Buffer {
                        access: warpforge_ir::Access::ReadOnly,
                        ..
                    }
                ) =>
            {
                &[M::Global, M::Nc]
            }
            _ => space,
        }
    }

    pub(super) fn load(&mut self, value: Value, array: MemRef, index: Value) {
        let (space, addr) = self.address(array, index);
        let space = self.load_space(array, space);
        let dst = self.def(value);
        let modifiers = [space, &[mem_type(self.elem_type(array))]].concat();
        self.inst((O::Ld, &modifiers), vec![Operand::Reg(dst), addr]);
    }

    /// Byte `index` of a `u32` array, zero-extended into a 32-bit register (`ld.u8`).
    pub(super) fn load_byte(&mut self, value: Value, array: MemRef, index: Value) {
        let (space, addr) = self.address_scaled(array, index, 1);
        let space = self.load_space(array, space);
        let dst = self.def(value);
        let modifiers = [space, &[U8]].concat();
        self.inst((O::Ld, &modifiers), vec![Operand::Reg(dst), addr]);
    }

    /// The low byte of a 32-bit register to byte `index` of a `u32` array (`st.u8`).
    pub(super) fn store_byte(&mut self, array: MemRef, index: Value, value: Value) {
        let (space, addr) = self.address_scaled(array, index, 1);
        let src = self.op(value);
        let modifiers = [space, &[U8]].concat();
        self.inst((O::St, &modifiers), vec![addr, src]);
    }

    pub(super) fn store(&mut self, array: MemRef, index: Value, value: Value) {
        let (space, addr) = self.address(array, index);
        let src = self.op(value);
        let modifiers = [space, &[mem_type(self.elem_type(array))]].concat();
        self.inst((O::St, &modifiers), vec![addr, src]);
    }

    pub(super) fn load_wide(&mut self, values: &[Value], array: MemRef, index: Value) {
        let (space, addr) = self.address(array, index);
        let space = self.load_space(array, space);
        let elem = values
            .first()
            .map_or(U32, |&v| super::expr::arith(self.ty(v)));
        let regs = values.iter().map(|&v| self.def(v)).collect();
        let modifiers = [space, &[vector(values.len()), elem]].concat();
        self.inst((O::Ld, &modifiers), vec![Operand::Vector(regs), addr]);
    }

    pub(super) fn store_wide(&mut self, array: MemRef, index: Value, values: &[Value]) {
        let (space, addr) = self.address(array, index);
        let elem = values
            .first()
            .map_or(U32, |&v| super::expr::arith(self.ty(v)));
        let regs = values.iter().map(|&v| self.reg(v)).collect();
        let modifiers = [space, &[vector(values.len()), elem]].concat();
        self.inst((O::St, &modifiers), vec![addr, Operand::Vector(regs)]);
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
        let (space, addr) = self.address(array, index);
        let name = match op {
            // Global `atom.add.f32` flushes subnormals (the IR's documented meaning); shared keeps them.
            AtomicOp::Add if self.ty(operand) == ScalarType::F32 => [M::Add, F32],
            // `atom.add.f64` (sm_60+): IEEE, no flush.
            AtomicOp::Add if self.ty(operand) == ScalarType::F64 => [M::Add, F64],
            AtomicOp::Add => [M::Add, U32],
            AtomicOp::Min => [M::Min, U32],
            AtomicOp::Max => [M::Max, U32],
            AtomicOp::And => [M::And, B32],
            AtomicOp::Or => [M::Or, B32],
            AtomicOp::Exchange => [M::Exch, B32],
            AtomicOp::CompareExchange => [M::Cas, B32],
        };
        let mut args = vec![addr];
        if let Some(c) = compare {
            args.push(self.op(c));
        }
        args.push(self.op(operand));
        let dst = self.def(value);
        args.insert(0, Operand::Reg(dst));
        self.inst((O::Atom, &[space, &name[..]].concat()), args);
    }
}

/// `.v2`, `.v4` or `.v8` for a wide access of `n` words.
fn vector(n: usize) -> M {
    match n {
        2 => M::V2,
        4 => M::V4,
        _ => M::V8,
    }
}
