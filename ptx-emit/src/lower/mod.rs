//! IR → PTX AST. `mod.rs` owns the walk over statements and structured control flow; `expr.rs`,
//! `memory.rs` and `warp.rs` lower the statement kinds their names say.
//!
//! Every IR value gets its own virtual register (ptxas allocates physical ones). Structured control
//! flow becomes labels and branches: `if` → `@!%p bra $L__else_N` …; `loop` → `$L__loop_N:` …
//! `bra $L__loop_N; $L__end_loop_N:`; `break`/`continue` branch to the innermost loop's labels.
//! `source.rs` writes the `.file`/`.loc` lines of statements with a Rust source position.

mod convert;
mod expr;
mod memory;
mod source;
mod warp;

use warpforge_ir::{Kernel, LocalId, ParamKind, ScalarType, Stmt, Value, Verified};

use crate::ast::{
    Entry, Guard, Inst, Label, LabelKind, Line, Module, Operand, ParamDecl, SharedDecl, Symbol,
};
use crate::isa::{Modifier as M, Opcode as O};
use crate::parse::DataType;
use crate::regs::{Reg, RegAllocator, RegClass};

/// An instruction's name: its opcode and modifiers.
pub(crate) type Op<'m> = (O, &'m [M]);

/// The type modifiers the lowering writes.
pub(crate) const PRED: M = M::Type(DataType::Pred);
pub(crate) const B32: M = M::Type(DataType::B32);
pub(crate) const B64: M = M::Type(DataType::B64);
pub(crate) const U8: M = M::Type(DataType::U8);
pub(crate) const U16: M = M::Type(DataType::U16);
pub(crate) const U32: M = M::Type(DataType::U32);
pub(crate) const U64: M = M::Type(DataType::U64);
pub(crate) const S8: M = M::Type(DataType::S8);
pub(crate) const S16: M = M::Type(DataType::S16);
pub(crate) const S32: M = M::Type(DataType::S32);
pub(crate) const S64: M = M::Type(DataType::S64);
pub(crate) const F32: M = M::Type(DataType::F32);
pub(crate) const F64: M = M::Type(DataType::F64);
pub(crate) const F16: M = M::Type(DataType::F16);
pub(crate) const B16: M = M::Type(DataType::B16);
use crate::Sm;

/// Lowers a verified kernel to a PTX module.
pub(crate) fn lower(kernel: &Verified<'_>, target: Sm) -> Module {
    let kernel = kernel.kernel();
    let dynamic = uses_dynamic_shared(kernel);
    let offsets = kernel.shared_offsets().unwrap_or_default();
    let shared_bases = kernel
        .shared
        .iter()
        .zip(offsets)
        .map(|((_, s), offset)| {
            if dynamic {
                (Symbol(DYNAMIC_SHARED.into()), offset)
            } else {
                (shared_symbol(&s.name), 0)
            }
        })
        .collect();
    let mut l = Lowerer {
        kernel,
        regs: RegAllocator::default(),
        body: Vec::new(),
        values: vec![None; kernel.values.len()],
        consts: vec![None; kernel.values.len()],
        locals: Vec::new(),
        buffers: vec![None; kernel.params.len()],
        labels: 0,
        loops: Vec::new(),
        shared_bases,
        source: source::SourceLines::new(kernel),
        grid_dims: kernel.uses_grid_dims(),
    };
    l.prologue();
    l.block(&kernel.body);
    l.inst((O::Ret, &[]), vec![]);
    Module {
        target,
        files: l.source.file_table(),
        entry: Entry {
            name: kernel.name.clone(),
            params: kernel
                .params
                .iter()
                .map(|(_, p)| ParamDecl {
                    symbol: param_symbol(&p.name),
                    ty: match p.kind {
                        ParamKind::Buffer { .. } => DataType::U64,
                        ParamKind::Scalar(t) => param_type(t),
                    },
                })
                .collect(),
            reqntid: kernel.block_dims(),
            reg_counts: l.regs.counts(),
            shared: if dynamic {
                let align = kernel
                    .shared
                    .iter()
                    .map(|(_, s)| s.align)
                    .max()
                    .unwrap_or(16)
                    .max(16);
                let symbol = Symbol(DYNAMIC_SHARED.into());
                vec![SharedDecl {
                    dynamic: true,
                    symbol,
                    align,
                    bytes: 0,
                }]
            } else {
                kernel
                    .shared
                    .iter()
                    .map(|(_, s)| SharedDecl {
                        dynamic: false,
                        symbol: shared_symbol(&s.name),
                        align: s.align,
                        bytes: s.size_bytes().unwrap_or(0),
                    })
                    .collect()
            },
            body: l.body,
        },
    }
}

/// The `.extern .shared` array of kernels whose shared memory is dynamic.
pub(crate) const DYNAMIC_SHARED: &str = "wf_dynamic_shared";

/// Whether `kernel`'s shared arrays go in dynamic shared memory (more than the static 48 KiB).
pub(crate) fn uses_dynamic_shared(kernel: &Kernel) -> bool {
    kernel.shared_bytes().unwrap_or(u64::MAX) > crate::MAX_STATIC_SHARED_BYTES
}

/// The `.param` symbol of a kernel parameter.
pub(crate) fn param_symbol(name: &str) -> Symbol {
    Symbol(format!("p_{name}"))
}

/// The `.shared` symbol of a shared array.
pub(crate) fn shared_symbol(name: &str) -> Symbol {
    Symbol(format!("s_{name}"))
}

/// The `.param` type of a scalar parameter (`bool` travels as a byte, 0 or 1).
pub(crate) fn param_type(t: ScalarType) -> DataType {
    match t {
        ScalarType::Bool | ScalarType::U8 => DataType::U8,
        ScalarType::U16 | ScalarType::F16 | ScalarType::BF16 => DataType::U16,
        ScalarType::U32 | ScalarType::I32 => DataType::U32,
        ScalarType::U64 | ScalarType::I64 => DataType::U64,
        ScalarType::F32 => DataType::F32,
        ScalarType::F64 => DataType::F64,
    }
}

pub(crate) struct Lowerer<'k> {
    kernel: &'k Kernel,
    regs: RegAllocator,
    body: Vec<Line>,
    /// The register of each IR value, once defined.
    values: Vec<Option<Reg>>,
    /// The bits of each value defined by a literal, for folding shift amounts and shuffle lanes.
    consts: Vec<Option<u64>>,
    /// The register of each mutable local.
    locals: Vec<Reg>,
    /// The generic→global converted base address of each buffer parameter.
    buffers: Vec<Option<Reg>>,
    labels: u32,
    /// (continue target, break target) of each open loop, innermost last.
    loops: Vec<(Label, Label)>,
    /// Where each shared array starts: its own symbol, or the dynamic array plus an offset.
    shared_bases: Vec<(Symbol, u64)>,
    /// The statement path and the `.loc` lines.
    source: source::SourceLines<'k>,
    /// Whether the kernel reads the grid's shape ([`Kernel::uses_grid_dims`], asked once).
    grid_dims: bool,
}

impl Lowerer<'_> {
    fn inst(&mut self, op: Op<'_>, args: Vec<Operand>) {
        self.push_inst(None, op, args);
    }

    fn guarded(&mut self, pred: Reg, negated: bool, op: Op<'_>, args: Vec<Operand>) {
        self.push_inst(Some(Guard { pred, negated }), op, args);
    }

    fn push_inst(&mut self, guard: Option<Guard>, (opcode, modifiers): Op<'_>, args: Vec<Operand>) {
        self.body.push(Line::Inst(Inst {
            guard,
            opcode,
            modifiers: modifiers.to_vec(),
            args,
        }));
    }

    fn fresh(&mut self, class: RegClass) -> Reg {
        self.regs.fresh(class)
    }

    fn ty(&self, v: Value) -> ScalarType {
        self.kernel.values[v].ty
    }

    /// Allocates the register that defines `v`.
    fn def(&mut self, v: Value) -> Reg {
        let reg = self.fresh(RegClass::of(self.ty(v)));
        self.values[v.index()] = Some(reg);
        reg
    }

    /// The register of an already-defined value (the verifier guarantees it exists).
    fn reg(&self, v: Value) -> Reg {
        self.values[v.index()].expect("verified IR defines every value before its uses")
    }

    fn op(&self, v: Value) -> Operand {
        Operand::Reg(self.reg(v))
    }

    /// `v & (modulus - 1)` as an operand: an immediate when `v` is a literal, else a masked register.
    fn masked_u32(&mut self, v: Value, modulus: u32) -> Operand {
        let mask = i64::from(modulus - 1);
        if let Some(bits) = self.consts[v.index()] {
            return Operand::Imm(bits as i64 & mask);
        }
        let masked = self.fresh(RegClass::B32);
        let src = self.op(v);
        self.inst(
            (O::And, &[B32]),
            vec![Operand::Reg(masked), src, Operand::Imm(mask)],
        );
        Operand::Reg(masked)
    }

    fn local(&self, l: LocalId) -> Reg {
        self.locals[l.index()]
    }

    fn label(&mut self, kind: LabelKind) -> Label {
        self.labels += 1;
        Label {
            kind,
            id: self.labels - 1,
        }
    }

    fn place(&mut self, label: Label) {
        self.body.push(Line::Label(label));
    }

    fn branch(&mut self, target: Label) {
        self.inst((O::Bra, &[]), vec![Operand::Label(target)]);
    }

    /// Converts buffer parameters to global addresses and zeroes every local.
    fn prologue(&mut self) {
        for (h, p) in self.kernel.params.iter() {
            if let ParamKind::Buffer { .. } = p.kind {
                let generic = self.fresh(RegClass::B64);
                let global = self.fresh(RegClass::B64);
                let sym = Operand::Sym(param_symbol(&p.name).0);
                self.inst(
                    (O::Ld, &[M::Param, U64]),
                    vec![Operand::Reg(generic), Operand::Addr(Box::new(sym), 0)],
                );
                self.inst(
                    (O::Cvta, &[M::To, M::Global, U64]),
                    vec![Operand::Reg(global), Operand::Reg(generic)],
                );
                self.buffers[h.index()] = Some(global);
            }
        }
        for (_, local) in self.kernel.locals.iter() {
            let class = RegClass::of(local.ty);
            let reg = self.fresh(class);
            let (op, zero) = match class {
                RegClass::Pred => ((O::Mov, &[PRED]), Operand::Imm(0)),
                RegClass::B32 => ((O::Mov, &[B32]), Operand::Imm(0)),
                RegClass::B64 => ((O::Mov, &[B64]), Operand::Imm(0)),
                RegClass::F32 => ((O::Mov, &[F32]), Operand::F32(0)),
                RegClass::F64 => ((O::Mov, &[F64]), Operand::F64(0)),
                RegClass::B16 => ((O::Mov, &[B16]), Operand::Imm(0)),
            };
            self.inst((op.0, op.1), vec![Operand::Reg(reg), zero]);
            self.locals.push(reg);
        }
    }

    fn block(&mut self, block: &[Stmt]) {
        for (i, stmt) in block.iter().enumerate() {
            self.source.push_index(i);
            self.mark_loc();
            self.stmt(stmt);
            self.source.pop();
        }
    }

    /// The block `name` (`then`, `else`, `loop`) of the statement being lowered.
    fn nested(&mut self, name: &'static str, block: &[Stmt]) {
        self.source.push_block(name);
        self.block(block);
        self.source.pop();
    }

    /// Writes a `.loc` line when the statement being lowered has a position other than the one in
    /// force.
    fn mark_loc(&mut self) {
        if let Some(line) = self.source.mark() {
            self.body.push(line);
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Let { value, expr } => self.let_expr(*value, expr),
            Stmt::Assign { local, value } => {
                let dst = self.local(*local);
                let src = self.op(*value);
                self.inst(mov_op(dst.class), vec![Operand::Reg(dst), src]);
            }
            Stmt::Load {
                value,
                array,
                index,
            } => self.load(*value, *array, *index),
            Stmt::Store {
                array,
                index,
                value,
            } => self.store(*array, *index, *value),
            Stmt::LoadByte {
                value,
                array,
                index,
            } => self.load_byte(*value, *array, *index),
            Stmt::StoreByte {
                array,
                index,
                value,
            } => self.store_byte(*array, *index, *value),
            Stmt::LoadWide {
                values,
                array,
                index,
            } => self.load_wide(values, *array, *index),
            Stmt::StoreWide {
                array,
                index,
                values,
            } => self.store_wide(*array, *index, values),
            Stmt::Atomic {
                value,
                op,
                array,
                index,
                operand,
                compare,
            } => self.atomic(*value, *op, *array, *index, *operand, *compare),
            Stmt::If {
                cond,
                then_block,
                else_block,
            } => {
                let cond = self.reg(*cond);
                let end = self.label(LabelKind::EndIf);
                if else_block.is_empty() {
                    self.guarded(cond, true, (O::Bra, &[]), vec![Operand::Label(end)]);
                    self.nested("then", then_block);
                } else {
                    let otherwise = self.label(LabelKind::Else);
                    self.guarded(cond, true, (O::Bra, &[]), vec![Operand::Label(otherwise)]);
                    self.nested("then", then_block);
                    self.mark_loc();
                    self.branch(end);
                    self.place(otherwise);
                    self.nested("else", else_block);
                }
                self.place(end);
            }
            Stmt::Loop { body } => {
                let head = self.label(LabelKind::Loop);
                let end = self.label(LabelKind::EndLoop);
                self.place(head);
                self.loops.push((head, end));
                self.nested("loop", body);
                self.loops.pop();
                self.mark_loc();
                self.branch(head);
                self.place(end);
            }
            Stmt::Break => {
                let (_, end) = *self.loops.last().expect("verified: break is inside a loop");
                self.branch(end);
            }
            Stmt::Continue => {
                let (head, _) = *self
                    .loops
                    .last()
                    .expect("verified: continue is inside a loop");
                self.branch(head);
            }
            Stmt::Return => self.inst((O::Ret, &[]), vec![]),
            Stmt::Barrier => self.inst((O::Bar, &[M::Sync]), vec![Operand::Imm(0)]),
            Stmt::Warp(op) => self.warp(op),
        }
    }
}

/// The `mov` of a register class.
pub(crate) fn mov_op(class: RegClass) -> Op<'static> {
    match class {
        RegClass::Pred => (O::Mov, &[PRED]),
        RegClass::B32 => (O::Mov, &[B32]),
        RegClass::B64 => (O::Mov, &[B64]),
        RegClass::F32 => (O::Mov, &[F32]),
        RegClass::F64 => (O::Mov, &[F64]),
        RegClass::B16 => (O::Mov, &[B16]),
    }
}
