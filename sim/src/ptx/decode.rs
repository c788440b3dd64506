//! Decoding a parsed PTX entry once into the executor's [`Program`]: declarations become registers
//! and memory layout (`registers.rs`, `layout.rs`), each instruction one [`Inst`] (the instruction
//! families are decoded in `decode_alu.rs` and `decode_mem.rs`), labels become instruction indices
//! and every branch gets its reconvergence point (`cfg.rs`). An instruction or modifier the
//! simulator does not implement is an error naming it and its line — never a guess.

use std::collections::HashMap;

use warpforge_ptx::parse::{
    Address, AddressBase, Block, DataType, FloatImm, Function, Instruction, Module, Operand,
    OperandKind, Register, StateSpace, Statement,
};

use super::cfg::{post_dominators, Flow};
use super::inst::{Addr, Inst, Int, Op, Ty, R};
use super::layout::{Layout, PtxParam, SharedArray};
use super::registers::{Init, Registers};
use super::PtxError;

/// A decoded entry.
#[derive(Debug)]
pub(crate) struct Program {
    pub name: String,
    pub insts: Vec<Inst>,
    /// Each instruction's PTX line and text, for findings.
    pub lines: Vec<u32>,
    pub texts: Vec<String>,
    /// Width of each register in bits.
    pub reg_bits: Vec<u32>,
    /// Registers filled before a warp starts.
    pub init: Vec<(R, Init)>,
    pub params: Vec<PtxParam>,
    pub param_bytes: u32,
    pub shared: Vec<SharedArray>,
    pub dynamic_offset: u32,
    pub local_bytes: u32,
    pub module_globals: Vec<u8>,
    pub constants: Vec<u8>,
    /// Whether an atomic may touch global memory (blocks then run one after another).
    pub global_atomics: bool,
    /// `.reqntid` and `.maxntid`.
    pub reqntid: Option<[u32; 3]>,
    pub maxntid: Option<[u32; 3]>,
}

/// The decoder's state.
pub(crate) struct Decoder<'m> {
    pub regs: Registers,
    pub layout: &'m Layout,
    insts: Vec<Inst>,
    lines: Vec<u32>,
    texts: Vec<String>,
    labels: HashMap<String, u32>,
    /// Branches waiting for their label: (instruction, label, line, text).
    branches: Vec<(usize, String)>,
    pub global_atomics: bool,
}

/// The modifiers of an instruction being decoded; each recognised one is taken out, and any left at
/// the end is unsupported.
pub(crate) struct Mods {
    list: Vec<String>,
}

impl Mods {
    pub fn new(inst: &Instruction) -> Mods {
        Mods {
            list: inst.modifiers.clone(),
        }
    }

    /// Whether modifier `m` is there (without taking it).
    pub fn has(&self, m: &str) -> bool {
        self.list.iter().any(|x| x == m)
    }

    /// Takes `m` if present.
    pub fn take(&mut self, m: &str) -> bool {
        match self.list.iter().position(|x| x == m) {
            Some(i) => {
                self.list.remove(i);
                true
            }
            None => false,
        }
    }

    /// Takes the first of `options` present.
    pub fn one_of<'o>(&mut self, options: &[&'o str]) -> Option<&'o str> {
        let found = options
            .iter()
            .copied()
            .find(|o| self.list.iter().any(|x| x == o))?;
        self.take(found);
        Some(found)
    }

    /// Takes every modifier that is one of `options` (hints the simulator has no use for).
    pub fn ignore(&mut self, options: &[&str]) {
        self.list.retain(|m| !options.contains(&m.as_str()));
    }

    /// Takes every modifier `keep` says is a hint.
    pub fn ignore_if(&mut self, keep: impl Fn(&str) -> bool) {
        self.list.retain(|m| !keep(m));
    }

    /// Takes the data type modifiers, in order.
    pub fn types(&mut self) -> Vec<DataType> {
        let mut found = Vec::new();
        self.list.retain(|m| match DataType::from_name(m) {
            Some(t) => {
                found.push(t);
                false
            }
            None => true,
        });
        found
    }

    /// `Err` naming the modifiers left.
    pub fn finish(self) -> Result<(), String> {
        match self.list.first() {
            None => Ok(()),
            Some(_) => {
                let names: Vec<String> = self.list.iter().map(|m| format!("`.{m}`")).collect();
                Err(format!("unsupported modifier {}", names.join(", ")))
            }
        }
    }
}

/// The `N` operands of `inst`, or an error.
pub(crate) fn operands<const N: usize>(inst: &Instruction) -> Result<&[Operand; N], String> {
    inst.operands
        .as_slice()
        .try_into()
        .map_err(|_| format!("expected {N} operands, found {}", inst.operands.len()))
}

/// An integer type from a PTX type (`.b*`, `.u*`, `.s*`, `.pred`).
pub(crate) fn int_type(t: DataType) -> Option<Int> {
    let (bits, signed) = match t {
        DataType::Pred => (1, false),
        DataType::B8 | DataType::U8 => (8, false),
        DataType::S8 => (8, true),
        DataType::B16 | DataType::U16 => (16, false),
        DataType::S16 => (16, true),
        DataType::B32 | DataType::U32 => (32, false),
        DataType::S32 => (32, true),
        DataType::B64 | DataType::U64 => (64, false),
        DataType::S64 => (64, true),
        _ => return None,
    };
    Some(Int { bits, signed })
}

/// A value type from a PTX type: an integer, `.f32` or `.f64`.
pub(crate) fn value_type(t: DataType) -> Option<Ty> {
    match t {
        DataType::F32 => Some(Ty::F32),
        DataType::F64 => Some(Ty::F64),
        other => int_type(other).map(Ty::Int),
    }
}

/// What an immediate operand means to its instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Imm {
    /// Integer bits (also `0f` and `0d` float bits, as they are).
    Int,
    /// An `f32`: a decimal or `0d` literal is rounded to the nearest `f32` (the ISA converts a
    /// 64-bit float constant to the instruction's size); `0f` bits are taken as they are.
    F32,
    /// An `f64`: a decimal literal is read as the nearest `f64`, `0d` bits as they are, and `0f`
    /// bits keep their exact single-precision value (the ISA's rule for `0f` constants).
    F64,
}

/// Decodes entry `name` of `module`.
pub(crate) fn decode(module: &Module, entry: &Function) -> Result<Program, PtxError> {
    let layout = Layout::of(module, entry)?;
    let Some(body) = &entry.body else {
        return Err(PtxError::Unsupported {
            line: entry.pos.line,
            text: entry.name.clone(),
            message: "the entry has no body (a prototype)".into(),
        });
    };
    let mut d = Decoder {
        regs: Registers::default(),
        layout: &layout,
        insts: Vec::new(),
        lines: Vec::new(),
        texts: Vec::new(),
        labels: HashMap::new(),
        branches: Vec::new(),
        global_atomics: false,
    };
    d.block(body)?;
    let flows = d.resolve_branches()?;
    let ipdom = post_dominators(&flows);
    for (i, inst) in d.insts.iter_mut().enumerate() {
        if let Op::Bra { reconverge, .. } = &mut inst.op {
            *reconverge = ipdom[i];
        }
    }
    let global_atomics = d.global_atomics;
    let (insts, lines, texts) = (d.insts, d.lines, d.texts);
    let (reg_bits, init) = (d.regs.bits, d.regs.init);
    Ok(Program {
        name: entry.name.clone(),
        insts,
        lines,
        texts,
        reg_bits,
        init,
        params: layout.params,
        param_bytes: layout.param_bytes,
        shared: layout.shared,
        dynamic_offset: layout.dynamic_offset,
        local_bytes: layout.local_bytes,
        module_globals: layout.module_globals,
        constants: layout.constants,
        global_atomics,
        reqntid: entry.reqntid(),
        maxntid: entry.maxntid(),
    })
}

impl Decoder<'_> {
    fn block(&mut self, block: &Block) -> Result<(), PtxError> {
        self.regs.push_scope();
        for s in &block.statements {
            match s {
                Statement::Decl(v) if v.space == StateSpace::Reg => {
                    for d in &v.declarators {
                        if v.vector.is_some() || !d.dims.is_empty() {
                            return Err(PtxError::Unsupported {
                                line: d.pos.line,
                                text: d.name.clone(),
                                message: "vector and array registers are not supported".into(),
                            });
                        }
                        let text = match d.range {
                            Some(n) => format!(".reg .{} {}<{n}>", v.ty.name(), d.name),
                            None => format!(".reg .{} {}", v.ty.name(), d.name),
                        };
                        self.regs
                            .declare(&d.name, d.range, v.ty)
                            .map_err(|message| PtxError::Unsupported {
                                line: d.pos.line,
                                text,
                                message,
                            })?;
                    }
                }
                Statement::Label(l) => {
                    self.labels.insert(l.name.clone(), self.insts.len() as u32);
                }
                Statement::Instruction(i) => self.instruction(i)?,
                Statement::Block(b) => self.block(b)?,
                _ => {}
            }
        }
        self.regs.pop_scope();
        Ok(())
    }

    fn instruction(&mut self, inst: &Instruction) -> Result<(), PtxError> {
        let text = inst.to_string();
        let line = inst.pos.line;
        let err = |message: String| PtxError::Unsupported {
            line,
            text: text.clone(),
            message,
        };
        let guard = match &inst.guard {
            None => None,
            Some(g) => Some((self.reg(&g.pred).map_err(err)?, g.negated)),
        };
        let op = match inst.opcode.as_str() {
            "bra" => {
                let mut mods = Mods::new(inst);
                mods.ignore(&["uni"]);
                mods.finish().map_err(err)?;
                let label = match inst.operands.as_slice() {
                    [Operand {
                        kind: OperandKind::Label(l),
                        ..
                    }] => l.clone(),
                    _ => return Err(err("expected one label operand".into())),
                };
                self.branches.push((self.insts.len(), label));
                Op::Bra {
                    target: 0,
                    reconverge: 0,
                }
            }
            "ret" | "exit" => {
                let mut mods = Mods::new(inst);
                mods.ignore(&["uni"]);
                mods.finish().map_err(err)?;
                Op::Exit
            }
            _ => self.decode_op(inst).map_err(err)?,
        };
        self.insts.push(Inst { op, guard });
        self.lines.push(line);
        self.texts.push(text);
        Ok(())
    }

    /// The instruction families other than control flow.
    fn decode_op(&mut self, inst: &Instruction) -> Result<Op, String> {
        match inst.opcode.as_str() {
            "ld" | "ldu" | "st" | "atom" | "red" | "cvta" => self.memory(inst),
            "bar" | "barrier" | "shfl" | "vote" | "match" | "activemask" | "redux" => {
                self.sync(inst)
            }
            "membar" | "fence" | "prefetch" | "prefetchu" | "nanosleep" | "griddepcontrol" => {
                self.no_op(inst)
            }
            _ => self.alu(inst),
        }
    }

    /// Instructions with no effect in a sequentially consistent, cacheless simulator.
    fn no_op(&mut self, inst: &Instruction) -> Result<Op, String> {
        let mut mods = Mods::new(inst);
        mods.ignore(&[
            "cta", "gl", "gpu", "sys", "cluster", "sc", "acq_rel", "acquire", "release", "global",
            "local", "L1", "L2",
        ]);
        match inst.opcode.as_str() {
            // The proxy fences order the async and generic proxies: one proxy here.
            "fence" => mods.ignore(&["proxy", "async", "alias", "mbarrier_init", "shared"]),
            // Programmatic dependent launch: one grid at a time here, so there is nothing to wait for.
            "griddepcontrol" => mods.ignore(&["launch_dependents", "wait"]),
            _ => {}
        }
        if inst.opcode == "nanosleep" {
            mods.ignore(&["u32"]);
            mods.finish()?;
            // Its operand is a duration: read it so a bad register is still an error.
            operands::<1>(inst)?;
            self.src(&inst.operands[0], Imm::Int)?;
            return Ok(Op::Yield);
        }
        mods.finish()?;
        Ok(Op::Nop)
    }

    /// Labels → instruction indices in every branch; the control flow of each instruction.
    fn resolve_branches(&mut self) -> Result<Vec<Flow>, PtxError> {
        for (at, label) in std::mem::take(&mut self.branches) {
            let Some(&target) = self.labels.get(&label) else {
                return Err(PtxError::Unsupported {
                    line: self.lines[at],
                    text: self.texts[at].clone(),
                    message: format!("no label `{label}` in the entry"),
                });
            };
            if let Op::Bra { target: t, .. } = &mut self.insts[at].op {
                *t = target;
            }
        }
        Ok(self
            .insts
            .iter()
            .map(|i| match i.op {
                Op::Bra { target, .. } => Flow::Branch {
                    target,
                    conditional: i.guard.is_some(),
                },
                Op::Exit => Flow::Exit {
                    conditional: i.guard.is_some(),
                },
                _ => Flow::Next,
            })
            .collect())
    }

    /// A declared (or special) register.
    pub fn reg(&mut self, r: &Register) -> Result<R, String> {
        self.regs.lookup(r).ok_or_else(|| {
            format!("`{r}` is not a declared register or a supported special register")
        })
    }

    /// A source operand: a register, an immediate (as `imm` says), or a symbol's address.
    pub fn src(&mut self, op: &Operand, imm: Imm) -> Result<R, String> {
        match &op.kind {
            OperandKind::Register(r) => self.reg(r),
            OperandKind::Int(i) => Ok(self.regs.constant(i.value() as u64)),
            OperandKind::Float(FloatImm::F32Bits(b)) if imm == Imm::F64 => {
                Ok(self.regs.constant(f64::from(f32::from_bits(*b)).to_bits()))
            }
            OperandKind::Float(FloatImm::F32Bits(b)) => Ok(self.regs.constant(u64::from(*b))),
            OperandKind::Float(FloatImm::F64Bits(b)) if imm == Imm::F32 => {
                let x = f64::from_bits(*b);
                // `as` rounds to nearest even; a NaN keeps its sign, quiet.
                let bits = if x.is_nan() {
                    0x7fc0_0000 | (((*b >> 63) as u32) << 31)
                } else {
                    (x as f32).to_bits()
                };
                Ok(self.regs.constant(u64::from(bits)))
            }
            OperandKind::Float(FloatImm::F64Bits(b)) => Ok(self.regs.constant(*b)),
            OperandKind::Float(FloatImm::Decimal(text)) if imm != Imm::Int => {
                let bits = if imm == Imm::F32 {
                    u64::from(
                        text.parse::<f32>()
                            .map_err(|_| format!("`{text}` is not a number"))?
                            .to_bits(),
                    )
                } else {
                    text.parse::<f64>()
                        .map_err(|_| format!("`{text}` is not a number"))?
                        .to_bits()
                };
                Ok(self.regs.constant(bits))
            }
            OperandKind::Float(_) => Err("a float immediate where an integer is expected".into()),
            // The PTX ISA's predefined constant for the warp size (nvcc writes it for `warpSize`).
            OperandKind::Symbol(name) if name == "WARP_SZ" => Ok(self.regs.constant(32)),
            OperandKind::Symbol(name) => match self.layout.symbols.get(name) {
                Some(s) => Ok(self.regs.constant(s.addr)),
                None => Err(format!(
                    "`{name}` is not a variable of the module or the entry"
                )),
            },
            _ => Err(format!("unexpected operand `{op}`")),
        }
    }

    /// A destination register (`_` is a scratch register of `bits`).
    pub fn dst(&mut self, op: &Operand, bits: u32) -> Result<R, String> {
        match &op.kind {
            OperandKind::Register(r) => self
                .regs
                .declared(r)
                .ok_or_else(|| format!("`{r}` is not a declared register (it cannot be written)")),
            OperandKind::Sink => Ok(self.regs.scratch(bits)),
            _ => Err(format!("expected a destination register, found `{op}`")),
        }
    }

    /// A predicate source that may be negated (`!%p`): the register and whether it is negated.
    pub fn pred(&mut self, op: &Operand) -> Result<(R, bool), String> {
        match &op.kind {
            OperandKind::Not(r) => Ok((self.reg(r)?, true)),
            _ => Ok((self.src(op, Imm::Int)?, false)),
        }
    }

    /// An address operand `[base+offset]`; a symbol base is folded into the offset.
    pub fn addr(&mut self, op: &Operand) -> Result<Addr, String> {
        let OperandKind::Address(Address { base, offset }) = &op.kind else {
            return Err(format!("expected an address `[…]`, found `{op}`"));
        };
        Ok(match base {
            AddressBase::Register(r) => Addr {
                base: Some(self.reg(r)?),
                offset: *offset,
            },
            AddressBase::Symbol(name) => match self.layout.symbols.get(name) {
                Some(s) => Addr {
                    base: None,
                    offset: (s.addr as i64).wrapping_add(*offset),
                },
                None => match self.regs.lookup(&Register::named(name.clone())) {
                    Some(r) => Addr {
                        base: Some(r),
                        offset: *offset,
                    },
                    None => {
                        return Err(format!(
                            "`{name}` is not a variable of the module or the entry"
                        ))
                    }
                },
            },
            AddressBase::Absolute => Addr {
                base: None,
                offset: *offset,
            },
        })
    }

    /// The space of a variable an address names directly, if it does (`[smem+4]`).
    pub fn symbol_space(&self, op: &Operand) -> Option<super::inst::MemSpace> {
        match &op.kind {
            OperandKind::Address(Address {
                base: AddressBase::Symbol(name),
                ..
            }) => self.layout.symbols.get(name).map(|s| s.space),
            _ => None,
        }
    }
}
