//! Decoding memory and synchronization: `ld`/`ldu`/`st` in every space and vector width, `atom` and
//! `red`, `cvta`, block barriers (`bar`, `barrier`), and the warp-level `.sync` instructions
//! (`bar.warp.sync`, `shfl.sync`, `vote.sync`, `match.sync`, `redux.sync`, `activemask`). Cache
//! operators, eviction priorities and memory-ordering qualifiers are accepted and have no effect:
//! the simulator has no caches and is sequentially consistent.

use warpforge_ptx::isa::Modifier as M;
use warpforge_ptx::isa::Opcode as O;
use warpforge_ptx::parse::{DataType, Instruction, OperandKind};

use super::decode::{int_type, operands, storage_type, Decoder, Imm, Mods};
use super::decode_operands::reg_operand;
use super::inst::{AtomOp, BarKind, BarRed, Int, MemSpace, Op, ReduxOp, ShflMode, Ty, VoteMode};
use crate::race::{Sem, Strength};

/// Whether a modifier is a hint or an ordering qualifier with nothing to simulate.
fn is_hint(m: &M) -> bool {
    matches!(
        m,
        M::Ca
            | M::Cg
            | M::Cs
            | M::Lu
            | M::Cv
            | M::Wb
            | M::Wt
            | M::Nc
            | M::Weak
            | M::Volatile
            | M::Relaxed
            | M::Acquire
            | M::Release
            | M::AcqRel
            | M::Cta
            | M::Gpu
            | M::Sys
    ) || m.is_cache_hint()
}

/// The state space among the modifiers (generic when none).
fn space(mods: &mut Mods) -> Result<MemSpace, String> {
    Ok(
        match mods.one_of(&[
            M::Global,
            M::Shared,
            M::SharedCta,
            M::Local,
            M::Param,
            M::ParamEntry,
            M::Const,
        ]) {
            Some(M::Global) => MemSpace::Global,
            Some(M::Shared | M::SharedCta) => MemSpace::Shared,
            Some(M::Local) => MemSpace::Local,
            Some(M::Param | M::ParamEntry) => MemSpace::Param,
            Some(M::Const) => MemSpace::Const,
            _ => MemSpace::Generic,
        },
    )
}

fn one_type(mods: &mut Mods) -> Result<DataType, String> {
    match mods.types().as_slice() {
        [t] => Ok(*t),
        [] => Err("no type modifier".into()),
        more => Err(format!(
            "{} type modifiers where one is expected",
            more.len()
        )),
    }
}

impl Decoder<'_> {
    /// `ld`, `ldu`, `st`, `atom`, `red`, `cvta`.
    pub(crate) fn memory(&mut self, inst: &Instruction) -> Result<Op, String> {
        let mut mods = Mods::new(inst);
        let op = match inst.opcode {
            O::Cvta => {
                let to_generic = !mods.take(M::To);
                let space = space(&mut mods)?;
                if !matches!(space, MemSpace::Global | MemSpace::Shared | MemSpace::Local) {
                    return Err(format!("`cvta` with `.{}` is not supported", space.name()));
                }
                let bits = match one_type(&mut mods)? {
                    DataType::U32 => 32,
                    DataType::U64 => 64,
                    other => {
                        return Err(format!(
                            "`cvta.{}`: expected `.u32` or `.u64`",
                            other.name()
                        ))
                    }
                };
                let [d, a] = operands::<2>(inst)?;
                Op::Cvta {
                    space,
                    to_generic,
                    d: self.dst(d, bits)?,
                    a: self.src(a, Imm::Int)?,
                    bits,
                }
            }
            O::Ld | O::Ldu | O::St => {
                // Strong in the PTX memory model (morally strong with atomics and each other within
                // the scope: `.cta` the block, `.gpu`/`.sys`, or `.volatile` = `.relaxed.sys`, the
                // device; `.cluster` is taken as the block).
                let strong = if mods.has(M::Volatile) {
                    Strength::Device
                } else if ![M::Relaxed, M::Acquire, M::Release]
                    .iter()
                    .any(|m| mods.has(m.clone()))
                {
                    Strength::Plain
                } else if mods.has(M::Cta) || mods.has(M::Cluster) {
                    Strength::Block
                } else {
                    Strength::Device
                };
                let store = inst.opcode == O::St;
                let sem = Sem {
                    acquire: !store && mods.has(M::Acquire),
                    release: store && mods.has(M::Release),
                };
                mods.ignore_if(is_hint);
                let space = space(&mut mods)?;
                let count = match mods.one_of(&[M::V2, M::V4]) {
                    Some(M::V2) => 2,
                    Some(_) => 4,
                    None => 1,
                };
                let t = one_type(&mut mods)?;
                let ty = storage_type(t)
                    .filter(|t| t.bits() >= 8)
                    .ok_or_else(|| format!("`.{}` accesses are not supported", t.name()))?;
                if inst.operands.len() != 2 {
                    return Err(format!(
                        "expected 2 operands, found {}",
                        inst.operands.len()
                    ));
                }
                let imm = match ty {
                    Ty::F32 => Imm::F32,
                    Ty::F64 => Imm::F64,
                    Ty::Int(_) => Imm::Int,
                };
                let (value, address) = if inst.opcode == O::St {
                    (&inst.operands[1], &inst.operands[0])
                } else {
                    (&inst.operands[0], &inst.operands[1])
                };
                let space = match (space, self.symbol_space(address)) {
                    (MemSpace::Generic, Some(s)) if s != MemSpace::Global => s,
                    // A call's argument or a function's parameter: a variable of the frame.
                    (MemSpace::Param, Some(MemSpace::Local)) => MemSpace::Local,
                    (s, _) => s,
                };
                if space == MemSpace::Param && self.in_function {
                    return Err(
                        "`.param` accessed in a `.func` other than through one of its \
                                parameters or a call's variables by name"
                            .into(),
                    );
                }
                if inst.opcode == O::St && space == MemSpace::Param {
                    return Err("stores to the kernel's parameters (`.param`)".into());
                }
                if inst.opcode == O::St && space == MemSpace::Const {
                    return Err("`.const` memory cannot be written".into());
                }
                let addr = self.addr(address)?;
                let elements = match &value.kind {
                    OperandKind::Vector(parts) if parts.len() == count => parts.clone(),
                    _ if count == 1 => vec![value.clone()],
                    _ => return Err(format!("expected a vector of {count} registers")),
                };
                if inst.opcode == O::St {
                    let srcs = elements
                        .iter()
                        .map(|e| self.src(e, imm))
                        .collect::<Result<_, _>>()?;
                    Op::St {
                        space,
                        ty,
                        srcs,
                        addr,
                        strong,
                        sem,
                    }
                } else {
                    let dsts = elements
                        .iter()
                        .map(|e| match e.kind {
                            OperandKind::Sink => Ok(None),
                            _ => self.dst(e, ty.bits()).map(Some),
                        })
                        .collect::<Result<_, _>>()?;
                    Op::Ld {
                        space,
                        ty,
                        dsts,
                        addr,
                        strong,
                        sem,
                    }
                }
            }
            _ => self.atomic(inst, &mut mods)?,
        };
        mods.finish()?;
        Ok(op)
    }

    fn atomic(&mut self, inst: &Instruction, mods: &mut Mods) -> Result<Op, String> {
        let acq_rel = mods.has(M::AcqRel);
        // `red` has no acquire form (it reads nothing back).
        let sem = Sem {
            acquire: inst.opcode != O::Red && (acq_rel || mods.has(M::Acquire)),
            release: acq_rel || mods.has(M::Release),
        };
        mods.ignore(&[
            M::Relaxed,
            M::Acquire,
            M::Release,
            M::AcqRel,
            M::Cta,
            M::Gpu,
            M::Sys,
        ]);
        let space = space(mods)?;
        if !matches!(
            space,
            MemSpace::Global | MemSpace::Shared | MemSpace::Generic
        ) {
            return Err(format!("atomics on `.{}` are not supported", space.name()));
        }
        let op = match mods.one_of(&[
            M::Add,
            M::Min,
            M::Max,
            M::And,
            M::Or,
            M::Xor,
            M::Exch,
            M::Cas,
            M::Inc,
            M::Dec,
        ]) {
            Some(M::Add) => AtomOp::Add,
            Some(M::Min) => AtomOp::Min,
            Some(M::Max) => AtomOp::Max,
            Some(M::And) => AtomOp::And,
            Some(M::Or) => AtomOp::Or,
            Some(M::Xor) => AtomOp::Xor,
            Some(M::Exch) => AtomOp::Exch,
            Some(M::Cas) => AtomOp::Cas,
            Some(M::Inc) => AtomOp::Inc,
            Some(M::Dec) => AtomOp::Dec,
            _ => return Err("no atomic operation (`.add`, `.cas`, …)".into()),
        };
        let t = one_type(mods)?;
        let (op, ty) = match (op, t) {
            (AtomOp::Add, DataType::F32) => (
                AtomOp::AddF32,
                Int {
                    bits: 32,
                    signed: false,
                },
            ),
            (AtomOp::Add, DataType::F64) => (
                AtomOp::AddF64,
                Int {
                    bits: 64,
                    signed: false,
                },
            ),
            (_, DataType::F32 | DataType::F64) => {
                return Err(format!("only `.add` is supported on `.{}`", t.name()))
            }
            (op, t) => {
                let ty = int_type(t)
                    .filter(|i| matches!(i.bits, 32 | 64))
                    .ok_or_else(|| format!("atomics on `.{}` are not supported", t.name()))?;
                let ok = match op {
                    AtomOp::Add => !ty.signed || ty.bits == 32,
                    AtomOp::Inc | AtomOp::Dec => {
                        ty == Int {
                            bits: 32,
                            signed: false,
                        }
                    }
                    _ => true,
                };
                if !ok {
                    return Err(format!("`.{}` is not a type of this atomic", t.name()));
                }
                (op, ty)
            }
        };
        let red = inst.opcode == O::Red;
        let ops = &inst.operands;
        let want = 2 + usize::from(!red) + usize::from(op == AtomOp::Cas);
        if ops.len() != want {
            return Err(format!("expected {want} operands, found {}", ops.len()));
        }
        let (d, rest) = if red {
            (None, &ops[..])
        } else {
            (Some(self.dst(&ops[0], ty.bits)?), &ops[1..])
        };
        let imm = match op {
            AtomOp::AddF32 => Imm::F32,
            AtomOp::AddF64 => Imm::F64,
            _ => Imm::Int,
        };
        let addr = self.addr(&rest[0])?;
        let space = match (space, self.symbol_space(&rest[0])) {
            (MemSpace::Generic, Some(MemSpace::Shared)) => MemSpace::Shared,
            (s, _) => s,
        };
        if space != MemSpace::Shared {
            self.global_atomics = true;
        }
        let b = self.src(&rest[1], imm)?;
        let c = match rest.get(2) {
            Some(c) => Some(self.src(c, imm)?),
            None => None,
        };
        Ok(Op::Atom {
            space,
            op,
            ty,
            d,
            addr,
            b,
            c,
            sem,
        })
    }

    /// Barriers and warp-level `.sync` instructions.
    pub(crate) fn sync(&mut self, inst: &Instruction) -> Result<Op, String> {
        let mut mods = Mods::new(inst);
        let op = match inst.opcode {
            O::Bar if mods.take(M::Warp) => {
                if !mods.take(M::Sync) {
                    return Err("expected `bar.warp.sync`".into());
                }
                let [mask] = operands::<1>(inst)?;
                Op::WarpSync {
                    mask: self.src(mask, Imm::Int)?,
                }
            }
            O::Bar | O::Barrier => self.barrier(inst, &mut mods)?,
            O::Activemask => {
                if one_type(&mut mods)? != DataType::B32 {
                    return Err("expected `activemask.b32`".into());
                }
                let [d] = operands::<1>(inst)?;
                Op::Activemask {
                    d: self.dst(d, 32)?,
                }
            }
            _ => {
                if !mods.take(M::Sync) {
                    return Err(format!(
                        "`{}` without `.sync` is not supported (sm_70 and later need the `.sync` form)",
                        inst.opcode
                    ));
                }
                self.collective(inst, &mut mods)?
            }
        };
        mods.finish()?;
        Ok(op)
    }

    fn barrier(&mut self, inst: &Instruction, mods: &mut Mods) -> Result<Op, String> {
        mods.take(M::Cta);
        let aligned = inst.opcode == O::Bar || mods.take(M::Aligned);
        let kind = match mods.one_of(&[M::Sync, M::Arrive, M::Red]) {
            Some(M::Sync) => BarKind::Sync,
            Some(M::Arrive) => BarKind::Arrive,
            Some(_) => BarKind::Red(match mods.one_of(&[M::Popc, M::And, M::Or]) {
                Some(M::Popc) => BarRed::Popc,
                Some(M::And) => BarRed::And,
                Some(M::Or) => BarRed::Or,
                _ => return Err("`bar.red` needs `.popc`, `.and` or `.or`".into()),
            }),
            _ => return Err("expected `.sync`, `.arrive` or `.red`".into()),
        };
        let ops = &inst.operands;
        Ok(match kind {
            BarKind::Red(red) => {
                let t = one_type(mods)?;
                let expected = if red == BarRed::Popc {
                    DataType::U32
                } else {
                    DataType::Pred
                };
                if t != expected {
                    return Err(format!("expected `.{}`", expected.name()));
                }
                let (d, a, b, c) = match ops.as_slice() {
                    [d, a, c] => (d, a, None, c),
                    [d, a, b, c] => (d, a, Some(b), c),
                    _ => return Err("expected `d, a{, b}, {!}c`".into()),
                };
                let bits = if red == BarRed::Popc { 32 } else { 1 };
                Op::Bar {
                    kind,
                    aligned,
                    d: Some(self.dst(d, bits)?),
                    id: self.src(a, Imm::Int)?,
                    count: b.map(|b| self.src(b, Imm::Int)).transpose()?,
                    pred: Some(self.pred(c)?),
                }
            }
            _ => {
                let (a, b) = match ops.as_slice() {
                    [a] if kind == BarKind::Sync => (a, None),
                    [a, b] => (a, Some(b)),
                    _ => return Err("expected `a{, b}`".into()),
                };
                Op::Bar {
                    kind,
                    aligned,
                    d: None,
                    id: self.src(a, Imm::Int)?,
                    count: b.map(|b| self.src(b, Imm::Int)).transpose()?,
                    pred: None,
                }
            }
        })
    }

    fn collective(&mut self, inst: &Instruction, mods: &mut Mods) -> Result<Op, String> {
        match &inst.opcode {
            O::Shfl => {
                let mode = match mods.one_of(&[M::Up, M::Down, M::Bfly, M::Idx]) {
                    Some(M::Up) => ShflMode::Up,
                    Some(M::Down) => ShflMode::Down,
                    Some(M::Bfly) => ShflMode::Bfly,
                    Some(M::Idx) => ShflMode::Idx,
                    _ => return Err("expected `.up`, `.down`, `.bfly` or `.idx`".into()),
                };
                if one_type(mods)? != DataType::B32 {
                    return Err("expected `.b32`".into());
                }
                let [d, a, b, c, mask] = operands::<5>(inst)?;
                let (d, p) = match &d.kind {
                    OperandKind::PredPair(dr, pr) => (
                        self.dst(&reg_operand(d, dr), 32)?,
                        Some(self.dst(&reg_operand(d, pr), 1)?),
                    ),
                    _ => (self.dst(d, 32)?, None),
                };
                Ok(Op::Shfl {
                    mode,
                    d,
                    p,
                    a: self.src(a, Imm::Int)?,
                    b: self.src(b, Imm::Int)?,
                    c: self.src(c, Imm::Int)?,
                    mask: self.src(mask, Imm::Int)?,
                })
            }
            O::Vote => {
                let mode = match mods.one_of(&[M::All, M::Any, M::Uni, M::Ballot]) {
                    Some(M::All) => VoteMode::All,
                    Some(M::Any) => VoteMode::Any,
                    Some(M::Uni) => VoteMode::Uni,
                    Some(M::Ballot) => VoteMode::Ballot,
                    _ => return Err("expected `.all`, `.any`, `.uni` or `.ballot`".into()),
                };
                let expected = if mode == VoteMode::Ballot {
                    DataType::B32
                } else {
                    DataType::Pred
                };
                if one_type(mods)? != expected {
                    return Err(format!("expected `.{}`", expected.name()));
                }
                let [d, a, mask] = operands::<3>(inst)?;
                let (a, negate) = self.pred(a)?;
                let bits = if mode == VoteMode::Ballot { 32 } else { 1 };
                Ok(Op::Vote {
                    mode,
                    d: self.dst(d, bits)?,
                    a,
                    negate,
                    mask: self.src(mask, Imm::Int)?,
                })
            }
            O::Match => {
                let all = match mods.one_of(&[M::Any, M::All]) {
                    Some(M::Any) => false,
                    Some(_) => true,
                    None => return Err("expected `.any` or `.all`".into()),
                };
                let bits = match one_type(mods)? {
                    DataType::B32 => 32,
                    DataType::B64 => 64,
                    _ => return Err("expected `.b32` or `.b64`".into()),
                };
                let [d, a, mask] = operands::<3>(inst)?;
                let (d, p) = match &d.kind {
                    OperandKind::PredPair(dr, pr) if all => (
                        self.dst(&reg_operand(d, dr), 32)?,
                        Some(self.dst(&reg_operand(d, pr), 1)?),
                    ),
                    _ => (self.dst(d, 32)?, None),
                };
                Ok(Op::Match {
                    all,
                    bits,
                    d,
                    p,
                    a: self.src(a, Imm::Int)?,
                    mask: self.src(mask, Imm::Int)?,
                })
            }
            O::Redux => {
                let op = match mods.one_of(&[M::Add, M::Min, M::Max, M::And, M::Or, M::Xor]) {
                    Some(M::Add) => ReduxOp::Add,
                    Some(M::Min) => ReduxOp::Min,
                    Some(M::Max) => ReduxOp::Max,
                    Some(M::And) => ReduxOp::And,
                    Some(M::Or) => ReduxOp::Or,
                    Some(M::Xor) => ReduxOp::Xor,
                    _ => return Err("expected a reduction (`.add`, `.min`, …)".into()),
                };
                let t = one_type(mods)?;
                let ty = match (op, t) {
                    (ReduxOp::And | ReduxOp::Or | ReduxOp::Xor, DataType::B32) => Int {
                        bits: 32,
                        signed: false,
                    },
                    (ReduxOp::Add | ReduxOp::Min | ReduxOp::Max, DataType::U32 | DataType::S32) => {
                        Int {
                            bits: 32,
                            signed: t == DataType::S32,
                        }
                    }
                    _ => return Err(format!("`redux.sync` on `.{}` is not supported", t.name())),
                };
                let [d, a, mask] = operands::<3>(inst)?;
                Ok(Op::Redux {
                    op,
                    ty,
                    d: self.dst(d, 32)?,
                    a: self.src(a, Imm::Int)?,
                    mask: self.src(mask, Imm::Int)?,
                })
            }
            other => Err(format!("`{other}` is not implemented")),
        }
    }
}
