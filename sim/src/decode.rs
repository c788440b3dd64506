//! Lowering a verified kernel to the simulator's linear program: every statement becomes one
//! [`Inst`] with its operands resolved to register and memory indices, and structured control flow
//! becomes explicit markers (`If`/`Else`/`EndIf`, `Loop`/`LoopEnd`) that a warp's SIMT stack follows.
//! Decoding happens once per launch; the hot loop never looks at the IR again.

use warpforge_ir::{
    AtomicOp, BinaryOp, CastKind, CmpOp, Expr, Kernel, Mask, MemRef, ParamKind, ScalarType,
    ShuffleMode, SourceLoc, Special, Stmt, StmtPath, UnaryOp, VoteMode, WarpOp,
};

/// A register: a value (its handle's index) or a local (after the values).
pub(crate) type Reg = u32;

/// Where a memory instruction points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Space {
    /// Global buffer number `n` (counting buffer parameters only, in parameter order).
    Global(u32),
    /// Shared memory: the array's byte offset in the block's shared memory.
    Shared {
        /// Byte offset of the array.
        offset: u32,
    },
}

/// A memory operand: the array, its element size and its length in bytes (shared arrays; global
/// lengths come from the launch's buffers), and its name for findings.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mem {
    pub space: Space,
    /// Element type (`u32` for wide accesses and atomics).
    pub elem: ScalarType,
    /// Index into [`Program::arrays`] (the array's name).
    pub array: u32,
    /// Shared arrays: declared size in bytes.
    pub shared_len: u32,
}

/// A pure operation, per lane.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Op {
    /// A constant (literals; scalar parameters are resolved at launch).
    Const(u64),
    /// A hardware index.
    Special(Special),
    /// Copy of a register (reading a local).
    Copy(Reg),
    Unary(UnaryOp, ScalarType, Reg),
    Binary(BinaryOp, ScalarType, Reg, Reg),
    MulWide {
        signed: bool,
        a: Reg,
        b: Reg,
    },
    /// `a * b + c` on `f32`, one rounding.
    MulAdd(ScalarType, Reg, Reg, Reg),
    /// `(hi:lo) >> (shift mod 32)` on `u32`.
    FunnelShr(Reg, Reg, Reg),
    Compare(CmpOp, ScalarType, Reg, Reg),
    Select {
        cond: Reg,
        a: Reg,
        b: Reg,
    },
    Cast {
        kind: CastKind,
        from: ScalarType,
        to: ScalarType,
        a: Reg,
    },
}

/// A collective's mask.
#[derive(Clone, Copy, Debug)]
pub(crate) enum LaneMask {
    Const(u32),
    Reg(Reg),
}

/// One instruction of the linear program.
#[derive(Clone, Debug)]
pub(crate) enum Inst {
    Let {
        dst: Reg,
        op: Op,
    },
    Load {
        dst: Reg,
        mem: Mem,
        index: Reg,
    },
    Store {
        mem: Mem,
        index: Reg,
        src: Reg,
    },
    LoadWide {
        dsts: Vec<Reg>,
        mem: Mem,
        index: Reg,
    },
    StoreWide {
        mem: Mem,
        index: Reg,
        srcs: Vec<Reg>,
    },
    Atomic {
        dst: Reg,
        op: AtomicOp,
        mem: Mem,
        index: Reg,
        operand: Reg,
        compare: Option<Reg>,
    },
    /// Splits the active lanes on `cond`; the else branch starts after `else_pc`, the join is `end_pc`.
    If {
        cond: Reg,
        else_pc: u32,
        end_pc: u32,
    },
    /// End of the then branch.
    Else,
    /// The join of an `if`.
    EndIf,
    /// Loop entry; its `LoopEnd` is at `end_pc`.
    Loop {
        end_pc: u32,
    },
    /// The loop's back edge.
    LoopEnd,
    Break,
    Continue,
    Return,
    Barrier,
    Shuffle {
        dst: Reg,
        mode: ShuffleMode,
        src: Reg,
        lane: Reg,
        mask: LaneMask,
    },
    Ballot {
        dst: Reg,
        pred: Reg,
        mask: LaneMask,
    },
    Vote {
        dst: Reg,
        mode: VoteMode,
        pred: Reg,
        mask: LaneMask,
    },
    MatchAny {
        dst: Reg,
        src: Reg,
        mask: LaneMask,
    },
    WarpSync {
        mask: LaneMask,
    },
    /// End of the kernel body.
    Exit,
}

/// The decoded kernel.
#[derive(Clone, Debug)]
pub(crate) struct Program {
    pub insts: Vec<Inst>,
    /// The statement path of each instruction (`body[3].then[1]`); markers carry their statement's.
    pub paths: Vec<String>,
    /// The Rust source position of each instruction's statement, where the kernel records one.
    pub sources: Vec<Option<SourceLoc>>,
    /// Registers: values, then locals.
    pub regs: usize,
    /// Names of arrays (buffer parameters, then shared arrays), indexed by [`Mem::array`].
    pub arrays: Vec<String>,
    /// Bytes of shared memory per block.
    pub shared_bytes: u32,
    /// Threads per block.
    pub block_size: u32,
    /// The block's dimensions (x, y, z).
    pub block_dims: [u32; 3],
    /// The grid's dimensions (x, y, z), set by the launch.
    pub grid_dims: [u32; 3],
    /// Whether any atomic touches global memory (blocks then run in a fixed order, see the module docs).
    pub global_atomics: bool,
}

/// Decodes `kernel` (verified), with the scalar parameters' bits in parameter order.
pub(crate) fn decode(kernel: &Kernel, scalars: &[u64]) -> Program {
    let mut arrays = Vec::new();
    let mut buffer_index = Vec::new();
    let mut scalar_bits = Vec::new();
    let mut next_scalar = 0;
    for (_, param) in kernel.params.iter() {
        match param.kind {
            ParamKind::Buffer { .. } => {
                buffer_index.push(arrays.len() as u32);
                arrays.push(param.name.clone());
                scalar_bits.push(0);
            }
            ParamKind::Scalar(_) => {
                buffer_index.push(u32::MAX);
                scalar_bits.push(scalars.get(next_scalar).copied().unwrap_or(0));
                next_scalar += 1;
            }
        }
    }
    let first_shared = arrays.len() as u32;
    arrays.extend(kernel.shared.iter().map(|(_, s)| s.name.clone()));
    let offsets = kernel.shared_offsets().unwrap_or_default();
    let first_local = kernel.values.len() as u32;
    let mut d = Decoder {
        kernel,
        buffer_index,
        scalar_bits,
        first_shared,
        offsets,
        first_local,
        insts: Vec::new(),
        paths: Vec::new(),
        sources: Vec::new(),
        path: StmtPath::body(),

        global_atomics: false,
    };
    d.block(&kernel.body);
    d.push(Inst::Exit, "end of kernel".into());
    Program {
        insts: d.insts,
        paths: d.paths,
        sources: d.sources,
        regs: kernel.values.len() + kernel.locals.len(),
        arrays,
        shared_bytes: kernel.shared_bytes().unwrap_or(0) as u32,
        block_size: kernel.block_size,
        block_dims: kernel.block_dims(),
        grid_dims: [1, 1, 1],
        global_atomics: d.global_atomics,
    }
}

struct Decoder<'k> {
    kernel: &'k Kernel,
    /// Per parameter: its buffer number (or `u32::MAX` for scalars).
    buffer_index: Vec<u32>,
    /// Per parameter: its bits (scalars).
    scalar_bits: Vec<u64>,
    first_shared: u32,
    offsets: Vec<u64>,
    first_local: u32,
    insts: Vec<Inst>,
    paths: Vec<String>,
    sources: Vec<Option<SourceLoc>>,
    path: StmtPath,

    global_atomics: bool,
}

impl Decoder<'_> {
    fn path_text(&self) -> String {
        self.path.to_string()
    }

    fn push(&mut self, inst: Inst, path: String) -> u32 {
        self.insts.push(inst);
        self.sources.push(self.kernel.locs.get(&path).cloned());
        self.paths.push(path);
        (self.insts.len() - 1) as u32
    }

    fn block(&mut self, stmts: &[Stmt]) {
        for (i, stmt) in stmts.iter().enumerate() {
            self.path.push_index(i);
            self.stmt(stmt);
            self.path.pop();
        }
    }

    fn nested(&mut self, name: &str, stmts: &[Stmt]) {
        self.path.push_block(name);
        self.block(stmts);
        self.path.pop();
    }

    fn mem(&mut self, array: MemRef) -> Mem {
        match array {
            MemRef::Global(p) => {
                let elem = match self.kernel.params[p].kind {
                    ParamKind::Buffer { elem, .. } => elem,
                    ParamKind::Scalar(t) => t,
                };
                let n = self.buffer_index[p.index()];
                Mem {
                    space: Space::Global(n),
                    elem,
                    array: n,
                    shared_len: 0,
                }
            }
            MemRef::Shared(s) => {
                let array = &self.kernel.shared[s];
                Mem {
                    space: Space::Shared {
                        offset: self.offsets.get(s.index()).copied().unwrap_or(0) as u32,
                    },
                    elem: array.elem,
                    array: self.first_shared + s.index() as u32,
                    shared_len: array.size_bytes().unwrap_or(0) as u32,
                }
            }
        }
    }

    /// The memory operand of a load or store: a byte access (`load.u8`, `store.u8`) sees its `u32`
    /// array's memory as bytes, indexed by byte.
    fn access(&mut self, stmt: &Stmt, array: MemRef) -> Mem {
        let mem = self.mem(array);
        match stmt {
            Stmt::LoadByte { .. } | Stmt::StoreByte { .. } => Mem {
                elem: ScalarType::U8,
                ..mem
            },
            _ => mem,
        }
    }

    fn mask(mask: Mask) -> LaneMask {
        match mask {
            Mask::Const(bits) => LaneMask::Const(bits),
            Mask::Dynamic(v) => LaneMask::Reg(v.index() as u32),
        }
    }

    fn ty(&self, v: warpforge_ir::Value) -> ScalarType {
        self.kernel.values[v].ty
    }

    fn op(&self, expr: &Expr) -> Op {
        let r = |v: warpforge_ir::Value| v.index() as u32;
        match *expr {
            Expr::Literal(lit) => Op::Const(lit.to_bits()),
            Expr::Param(p) => Op::Const(self.scalar_bits[p.index()]),
            Expr::Special(s) => Op::Special(s),
            Expr::Local(l) => Op::Copy(self.first_local + l.index() as u32),
            Expr::Unary(op, a) => Op::Unary(op, self.ty(a), r(a)),
            Expr::Binary(op, a, b) => Op::Binary(op, self.ty(a), r(a), r(b)),
            Expr::MulWide(a, b) => Op::MulWide {
                signed: self.ty(a).is_signed(),
                a: r(a),
                b: r(b),
            },
            Expr::MulAdd(a, b, c) => Op::MulAdd(self.ty(a), r(a), r(b), r(c)),
            Expr::FunnelShr(a, b, c) => Op::FunnelShr(r(a), r(b), r(c)),
            Expr::Compare(op, a, b) => Op::Compare(op, self.ty(a), r(a), r(b)),
            Expr::Select {
                cond,
                if_true,
                if_false,
            } => Op::Select {
                cond: r(cond),
                a: r(if_true),
                b: r(if_false),
            },
            Expr::Cast(kind, a, to) => Op::Cast {
                kind,
                from: self.ty(a),
                to,
                a: r(a),
            },
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        let r = |v: warpforge_ir::Value| v.index() as u32;
        let path = self.path_text();
        match stmt {
            Stmt::Let { value, expr } => {
                let op = self.op(expr);
                self.push(Inst::Let { dst: r(*value), op }, path);
            }
            Stmt::Assign { local, value } => {
                let dst = self.first_local + local.index() as u32;
                self.push(
                    Inst::Let {
                        dst,
                        op: Op::Copy(r(*value)),
                    },
                    path,
                );
            }
            Stmt::Load {
                value,
                array,
                index,
            }
            | Stmt::LoadByte {
                value,
                array,
                index,
            } => {
                let mem = self.access(stmt, *array);
                self.push(
                    Inst::Load {
                        dst: r(*value),
                        mem,
                        index: r(*index),
                    },
                    path,
                );
            }
            Stmt::Store {
                array,
                index,
                value,
            }
            | Stmt::StoreByte {
                array,
                index,
                value,
            } => {
                let mem = self.access(stmt, *array);
                self.push(
                    Inst::Store {
                        mem,
                        index: r(*index),
                        src: r(*value),
                    },
                    path,
                );
            }
            Stmt::LoadWide {
                values,
                array,
                index,
            } => {
                let mem = self.mem(*array);
                let dsts = values.iter().map(|v| r(*v)).collect();
                self.push(
                    Inst::LoadWide {
                        dsts,
                        mem,
                        index: r(*index),
                    },
                    path,
                );
            }
            Stmt::StoreWide {
                array,
                index,
                values,
            } => {
                let mem = self.mem(*array);
                let srcs = values.iter().map(|v| r(*v)).collect();
                self.push(
                    Inst::StoreWide {
                        mem,
                        index: r(*index),
                        srcs,
                    },
                    path,
                );
            }
            Stmt::Atomic {
                value,
                op,
                array,
                index,
                operand,
                compare,
            } => {
                let mem = self.mem(*array);
                if matches!(mem.space, Space::Global(_)) {
                    self.global_atomics = true;
                }
                self.push(
                    Inst::Atomic {
                        dst: r(*value),
                        op: *op,
                        mem,
                        index: r(*index),
                        operand: r(*operand),
                        compare: compare.map(r),
                    },
                    path,
                );
            }
            Stmt::If {
                cond,
                then_block,
                else_block,
            } => {
                let at = self.push(
                    Inst::If {
                        cond: r(*cond),
                        else_pc: 0,
                        end_pc: 0,
                    },
                    path.clone(),
                );
                self.nested("then", then_block);
                let else_pc = self.push(Inst::Else, path.clone());
                self.nested("else", else_block);
                let end_pc = self.push(Inst::EndIf, path);
                self.insts[at as usize] = Inst::If {
                    cond: r(*cond),
                    else_pc,
                    end_pc,
                };
            }
            Stmt::Loop { body } => {
                let at = self.push(Inst::Loop { end_pc: 0 }, path.clone());

                self.nested("loop", body);

                let end_pc = self.push(Inst::LoopEnd, path);
                self.insts[at as usize] = Inst::Loop { end_pc };
            }
            Stmt::Break => {
                self.push(Inst::Break, path);
            }
            Stmt::Continue => {
                self.push(Inst::Continue, path);
            }
            Stmt::Return => {
                self.push(Inst::Return, path);
            }
            Stmt::Barrier => {
                self.push(Inst::Barrier, path);
            }
            Stmt::Warp(op) => {
                let inst = match *op {
                    WarpOp::Shuffle {
                        value,
                        mode,
                        src,
                        lane,
                        mask,
                    } => Inst::Shuffle {
                        dst: r(value),
                        mode,
                        src: r(src),
                        lane: r(lane),
                        mask: Self::mask(mask),
                    },
                    WarpOp::Ballot { value, pred, mask } => Inst::Ballot {
                        dst: r(value),
                        pred: r(pred),
                        mask: Self::mask(mask),
                    },
                    WarpOp::Vote {
                        value,
                        mode,
                        pred,
                        mask,
                    } => Inst::Vote {
                        dst: r(value),
                        mode,
                        pred: r(pred),
                        mask: Self::mask(mask),
                    },
                    WarpOp::MatchAny { value, src, mask } => Inst::MatchAny {
                        dst: r(value),
                        src: r(src),
                        mask: Self::mask(mask),
                    },
                    WarpOp::Sync { mask } => Inst::WarpSync {
                        mask: Self::mask(mask),
                    },
                };
                self.push(inst, path);
            }
        }
    }
}
