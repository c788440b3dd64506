//! Verified warpforge IR → [`Program`]: IR values and locals become variables, structured control
//! flow becomes basic blocks and edges (`if` → branch and join, `loop` → header, back edge and exit,
//! `break` / `continue` / `return` → edges to the loop exit / header / function exit).

use petgraph::graph::{DiGraph, NodeIndex};
use warpforge_ir::{
    Access, BinaryOp, CastKind, CmpOp, Expr, Kernel, Mask, MemRef, ParamKind, ShuffleMode,
    Special as IrSpecial, Stmt, StmtPath, UnaryOp, Verified, WarpOp,
};

use crate::program::{
    Address, Arith, Block, Cmp, Collective, Inst, Location, MaskInfo, Op, Program, SharedDecl,
    Space, Special, Terminator, Var, WarpAlignment,
};

/// Lowers a verified kernel.
pub fn program_of(kernel: &Verified<'_>) -> Program {
    let k = kernel.kernel();
    let mut names: Vec<String> = (0..k.values.len()).map(|i| format!("%{i}")).collect();
    names.extend(k.locals.iter().map(|(_, l)| format!("local `{}`", l.name)));
    let mut b = Builder {
        k,
        cfg: DiGraph::new(),
        cur: NodeIndex::new(0),
        loops: Vec::new(),
        path: StmtPath::body(),
        taken: Vec::new(),
        temps: 0,
    };
    b.cur = b.cfg.add_node(empty_block());
    let entry = b.cur;
    b.block(&k.body);
    b.terminate(Terminator::Return);
    names.extend((0..b.temps).map(|i| format!("coordinate temporary {i}")));
    let shared = k
        .shared
        .iter()
        .map(|(_, s)| SharedDecl {
            name: s.name.clone(),
            bytes: s.size_bytes().unwrap_or(0),
            align: s.align,
        })
        .collect();
    Program {
        name: k.name.clone(),
        block_size: Some(k.block_size),
        block_threads: Some(k.block_size),
        warp_aligned_x: WarpAlignment::Known(k.block_size % 32 == 0),
        thread_range_exact: true,
        var_names: names,
        var_bits: k
            .values
            .iter()
            .map(|(_, v)| v.ty.bits() as u8)
            .chain(k.locals.iter().map(|(_, l)| l.ty.bits() as u8))
            .chain((0..b.temps).map(|_| 32))
            .collect(),
        taken: {
            let mut taken = b.taken;
            taken.resize(b.cfg.node_count(), None);
            taken
        },
        cfg: b.cfg,
        entry,
        sources: k
            .locs
            .iter()
            .map(|(path, loc)| (Location::Ir(path.to_owned()), loc.clone()))
            .collect(),
        shared,
        unknown: Vec::new(),
    }
}

fn empty_block() -> Block {
    Block {
        insts: Vec::new(),
        term: Terminator::Jump,
    }
}

struct Builder<'k> {
    k: &'k Kernel,
    cfg: DiGraph<Block, ()>,
    cur: NodeIndex,
    /// (continue target, break target) of open loops.
    loops: Vec<(NodeIndex, NodeIndex)>,
    path: StmtPath,
    /// [`Program::taken`].
    taken: Vec<Option<(NodeIndex, bool)>>,
    /// Variables the lowering adds after the values and locals (a thread's coordinates).
    temps: usize,
}

fn arith_of_binary(op: BinaryOp) -> Arith {
    match op {
        BinaryOp::Add => Arith::Add,
        BinaryOp::Sub => Arith::Sub,
        BinaryOp::Mul => Arith::Mul,
        BinaryOp::Shl => Arith::Shl,
        BinaryOp::Shr => Arith::Shr,
        BinaryOp::And => Arith::And,
        BinaryOp::Or => Arith::Or,
        BinaryOp::Min => Arith::Min,
        BinaryOp::Max => Arith::Max,
        BinaryOp::Rem => Arith::Rem,
        BinaryOp::Div => Arith::Div,
        BinaryOp::Xor => Arith::Xor,
        BinaryOp::MulHi | BinaryOp::CopySign => Arith::Other,
    }
}

impl Builder<'_> {
    fn loc(&self) -> Location {
        Location::Ir(self.path.to_string())
    }

    fn local_var(&self, l: warpforge_ir::LocalId) -> Var {
        self.k.values.len() + l.index()
    }

    /// A fresh variable after the values and locals.
    fn temp(&mut self) -> Var {
        self.temps += 1;
        self.k.values.len() + self.k.locals.len() + self.temps - 1
    }

    /// A fresh variable holding `c`.
    fn constant(&mut self, c: u64) -> Var {
        let v = self.temp();
        self.push(Op::Const(c), vec![v], vec![]);
        v
    }

    /// The operation defining a thread's x, y or z coordinate from its linear index `t` (in the
    /// block's shape `Bx × By × Bz`): `t % Bx`, `t / Bx % By`, `t / (Bx·By)`; in a 1-D block `t`,
    /// 0, 0. Its facts and divergence then follow from the linear index's.
    fn thread_coordinate(&mut self, s: IrSpecial) -> (Op, Vec<Var>) {
        let d = s.dimension().unwrap_or(0);
        if self.k.block_dims()[d] == 1 {
            // A dimension of extent 1: the coordinate is 0, uniform.
            return (Op::Const(0), vec![]);
        }
        if self.k.block_shape.is_none() {
            return (Op::Special(Special::Thread), vec![]);
        }
        let [bx, by, _] = self.k.block_dims().map(u64::from);
        let t = self.temp();
        self.push(Op::Special(Special::Thread), vec![t], vec![]);
        match d {
            0 => (Op::Arith(Arith::Rem), vec![t, self.constant(bx)]),
            1 => {
                let row = self.temp();
                let c = self.constant(bx);
                self.push(Op::Arith(Arith::Div), vec![row], vec![t, c]);
                (Op::Arith(Arith::Rem), vec![row, self.constant(by)])
            }
            _ => (Op::Arith(Arith::Div), vec![t, self.constant(bx * by)]),
        }
    }

    fn push(&mut self, op: Op, defs: Vec<Var>, uses: Vec<Var>) {
        let inst = Inst {
            loc: self.loc(),
            op,
            defs,
            uses,
            guard: None,
        };
        self.cfg[self.cur].insts.push(inst);
    }

    fn terminate(&mut self, term: Terminator) {
        self.cfg[self.cur].term = term;
    }

    /// Ends the current block with a jump to `to` and continues in a fresh, unreachable block.
    fn jump_away(&mut self, to: Option<NodeIndex>, term: Terminator) {
        self.terminate(term);
        if let Some(to) = to {
            self.cfg.add_edge(self.cur, to, ());
        }
        self.cur = self.cfg.add_node(empty_block());
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

    fn address(&self, array: MemRef, index: warpforge_ir::Value) -> (Address, bool) {
        let (space, elem, read_only) = match array {
            MemRef::Global(p) => match self.k.params[p].kind {
                ParamKind::Buffer { elem, access } => {
                    (Space::Global, elem, access == Access::ReadOnly)
                }
                ParamKind::Scalar(t) => (Space::Global, t, false),
            },
            MemRef::Shared(s) => (Space::Shared(Some(s.index())), self.k.shared[s].elem, false),
        };
        let elem_bytes = elem.size_bytes().unwrap_or(1);
        (
            Address {
                space,
                byte_var: None,
                index_var: Some(index.index()),
                elem_bytes,
                offset: 0,
            },
            read_only,
        )
    }

    /// [`address`](Self::address) of a load or store; a byte access (`load.u8`, `store.u8`) indexes
    /// its `u32` array by byte.
    fn access(&self, stmt: &Stmt, array: MemRef, index: warpforge_ir::Value) -> (Address, bool) {
        let (mut addr, read_only) = self.address(array, index);
        if matches!(stmt, Stmt::LoadByte { .. } | Stmt::StoreByte { .. }) {
            addr.elem_bytes = 1;
        }
        (addr, read_only)
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Let { value, expr } => {
                let uses: Vec<Var> = warpforge_ir::typing::expr_operands(expr)
                    .iter()
                    .map(|v| v.index())
                    .collect();
                let (op, uses) = match *expr {
                    Expr::Literal(lit) => (Op::Const(lit.to_bits()), uses),
                    Expr::Param(_) => (Op::Param, uses),
                    Expr::Special(
                        s @ (IrSpecial::ThreadIndexX
                        | IrSpecial::ThreadIndexY
                        | IrSpecial::ThreadIndexZ),
                    ) => self.thread_coordinate(s),
                    Expr::Special(s) => (
                        Op::Special(match s {
                            IrSpecial::ThreadIndex => Special::Thread,
                            IrSpecial::LaneId => Special::Lane,
                            IrSpecial::WarpIndex => Special::Warp,
                            _ => Special::Uniform,
                        }),
                        uses,
                    ),
                    Expr::Local(l) => (Op::Arith(Arith::Mov), vec![self.local_var(l)]),
                    Expr::Binary(op, _, _) => (Op::Arith(arith_of_binary(op)), uses),
                    Expr::MulWide(_, _) => (Op::Arith(Arith::Mul), uses),
                    Expr::Compare(cmp, a, _)
                        if self.k.value_type(a).is_some_and(|t| t.is_integer()) =>
                    {
                        let signed = self.k.value_type(a).is_some_and(|t| t.is_signed());
                        let cmp = match cmp {
                            CmpOp::Lt => Cmp::Lt,
                            CmpOp::Le => Cmp::Le,
                            CmpOp::Gt => Cmp::Gt,
                            CmpOp::Ge => Cmp::Ge,
                            CmpOp::Eq => Cmp::Eq,
                            CmpOp::Ne => Cmp::Ne,
                        };
                        (Op::Arith(Arith::Cmp(cmp, signed)), uses)
                    }
                    Expr::Select {
                        cond,
                        if_true,
                        if_false,
                    } => (
                        Op::Arith(Arith::Select),
                        vec![if_true.index(), if_false.index(), cond.index()],
                    ),
                    Expr::Cast(CastKind::ZeroExtend, _, _) => (Op::Arith(Arith::Mov), uses),
                    Expr::Unary(UnaryOp::Not | UnaryOp::Neg, _)
                    | Expr::Unary(..)
                    | Expr::Cast(..)
                    | Expr::MulAdd(..)
                    | Expr::FunnelShr(..)
                    | Expr::Compare(..) => (Op::Arith(Arith::Other), uses),
                };
                self.push(op, vec![value.index()], uses);
            }
            Stmt::Assign { local, value } => {
                let var = self.local_var(*local);
                self.push(Op::Arith(Arith::Mov), vec![var], vec![value.index()]);
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
                let (addr, read_only) = self.access(stmt, *array, *index);
                let width = addr.elem_bytes;
                self.push(
                    Op::Load {
                        addr,
                        width,
                        read_only,
                    },
                    vec![value.index()],
                    vec![index.index()],
                );
            }
            Stmt::LoadWide {
                values,
                array,
                index,
            } => {
                let (addr, read_only) = self.address(*array, *index);
                let width = 4 * values.len() as u32;
                self.push(
                    Op::Load {
                        addr,
                        width,
                        read_only,
                    },
                    values.iter().map(|v| v.index()).collect(),
                    vec![index.index()],
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
                let (addr, _) = self.access(stmt, *array, *index);
                let width = addr.elem_bytes;
                let values = vec![value.index()];
                self.push(
                    Op::Store {
                        addr,
                        width,
                        values,
                    },
                    vec![],
                    vec![index.index(), value.index()],
                );
            }
            Stmt::StoreWide {
                array,
                index,
                values,
            } => {
                let (addr, _) = self.address(*array, *index);
                let width = 4 * values.len() as u32;
                let vals: Vec<Var> = values.iter().map(|v| v.index()).collect();
                let mut uses = vec![index.index()];
                uses.extend(&vals);
                self.push(
                    Op::Store {
                        addr,
                        width,
                        values: vals,
                    },
                    vec![],
                    uses,
                );
            }
            Stmt::Atomic {
                value,
                array,
                index,
                operand,
                compare,
                ..
            } => {
                let (addr, _) = self.address(*array, *index);
                let mut uses = vec![index.index(), operand.index()];
                uses.extend(compare.map(|c| c.index()));
                self.push(Op::Atomic { addr }, vec![value.index()], uses);
            }
            Stmt::If {
                cond,
                then_block,
                else_block,
            } => {
                let loc = self.loc();
                self.terminate(Terminator::Branch {
                    cond: cond.index(),
                    loc,
                });
                let head = self.cur;
                let join = self.cfg.add_node(empty_block());
                let then_entry = self.cfg.add_node(empty_block());
                self.cfg.add_edge(head, then_entry, ());
                if self.taken.len() <= head.index() {
                    self.taken.resize(head.index() + 1, None);
                }
                self.taken[head.index()] = Some((then_entry, true));
                self.cur = then_entry;
                self.nested("then", then_block);
                self.cfg.add_edge(self.cur, join, ());
                if else_block.is_empty() {
                    self.cfg.add_edge(head, join, ());
                } else {
                    let else_entry = self.cfg.add_node(empty_block());
                    self.cfg.add_edge(head, else_entry, ());
                    self.cur = else_entry;
                    self.nested("else", else_block);
                    self.cfg.add_edge(self.cur, join, ());
                }
                self.cur = join;
            }
            Stmt::Loop { body } => {
                let header = self.cfg.add_node(empty_block());
                let exit = self.cfg.add_node(empty_block());
                self.cfg.add_edge(self.cur, header, ());
                self.cur = header;
                self.loops.push((header, exit));
                self.nested("loop", body);
                self.loops.pop();
                self.cfg.add_edge(self.cur, header, ());
                self.cur = exit;
            }
            Stmt::Break => {
                let exit = self.loops.last().map(|l| l.1);
                self.jump_away(exit, Terminator::Jump);
            }
            Stmt::Continue => {
                let header = self.loops.last().map(|l| l.0);
                self.jump_away(header, Terminator::Jump);
            }
            Stmt::Return => self.jump_away(None, Terminator::Return),
            Stmt::Barrier => self.push(Op::Barrier, vec![], vec![]),
            Stmt::Warp(op) => {
                let mask = match op.mask() {
                    Mask::Const(m) => MaskInfo::Const(m),
                    Mask::Dynamic(v) => MaskInfo::Var(v.index()),
                };
                let mask_use: Vec<Var> = match mask {
                    MaskInfo::Var(v) => vec![v],
                    MaskInfo::Const(_) => vec![],
                };
                let (kind, defs, mut uses) = match *op {
                    WarpOp::Shuffle {
                        value,
                        mode,
                        src,
                        lane,
                        ..
                    } => (
                        Collective::Shuffle {
                            index_mode: mode == ShuffleMode::Index,
                        },
                        vec![value.index()],
                        vec![src.index(), lane.index()],
                    ),
                    WarpOp::Ballot { value, pred, .. } => {
                        (Collective::Ballot, vec![value.index()], vec![pred.index()])
                    }
                    WarpOp::Vote { value, pred, .. } => {
                        (Collective::Vote, vec![value.index()], vec![pred.index()])
                    }
                    WarpOp::MatchAny { value, src, .. } => {
                        (Collective::Match, vec![value.index()], vec![src.index()])
                    }
                    WarpOp::Sync { .. } => (Collective::Sync, vec![], vec![]),
                };
                uses.extend(mask_use);
                self.push(Op::Collective { kind, mask }, defs, uses);
            }
        }
    }
}
