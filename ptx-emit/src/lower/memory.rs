//! Lowering of loads, stores, wide accesses and atomics.
//!
//! Global addresses are `base + index * size` in 64 bits from the `cvta.to.global` base of the buffer.
//! Shared addresses are 32-bit offsets from the array's own `.shared` symbol (`mov.u32 %r, s_tile`),
//! never a generic pointer, so every shared access is a `.shared` access ptxas can check.

use warpforge_ir::{AtomicOp, MemRef, ScalarType, Value};

use super::Lowerer;
use crate::ast::Operand;
use crate::regs::RegClass;

/// The memory type suffix of an element type.
fn mem_type(t: ScalarType) -> &'static str {
    match t {
        ScalarType::U8 => "u8",
        ScalarType::U16 => "u16",
        ScalarType::U32 | ScalarType::I32 | ScalarType::Bool => "u32",
        ScalarType::U64 | ScalarType::I64 => "u64",
        ScalarType::F32 => "f32",
    }
}

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
    fn address(&mut self, array: MemRef, index: Value) -> (&'static str, Operand) {
        let size = i64::from(self.elem_type(array).size_bytes().unwrap_or(1));
        let wide_index = self.ty(index) == ScalarType::U64;
        let idx = self.op(index);
        match array {
            MemRef::Global(p) => {
                let base = self.buffers[p.index()]
                    .expect("every buffer parameter is converted in the prologue");
                let offset = self.fresh(RegClass::B64);
                if wide_index {
                    self.inst(
                        "mul.lo.u64",
                        vec![Operand::Reg(offset), idx, Operand::Imm(size)],
                    );
                } else {
                    self.inst(
                        "mul.wide.u32",
                        vec![Operand::Reg(offset), idx, Operand::Imm(size)],
                    );
                }
                let addr = self.fresh(RegClass::B64);
                self.inst(
                    "add.s64",
                    vec![Operand::Reg(addr), Operand::Reg(base), Operand::Reg(offset)],
                );
                ("global", Operand::Addr(Box::new(Operand::Reg(addr)), 0))
            }
            MemRef::Shared(s) => {
                let idx = if wide_index {
                    // Shared memory is far below 4 GiB: the low 32 bits of the index address it.
                    let low = self.fresh(RegClass::B32);
                    self.inst("cvt.u32.u64", vec![Operand::Reg(low), idx]);
                    Operand::Reg(low)
                } else {
                    idx
                };
                let base = self.fresh(RegClass::B32);
                let (symbol, offset) = self.shared_bases[s.index()].clone();
                self.inst("mov.u32", vec![Operand::Reg(base), Operand::Sym(symbol.0)]);
                if offset != 0 {
                    self.inst(
                        "add.u32",
                        vec![
                            Operand::Reg(base),
                            Operand::Reg(base),
                            Operand::Imm(offset as i64),
                        ],
                    );
                }
                let addr = self.fresh(RegClass::B32);
                self.inst(
                    "mad.lo.u32",
                    vec![
                        Operand::Reg(addr),
                        idx,
                        Operand::Imm(size),
                        Operand::Reg(base),
                    ],
                );
                ("shared", Operand::Addr(Box::new(Operand::Reg(addr)), 0))
            }
        }
    }

    /// `global.nc` for buffers the kernel never writes (the read-only data path; it also tells PTX
    /// readers such as the linter that the loaded value cannot be changed by other threads).
    fn load_space(&self, array: MemRef, space: &'static str) -> &'static str {
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
                "global.nc"
            }
            _ => space,
        }
    }

    pub(super) fn load(&mut self, value: Value, array: MemRef, index: Value) {
        let (space, addr) = self.address(array, index);
        let space = self.load_space(array, space);
        let dst = self.def(value);
        let op = format!("ld.{space}.{}", mem_type(self.elem_type(array)));
        self.inst(op, vec![Operand::Reg(dst), addr]);
    }

    pub(super) fn store(&mut self, array: MemRef, index: Value, value: Value) {
        let (space, addr) = self.address(array, index);
        let src = self.op(value);
        let op = format!("st.{space}.{}", mem_type(self.elem_type(array)));
        self.inst(op, vec![addr, src]);
    }

    pub(super) fn load_wide(&mut self, values: &[Value], array: MemRef, index: Value) {
        let (space, addr) = self.address(array, index);
        let space = self.load_space(array, space);
        let regs = values.iter().map(|&v| self.def(v)).collect();
        let op = format!("ld.{space}.v{}.u32", values.len());
        self.inst(op, vec![Operand::Vector(regs), addr]);
    }

    pub(super) fn store_wide(&mut self, array: MemRef, index: Value, values: &[Value]) {
        let (space, addr) = self.address(array, index);
        let regs = values.iter().map(|&v| self.reg(v)).collect();
        let op = format!("st.{space}.v{}.u32", values.len());
        self.inst(op, vec![addr, Operand::Vector(regs)]);
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
            AtomicOp::Add => "add.u32",
            AtomicOp::Min => "min.u32",
            AtomicOp::Max => "max.u32",
            AtomicOp::And => "and.b32",
            AtomicOp::Or => "or.b32",
            AtomicOp::Exchange => "exch.b32",
            AtomicOp::CompareExchange => "cas.b32",
        };
        let mut args = vec![addr];
        if let Some(c) = compare {
            args.push(self.op(c));
        }
        args.push(self.op(operand));
        let dst = self.def(value);
        args.insert(0, Operand::Reg(dst));
        self.inst(format!("atom.{space}.{name}"), args);
    }
}
