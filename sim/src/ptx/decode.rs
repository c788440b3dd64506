//! Decoding a parsed PTX entry once into the executor's [`Program`]: declarations become registers
//! and memory layout (`registers.rs`, `layout.rs`), each instruction one [`Inst`] (the instruction
//! families are decoded in `decode_alu.rs` and `decode_mem.rs`), labels become instruction indices
//! and every branch gets its reconvergence point (`cfg.rs`). An instruction or modifier the
//! simulator does not implement is an error naming it and its line — never a guess.

use std::collections::HashMap;

use warpforge_ir::SourceLoc;
use warpforge_ptx::isa::Modifier as M;
use warpforge_ptx::isa::Opcode as O;
use warpforge_ptx::parse::{
    Block, Function, Instruction, Module, ModuleItem, Operand, OperandKind, StateSpace, Statement,
};

use super::calls::{reachable, FrameVar, Func};
use super::cfg::{post_dominators, Flow};
use super::error::PtxError;
use super::inst::{Inst, Op, R};
use super::layout::{Layout, PtxParam, SharedArray};
use super::registers::{Init, Registers};

/// A decoded entry.
#[derive(Debug)]
pub(crate) struct Program {
    pub name: String,
    pub insts: Vec<Inst>,
    /// Each instruction's PTX line and text, for findings.
    pub lines: Vec<u32>,
    pub texts: Vec<String>,
    /// Each instruction's source position: the `.loc` in force (`-lineinfo`, warpforge's emitter).
    pub sources: Vec<Option<SourceLoc>>,
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
    /// The module's variables and where their bytes are.
    pub variables: Vec<super::layout::ModuleVariable>,
    /// Whether an atomic may touch global memory (blocks then run one after another).
    pub global_atomics: bool,
    /// `.reqntid` and `.maxntid`.
    pub reqntid: Option<[u32; 3]>,
    pub maxntid: Option<[u32; 3]>,
    /// The `.func`s the entry calls (`decode_call.rs`), and the `.branchtargets` lists of `brx.idx`
    /// (instruction indices).
    pub funcs: Vec<Func>,
    pub tables: Vec<Vec<u32>>,
    /// The register holding each lane's frame base in its local memory (0 in the entry).
    pub frame_reg: R,
    /// Per register, whether a thread may read it before writing it (`uninit.rs`; `None`: not
    /// known, every register may).
    pub read_before_written: Option<Vec<bool>>,
}

/// The decoder's state.
pub(crate) struct Decoder<'m> {
    pub regs: Registers,
    pub layout: &'m Layout,
    pub module: &'m Module,
    insts: Vec<Inst>,
    lines: Vec<u32>,
    texts: Vec<String>,
    sources: Vec<Option<SourceLoc>>,
    /// The `.loc` in force.
    source: Option<SourceLoc>,
    /// The current function's labels and `.branchtargets` lists.
    labels: HashMap<String, u32>,
    lists: HashMap<String, Vec<String>>,
    /// The label just defined (a `.branchtargets` list takes it as its name).
    last_label: Option<String>,
    /// Branches waiting for their label: (instruction, label).
    branches: Vec<(usize, String)>,
    /// `brx.idx` waiting for its list: (instruction, list label).
    pub brx_pending: Vec<(usize, String)>,
    pub tables: Vec<Vec<u32>>,
    pub global_atomics: bool,
    /// Decoding a `.func` (not the entry).
    pub in_function: bool,
    pub frame_reg: R,
    /// The current function's frame variables in scope, innermost scope last; its frame's bytes so
    /// far and alignment.
    pub frame_vars: Vec<HashMap<String, FrameVar>>,
    pub frame_bytes: u32,
    pub frame_align: u32,
    /// The called functions, in the order first called.
    pub funcs: Vec<Func>,
    pub func_ids: HashMap<String, u32>,
}

pub(crate) use super::decode_mods::{int_type, operands, storage_type, value_type, Imm, Mods};

/// Decodes entry `name` of `module`, and every `.func` it calls.
pub(crate) fn decode(module: &Module, entry: &Function) -> Result<Program, PtxError> {
    let called = reachable(module, entry);
    let layout = Layout::of(module, entry, &called)?;
    let Some(body) = &entry.body else {
        return Err(PtxError::Unsupported {
            line: entry.pos.line,
            text: entry.name.clone(),
            message: "the entry has no body (a prototype)".into(),
        });
    };
    let mut regs = Registers::default();
    let frame_reg = regs.scratch(64);
    let mut d = Decoder {
        regs,
        layout: &layout,
        module,
        insts: Vec::new(),
        lines: Vec::new(),
        texts: Vec::new(),
        sources: Vec::new(),
        source: None,
        labels: HashMap::new(),
        lists: HashMap::new(),
        last_label: None,
        branches: Vec::new(),
        brx_pending: Vec::new(),
        tables: Vec::new(),
        global_atomics: false,
        in_function: false,
        frame_reg,
        frame_vars: vec![HashMap::new()],
        frame_bytes: layout.local_bytes,
        frame_align: 16,
        funcs: Vec::new(),
        func_ids: HashMap::new(),
    };
    d.block(body)?;
    if !called.is_empty() {
        // The entry's end: its threads exit rather than run on into the functions after it.
        d.push(
            Op::Exit,
            entry.pos.line,
            format!("(the end of `{}`)", entry.name),
        );
    }
    d.resolve_labels()?;
    let local_bytes = d.frame_bytes;
    let mut next = 0;
    while next < d.funcs.len() {
        d.function(next)?;
        next += 1;
    }
    let ipdom = post_dominators(&d.flows());
    for (i, inst) in d.insts.iter_mut().enumerate() {
        if let Op::Bra { reconverge, .. } | Op::Brx { reconverge, .. } = &mut inst.op {
            *reconverge = ipdom[i];
        }
    }
    let global_atomics = d.global_atomics;
    let (insts, lines, texts, sources) = (d.insts, d.lines, d.texts, d.sources);
    let (reg_bits, init) = (d.regs.bits, d.regs.init);
    let (funcs, tables) = (d.funcs, d.tables);
    let mut program = Program {
        name: entry.name.clone(),
        insts,
        lines,
        texts,
        sources,
        reg_bits,
        init,
        params: layout.params,
        param_bytes: layout.param_bytes,
        shared: layout.shared,
        dynamic_offset: layout.dynamic_offset,
        local_bytes,
        module_globals: layout.module_globals,
        constants: layout.constants,
        variables: layout.variables,
        global_atomics,
        reqntid: entry.reqntid(),
        maxntid: entry.maxntid(),
        funcs,
        tables,
        frame_reg,
        read_before_written: None,
    };
    program.read_before_written = super::uninit::read_before_written(&super::uninit::Entry {
        insts: &program.insts,
        registers: program.reg_bits.len(),
        init: &program.init,
        frame_reg: program.frame_reg,
        calls: !program.funcs.is_empty(),
    });
    Ok(program)
}

impl Decoder<'_> {
    /// `.func` number `k`: its body after the instructions so far, ending in a `ret`.
    fn function(&mut self, k: usize) -> Result<(), PtxError> {
        let name = self.funcs[k].name.clone();
        let module = self.module;
        let Some(f) = module
            .functions()
            .find(|f| f.name == name && f.body.is_some())
        else {
            return Ok(()); // `function_id` found it
        };
        let Some(body) = &f.body else {
            return Ok(());
        };
        self.funcs[k].start = self.insts.len() as u32;
        self.source = None;
        let first = self.regs.bits.len() as u32;
        self.in_function = true;
        self.enter_function(k);
        self.block(body)?;
        self.push(Op::Ret, f.pos.line, format!("(the end of `{name}`)"));
        self.resolve_labels()?;
        let func = &mut self.funcs[k];
        func.regs = (first, self.regs.bits.len() as u32);
        func.frame_bytes = self.frame_bytes;
        func.align = self.frame_align;
        Ok(())
    }

    fn push(&mut self, op: Op, line: u32, text: String) {
        self.insts.push(Inst { op, guard: None });
        self.lines.push(line);
        self.texts.push(text);
        self.sources.push(self.source.clone());
    }

    /// Instructions decoded so far.
    pub fn insts_len(&self) -> usize {
        self.insts.len()
    }

    fn block(&mut self, block: &Block) -> Result<(), PtxError> {
        self.regs.push_scope();
        self.frame_vars.push(HashMap::new());
        for s in &block.statements {
            if !matches!(s, Statement::Label(_) | Statement::BranchTargets(_)) {
                self.last_label = None;
            }
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
                Statement::Decl(v) if v.space == StateSpace::Param => self.frame_decl(v)?,
                Statement::Decl(v) if v.space == StateSpace::Local && self.in_function => {
                    self.frame_decl(v)?
                }
                Statement::Label(l) => {
                    self.labels.insert(l.name.clone(), self.insts.len() as u32);
                    self.last_label = Some(l.name.clone());
                }
                Statement::BranchTargets(t) => match self.last_label.take() {
                    Some(name) => {
                        self.lists.insert(name, t.labels.clone());
                    }
                    None => {
                        return Err(PtxError::Unsupported {
                            line: t.pos.line,
                            text: format!(".branchtargets {}", t.labels.join(", ")),
                            message: "a `.branchtargets` list without a label".into(),
                        })
                    }
                },
                Statement::Instruction(i) => self.instruction(i)?,
                Statement::Block(b) => self.block(b)?,
                Statement::Loc(l) => {
                    // The `.file` of its index (anywhere in the module), or the index itself.
                    let file = (self.module.items.iter())
                        .find_map(|i| match i {
                            ModuleItem::File(f) if f.index == l.file => Some(f.path.clone()),
                            _ => None,
                        })
                        .unwrap_or_else(|| format!("file {}", l.file));
                    self.source = Some(SourceLoc::new(&file, l.line, l.column));
                }
                _ => {}
            }
        }
        self.regs.pop_scope();
        self.frame_vars.pop();
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
        let op = match inst.opcode {
            O::Bra => {
                let mut mods = Mods::new(inst);
                mods.ignore(&[M::Uni]);
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
            O::Trap => {
                Mods::new(inst).finish().map_err(err)?;
                if !inst.operands.is_empty() {
                    return Err(err("`trap` takes no operands".into()));
                }
                Op::Trap
            }
            O::Ret | O::Exit => {
                let mut mods = Mods::new(inst);
                mods.ignore(&[M::Uni]);
                mods.finish().map_err(err)?;
                if inst.opcode == O::Ret && self.in_function {
                    Op::Ret
                } else {
                    Op::Exit
                }
            }
            O::Call => self.call(inst).map_err(err)?,
            O::Brx => self.brx(inst).map_err(err)?,
            _ => self.decode_op(inst).map_err(err)?,
        };
        self.insts.push(Inst { op, guard });
        self.lines.push(line);
        self.texts.push(text);
        self.sources.push(self.source.clone());
        Ok(())
    }

    /// The instruction families other than control flow.
    fn decode_op(&mut self, inst: &Instruction) -> Result<Op, String> {
        match inst.opcode {
            O::Ld | O::Ldu | O::St | O::Atom | O::Red | O::Cvta => self.memory(inst),
            O::Bar | O::Barrier | O::Shfl | O::Vote | O::Match | O::Activemask | O::Redux => {
                self.sync(inst)
            }
            O::Cp | O::Mbarrier | O::Wgmma => self.async_op(inst),
            O::Ldmatrix | O::Stmatrix | O::Mma | O::Wmma => self.matrix(inst),
            O::Cvt if inst.modifiers.contains(&M::Tf32) => self.cvt_tf32(inst),
            O::Membar
            | O::Fence
            | O::Prefetch
            | O::Prefetchu
            | O::Nanosleep
            | O::Griddepcontrol => self.no_op(inst),
            _ => self.alu(inst),
        }
    }

    /// Instructions with no effect in a sequentially consistent, cacheless simulator.
    fn no_op(&mut self, inst: &Instruction) -> Result<Op, String> {
        let mut mods = Mods::new(inst);
        mods.ignore(&[
            M::Cta,
            M::Gl,
            M::Gpu,
            M::Sys,
            M::Cluster,
            M::Sc,
            M::AcqRel,
            M::Acquire,
            M::Release,
            M::Global,
            M::Local,
            M::L1,
            M::L2,
        ]);
        match inst.opcode {
            // `fence.proxy.async` orders the generic proxy's accesses with the async proxy's
            // (bulk copies, TMA), and `fence.mbarrier_init` makes an `mbarrier.init` visible to
            // those: here every access, `cp.async` copies and mbarrier updates included, happens
            // in one sequentially consistent order when it is performed, so both have nothing
            // to order.
            O::Fence => mods.ignore(&[
                M::Proxy,
                M::Async,
                M::Alias,
                M::MbarrierInit,
                M::Shared,
                M::SharedCta,
                M::SharedCluster,
            ]),
            // Programmatic dependent launch: one grid at a time here, so there is nothing to wait for.
            O::Griddepcontrol => mods.ignore(&[M::LaunchDependents, M::Wait]),
            _ => {}
        }
        let device_scope = match inst.opcode {
            O::Membar => inst.modifiers.iter().any(|m| matches!(m, M::Gl | M::Sys)),
            O::Fence => {
                !inst
                    .modifiers
                    .iter()
                    .any(|m| matches!(m, M::Cta | M::Cluster | M::Proxy | M::MbarrierInit))
                    && inst
                        .modifiers
                        .iter()
                        .any(|m| matches!(m, M::Sc | M::AcqRel))
            }
            _ => false,
        };
        if device_scope {
            mods.finish()?;
            return Ok(Op::DeviceFence);
        }
        if inst.opcode == O::Nanosleep {
            mods.ignore(&[M::Type(warpforge_ptx::parse::DataType::U32)]);
            mods.finish()?;
            // Its operand is a duration: read it so a bad register is still an error.
            operands::<1>(inst)?;
            self.src(&inst.operands[0], Imm::Int)?;
            return Ok(Op::Yield);
        }
        mods.finish()?;
        Ok(Op::Nop)
    }

    /// The current function's labels → instruction indices in its branches and `brx.idx` lists.
    fn resolve_labels(&mut self) -> Result<(), PtxError> {
        let labels = std::mem::take(&mut self.labels);
        let lists = std::mem::take(&mut self.lists);
        let missing = |d: &Self, at: usize, what: String| PtxError::Unsupported {
            line: d.lines[at],
            text: d.texts[at].clone(),
            message: what,
        };
        for (at, label) in std::mem::take(&mut self.branches) {
            let Some(&target) = labels.get(&label) else {
                return Err(missing(
                    self,
                    at,
                    format!("no label `{label}` in the function"),
                ));
            };
            if let Op::Bra { target: t, .. } = &mut self.insts[at].op {
                *t = target;
            }
        }
        for (at, list) in std::mem::take(&mut self.brx_pending) {
            let Some(names) = lists.get(&list) else {
                let why = format!("no `.branchtargets` list `{list}` in the function");
                return Err(missing(self, at, why));
            };
            let mut targets = Vec::with_capacity(names.len());
            for n in names {
                let Some(&t) = labels.get(n) else {
                    let why =
                        format!("no label `{n}` (of `.branchtargets` `{list}`) in the function");
                    return Err(missing(self, at, why));
                };
                targets.push(t);
            }
            if let Op::Brx { table, .. } = &mut self.insts[at].op {
                *table = self.tables.len() as u32;
            }
            self.tables.push(targets);
        }
        Ok(())
    }

    /// The control flow of each instruction (a call returns to the next instruction).
    fn flows(&self) -> Vec<Flow> {
        self.insts
            .iter()
            .map(|i| match i.op {
                Op::Bra { target, .. } => Flow::Branch {
                    target,
                    conditional: i.guard.is_some(),
                },
                Op::Brx { table, .. } => Flow::Multi {
                    targets: self.tables.get(table as usize).cloned().unwrap_or_default(),
                    conditional: i.guard.is_some(),
                },
                Op::Exit | Op::Ret | Op::Trap | Op::AssertFail { .. } => Flow::Exit {
                    conditional: i.guard.is_some(),
                },
                _ => Flow::Next,
            })
            .collect()
    }
}
