//! PTX text → [`Program`]s (one per `.entry`), so PTX from anywhere (nvcc, other generators, warpforge)
//! can be linted. The text is read by the shared PTX parser (`warpforge_ptx::parse`, which the
//! simulator uses too); `ast` turns its tree into the statements lowered here.
//!
//! Understood: `.entry` with parameters and `.reqntid`; `.reg`, `.shared` (module or function scope,
//! `.extern` too); labels; guards `@%p` / `@!%p`; `ld`/`st` (all spaces, vectors), `cvta`, `mov`
//! (special registers, shared symbols), integer arithmetic (`add sub mul mad shl shr and or min max
//! rem div`), `setp`/`selp` and other value instructions, `bra`, `ret`/`exit`, `bar.sync`/`barrier`,
//! `bar.warp.sync`, `shfl.sync`, `vote.sync`, `match.any.sync`, `redux.sync`, `atom`/`red`, `mad.wide`,
//! `activemask`, `cp.async`, `mbarrier`, `nanosleep`, `ldmatrix`/`stmatrix`/`wmma`/`mma`/`wgmma` (as
//! warp-synchronous), `::` sub-qualifiers; `.loc`/`.file` lines. Text that is not PTX (no leading
//! `.version`) or a module cut short is an error naming the line. Anything else is kept
//! with its operands, treated conservatively (its results are divergent and unknown) and reported as
//! an N001 note — never rejected.

use std::collections::HashMap;

use petgraph::graph::{DiGraph, NodeIndex};

use crate::program::{
    Address, Arith, Block, Cmp, Collective, Inst, Location, MaskInfo, Op, Program, SharedDecl,
    Space, Special, Terminator, Var, WarpAlignment,
};

mod ast;
mod calls;
mod error;
mod literals;
pub(crate) mod lowering;
pub use error::PtxError;
use literals::{data_bytes, parse_imm, type_bytes};

pub use lowering::{programs_of, programs_of_with};
mod instructions;
mod text;
mod warp_level;

use text::Parsed;
use warpforge_ptx::isa::{Dim, Modifier as M, Opcode as O, SpecialReg, Variation};
use warpforge_ptx::parse::{DataType, StateSpace};

/// Lowers one entry's body.
struct Entry {
    name: String,
    block_size: Option<u32>,
    /// Whether `block_size` is `.reqntid`'s (exact) rather than `.maxntid`'s (the most).
    block_size_required: bool,
    /// `.reqntid`'s x·y·z (or the assumed block's x).
    block_threads: Option<u32>,
    vars: HashMap<String, Var>,
    names: Vec<String>,
    shared: Vec<SharedDecl>,
    shared_index: HashMap<String, usize>,
    /// (label or None, instructions, terminator, branch target label, falls through)
    blocks: Vec<(Vec<Inst>, Terminator, Option<String>, bool)>,
    labels: HashMap<String, usize>,
    /// Blocks ending in a branch on `@!%p`: taken when %p is false.
    negated_branches: std::collections::HashSet<usize>,
    unknown: Vec<(Location, String)>,
    /// What each device function of the module reaches (`call` counts as it).
    funcs: std::sync::Arc<HashMap<String, calls::FuncSummary>>,
    /// Register width in bits by name prefix (`.reg .b32 %r<31>` → `%r`: 32).
    reg_bits: HashMap<String, u8>,
    /// Each variable's width (0: unknown), [`Program::var_bits`].
    bits: Vec<u8>,
}

/// The x-dimension a launch directive (`.reqntid 128, 1, 1`) gives, if `text` has it.
/// The product of a launch directive's dimensions (`.reqntid 16, 16, 1`: 256).
fn launch_threads(text: &str, directive: &str) -> Option<u32> {
    let dims = text.split(directive).nth(1)?;
    dims.split([',', ' ', '\n'])
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .take(3)
        .try_fold(1u32, |acc, d| acc.checked_mul(d.parse().ok()?))
}

fn launch_dim(text: &str, directive: &str) -> Option<u32> {
    text.split(directive)
        .nth(1)
        .and_then(|r| r.trim().split([',', ' ', '\n']).next())
        .and_then(|n| n.trim().parse().ok())
}

impl Entry {
    /// `.reqntid` gives the block's x-dimension; `.maxntid` its largest (used for index ranges: an
    /// access out of bounds in the largest block the kernel allows is an error).
    fn launch_directives(&mut self, text: &str) {
        if let Some(n) = launch_dim(text, ".reqntid") {
            self.block_size = Some(n);
            self.block_size_required = true;
            self.block_threads = launch_threads(text, ".reqntid");
        } else if let (Some(n), false) = (launch_dim(text, ".maxntid"), self.block_size_required) {
            self.block_size = Some(n);
        }
    }

    /// `.reg .b32 %r<31>` or `.reg .u64 %a, %b`: the width of registers with those name prefixes
    /// (integer and bit types only; predicates and floats stay unknown).
    fn reg_decl(&mut self, text: &str) {
        let mut words = text.split_whitespace().skip(1);
        let Some(ty) = words.next().map(|t| t.trim_start_matches('.')) else {
            return;
        };
        let bits: u8 = match ty {
            "b8" | "u8" | "s8" => 8,
            "b16" | "u16" | "s16" => 16,
            "b32" | "u32" | "s32" => 32,
            _ => return,
        };
        for name in words
            .flat_map(|w| w.split(','))
            .filter(|w| w.starts_with('%'))
        {
            let prefix = name
                .split('<')
                .next()
                .unwrap_or(name)
                .trim_end_matches(|c: char| c.is_ascii_digit());
            self.reg_bits.insert(prefix.to_owned(), bits);
        }
    }

    fn var(&mut self, name: &str) -> Var {
        if let Some(&v) = self.vars.get(name) {
            return v;
        }
        let v = self.names.len();
        self.names.push(name.to_owned());
        self.vars.insert(name.to_owned(), v);
        let prefix = name.trim_end_matches(|c: char| c.is_ascii_digit());
        self.bits
            .push(self.reg_bits.get(prefix).copied().unwrap_or(0));
        v
    }

    /// A fresh variable no register name reaches (shown as `#tN`).
    fn temp(&mut self) -> Var {
        let v = self.names.len();
        self.names.push(format!("#t{v}"));
        self.bits.push(0);
        v
    }

    /// A fresh variable shown in messages as `display` (the operand it stands for).
    fn temp_named(&mut self, display: &str) -> Var {
        let v = self.names.len();
        self.names.push(display.to_owned());
        self.bits.push(0);
        v
    }

    fn cur(&mut self) -> &mut Vec<Inst> {
        if self.blocks.is_empty() {
            self.blocks.push((Vec::new(), Terminator::Jump, None, true));
        }
        &mut self.blocks.last_mut().expect("a block").0
    }

    fn push(&mut self, loc: &Location, op: Op, defs: Vec<Var>, uses: Vec<Var>, guard: Option<Var>) {
        let inst = Inst {
            loc: loc.clone(),
            op,
            defs,
            uses,
            guard,
        };
        self.cur().push(inst);
    }

    /// The variable for an operand: a register, or a temporary holding an immediate / special / symbol.
    fn value(&mut self, s: &str, loc: &Location) -> Var {
        let s = s.trim();
        if let Some(special) = special_of(s) {
            let t = self.temp_named(s);
            self.push(loc, Op::Special(special), vec![t], vec![], None);
            return t;
        }
        if s.starts_with('%') {
            return self.var(s);
        }
        let t = self.temp_named(s);
        let op = if let Some(v) = parse_imm(s) {
            Op::Const(v)
        } else if let Some(&a) = self.shared_index.get(s) {
            Op::SharedAddr(a)
        } else {
            Op::Param
        };
        self.push(loc, op, vec![t], vec![], None);
        t
    }

    /// `[reg+off]`, `[sym+off]`, `[reg]`, `[sym]`.
    fn address(&mut self, s: &str, space: Space, loc: &Location) -> (Address, Vec<Var>) {
        let inner = s
            .trim()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .replace(' ', "");
        let (base, offset) = match inner.rfind(['+', '-']).filter(|&i| i > 0) {
            Some(i) => (
                inner[..i].to_owned(),
                parse_imm(inner[i..].trim_start_matches('+')).map_or(0, |v| v as i64),
            ),
            None => (inner.clone(), 0),
        };
        let mut addr = Address {
            space,
            byte_var: None,
            index_var: None,
            elem_bytes: 1,
            offset,
        };
        if base.starts_with('%') {
            let v = self.var(&base);
            addr.byte_var = Some(v);
            return (addr, vec![v]);
        }
        if let Some(&a) = self.shared_index.get(&base) {
            addr.space = Space::Shared(Some(a));
            let v = self.value(&base, loc);
            addr.byte_var = Some(v);
            return (addr, vec![v]);
        }
        (addr, Vec::new())
    }

    fn end_block(&mut self, term: Terminator, target: Option<String>, falls: bool) {
        if self.blocks.is_empty() {
            // The body's first instruction ends a block (`ret;` alone, a leading `bra`).
            self.blocks.push((Vec::new(), Terminator::Jump, None, true));
        }
        let Some(b) = self.blocks.last_mut() else {
            return;
        };
        b.1 = term;
        b.2 = target;
        b.3 = falls;
        self.blocks.push((Vec::new(), Terminator::Jump, None, true));
    }
}

fn mask_uses(mask: MaskInfo) -> Vec<Var> {
    match mask {
        MaskInfo::Var(v) => vec![v],
        MaskInfo::Const(_) => Vec::new(),
    }
}

fn special_of(s: &str) -> Option<Special> {
    let reg = SpecialReg::parse(s)?;
    Some(match (reg.variation(), reg.dim()) {
        (Variation::Thread, Some(Dim::X)) => Special::Thread,
        (Variation::Thread, _) => Special::ThreadYz,
        (Variation::Lane, _) if reg == SpecialReg::Laneid => Special::Lane,
        (Variation::Lane, _) => Special::LaneMask,
        (Variation::Warp, _) => Special::Warp,
        (Variation::Block, _) => match reg {
            // sizes of shared memory: not a register the analysis models
            SpecialReg::DynamicSmemSize
            | SpecialReg::TotalSmemSize
            | SpecialReg::ReservedSmemOffsetBegin
            | SpecialReg::ReservedSmemOffsetEnd
            | SpecialReg::ReservedSmemOffsetCap
            | SpecialReg::ReservedSmemOffset(_) => return None,
            _ => Special::Uniform,
        },
        (Variation::Time, _) => return None,
    })
}

/// A `.shared` declaration: `[.extern] .shared .align A .b8 name[N]` (N empty for `.extern`).
fn shared_decl(text: &str) -> Option<SharedDecl> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let align = words
        .iter()
        .position(|w| *w == ".align")
        .and_then(|i| words.get(i + 1))
        .and_then(|a| a.parse().ok())
        .unwrap_or(1);
    let last = words.last()?;
    const TYPES: [&str; 15] = [
        ".b8", ".b16", ".b32", ".b64", ".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32",
        ".s64", ".f16", ".f32", ".f64",
    ];
    let elem = words.iter().find(|w| TYPES.contains(w)).map_or(1, |t| {
        data_bytes(DataType::from_name(t.trim_start_matches('.')))
    });
    let (name, count) = match last.split_once('[') {
        Some((n, rest)) => (n, rest.trim_end_matches(']').parse::<u64>().ok()),
        None => (*last, Some(1)),
    };
    let bytes = count.map_or(u64::MAX, |c| c * u64::from(elem));
    Some(SharedDecl {
        name: name.to_owned(),
        bytes,
        align,
    })
}

impl Entry {
    fn finish(mut self, assume_warp_aligned: bool) -> Program {
        if self.blocks.is_empty() {
            self.blocks
                .push((Vec::new(), Terminator::Return, None, false));
        }
        let mut cfg = DiGraph::new();
        let nodes: Vec<NodeIndex> = self
            .blocks
            .iter()
            .map(|(insts, term, _, _)| {
                cfg.add_node(Block {
                    insts: insts.clone(),
                    term: term.clone(),
                })
            })
            .collect();
        let last = nodes.len() - 1;
        let mut taken = Vec::new();
        for (k, (_, term, target, falls)) in self.blocks.iter().enumerate() {
            let guarded = matches!(term, Terminator::Branch { .. });
            let mut successors = Vec::new();
            if let Some(t) = target {
                if let Some(&to) = self.labels.get(t) {
                    successors.push(nodes[to]);
                } else if t == "#exit" {
                    // `@%p ret` / `@%p exit`: the taken side is an exit block of its own, so the
                    // threads that leave are a divergent early exit like `if (p) return;`.
                    let exit = cfg.add_node(Block {
                        insts: Vec::new(),
                        term: Terminator::Return,
                    });
                    successors.push(exit);
                }
                // Jumps to unknown labels leave the kernel (no edge).
            }
            if *falls && k < last {
                successors.push(nodes[k + 1]);
            }
            // A branch's first edge is the side taken when its condition holds: for `@!%p bra`,
            // the fall-through.
            if self.negated_branches.contains(&k) {
                successors.reverse();
            }
            if guarded && successors.len() == 2 && successors[0] != successors[1] {
                taken.push((nodes[k], successors[0], true));
            }
            for to in successors {
                cfg.add_edge(nodes[k], to, ());
            }
            if *falls && k == last && !matches!(term, Terminator::Return) {
                cfg[nodes[k]].term = if matches!(term, Terminator::Branch { .. }) {
                    term.clone()
                } else {
                    Terminator::Return
                };
            }
        }
        let taken = taken_table(&cfg, &taken);
        let mut program = Program {
            name: self.name,
            block_size: self.block_size,
            block_threads: self
                .block_size_required
                .then_some(self.block_threads)
                .flatten(),
            thread_range_exact: self.block_size.is_some()
                && (self.block_size_required
                    || !self
                        .blocks
                        .iter()
                        .flat_map(|b| &b.0)
                        .any(|i| matches!(i.op, Op::Special(Special::ThreadYz)))),
            warp_aligned_x: match self.block_size {
                Some(x) if self.block_size_required => WarpAlignment::Known(x % 32 == 0),
                _ if assume_warp_aligned => WarpAlignment::Assumed,
                _ => WarpAlignment::Unknown,
            },
            var_names: self.names,
            var_bits: self.bits,
            cfg,
            entry: nodes[0],
            taken,
            shared: self.shared,
            unknown: self.unknown,
            sources: Default::default(),
        };
        // Divergence per definition: a reused register becomes one variable per web.
        crate::webs::split(&mut program);
        program
    }
}

/// Per block, the successor its branch reaches when the condition has a given value (only where the
/// two successors differ).
fn taken_table(
    cfg: &petgraph::graph::DiGraph<Block, ()>,
    taken: &[(NodeIndex, NodeIndex, bool)],
) -> Vec<Option<(NodeIndex, bool)>> {
    let mut table = vec![None; cfg.node_count()];
    for &(from, to, when) in taken {
        table[from.index()] = Some((to, when));
    }
    table
}
