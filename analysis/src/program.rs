//! The program the hazard analyses run on: a control-flow graph (petgraph) of basic blocks whose
//! instructions say only what the analyses need — which variables they define and use, what kind of
//! effect they have, and where they come from (an IR statement path or a PTX line and column).
//!
//! Both front ends lower into it: [`crate::ir_front`] from verified warpforge IR, [`crate::ptx_front`]
//! from PTX text. Variables are mutable (PTX registers, IR locals) or defined once (IR values); the
//! analyses treat them alike.

use std::collections::BTreeMap;
use std::fmt;

use warpforge_ir::SourceLoc;

use petgraph::graph::{DiGraph, NodeIndex};

/// Where an instruction comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Location {
    /// An IR statement path such as `body[3].then[1]`.
    Ir(String),
    /// A PTX source position (1-based).
    Ptx {
        /// Line.
        line: usize,
        /// Column.
        col: usize,
    },
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Ir(path) => f.write_str(path),
            Location::Ptx { line, col } => write!(f, "line {line}, column {col}"),
        }
    }
}

/// A variable (IR value or local, PTX register).
pub type Var = usize;

/// Hardware indices the front ends recognise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    /// Thread index in the block (`%tid.x`; the IR's blocks are one-dimensional).
    Thread,
    /// `%tid.y`, `%tid.z`: divergent in the block; the same in every lane of a warp when the block's
    /// x-dimension is a multiple of 32.
    ThreadYz,
    /// Lane in the warp.
    Lane,
    /// A lane mask (`%lanemask_eq`, `_lt`, `_le`, `_gt`, `_ge`): different in every lane, any
    /// 32-bit value (not a lane number).
    LaneMask,
    /// Warp in the block.
    Warp,
    /// Block index, block size, grid size, warp size: uniform everywhere.
    Uniform,
}

/// Arithmetic the value facts (ranges, alignment) understand; anything else is `Other`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    /// Copy of the single operand.
    Mov,
    /// Sum.
    Add,
    /// Difference.
    Sub,
    /// Low product.
    Mul,
    /// Shift left.
    Shl,
    /// Logical shift right.
    Shr,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
    /// Unsigned remainder.
    Rem,
    /// Unsigned quotient.
    Div,
    /// An integer comparison of its two operands (`a < b`, `a == b`, …): 0 or 1; `true` when signed.
    Cmp(Cmp, bool),
    /// Bitwise exclusive or.
    Xor,
    /// Sign extension of a 32-bit value (`cvt.s64.s32`): the value itself when it is below 2³¹.
    Sext32,
    /// One of its first two operands, chosen by the third (`selp`).
    Select,
    /// Anything else (other comparisons, conversions, floats…).
    Other,
}

/// What is known of the block's x-dimension being a multiple of 32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpAlignment {
    /// Known: the kernel says its block size (`.reqntid`, or the IR's block size).
    Known(bool),
    /// Not said by the kernel: assumed a multiple of 32 (nearly every launch; turned off by
    /// `warpforge lint --no-assume-warp-aligned-blocks`), and said in the findings' explanation.
    Assumed,
    /// Not said by the kernel, and not assumed.
    Unknown,
}

impl WarpAlignment {
    /// Whether warp-granular reasoning on `%tid.x` may be used.
    pub fn holds(self) -> bool {
        matches!(self, WarpAlignment::Known(true) | WarpAlignment::Assumed)
    }
}

/// An integer comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `a < b`.
    Lt,
    /// `a <= b`.
    Le,
    /// `a > b`.
    Gt,
    /// `a >= b`.
    Ge,
    /// `a == b`.
    Eq,
    /// `a != b`.
    Ne,
}

/// A memory space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// Block-shared memory; the index of the shared array when known.
    Shared(Option<usize>),
    /// Global memory.
    Global,
    /// A generic or unknown address.
    Generic,
}

/// A memory address: `base` (a byte-address variable, or none for a constant / symbol) plus a constant
/// `offset`, or an element `index` variable scaled by the element size (IR front end).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Address {
    /// The space accessed.
    pub space: Space,
    /// A variable holding a byte address or byte offset within the space.
    pub byte_var: Option<Var>,
    /// A variable holding an element index (scaled by `elem_bytes`).
    pub index_var: Option<Var>,
    /// Element size for `index_var`.
    pub elem_bytes: u32,
    /// A constant byte offset.
    pub offset: i64,
}

/// Warp-collective kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collective {
    /// `shfl.sync` with the lane operand given, and whether it is an index shuffle.
    Shuffle {
        /// An index-mode shuffle (a broadcast when its lane operand is uniform).
        index_mode: bool,
    },
    /// `vote.sync.ballot`.
    Ballot,
    /// `vote.sync.any/all`.
    Vote,
    /// `match.any.sync`.
    Match,
    /// `bar.warp.sync`.
    Sync,
}

/// A collective's lane mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaskInfo {
    /// A constant mask.
    Const(u32),
    /// A variable.
    Var(Var),
}

/// What an instruction does, as far as the analyses care.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// A constant.
    Const(u64),
    /// A kernel parameter (uniform). Buffer pointers are assumed 256-byte aligned, as CUDA allocations
    /// and WebGPU bindings are.
    Param,
    /// The address of a shared array (PTX `mov.u32 %r, s_name`): uniform, aligned as declared.
    SharedAddr(usize),
    /// A hardware index.
    Special(Special),
    /// Arithmetic over the uses.
    Arith(Arith),
    /// A load of `width` bytes; `read_only` when the memory is never written during the kernel.
    Load {
        /// Where.
        addr: Address,
        /// Access width in bytes.
        width: u32,
        /// Global memory the kernel never writes (its loads at a uniform address are uniform).
        read_only: bool,
    },
    /// A store of `width` bytes of `value`.
    Store {
        /// Where.
        addr: Address,
        /// Access width in bytes.
        width: u32,
        /// The stored variables (one per element).
        values: Vec<Var>,
    },
    /// An atomic read-modify-write (its result is divergent).
    Atomic {
        /// Where.
        addr: Address,
    },
    /// A block barrier.
    Barrier,
    /// A warp collective.
    Collective {
        /// Which.
        kind: Collective,
        /// Its mask.
        mask: MaskInfo,
    },
    /// An instruction the front end does not model: its definitions are taken as divergent.
    Unknown(String),
}

/// One instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    /// Where it comes from.
    pub loc: Location,
    /// What it does.
    pub op: Op,
    /// Variables it writes.
    pub defs: Vec<Var>,
    /// Variables it reads (operands; for memory, the address variables come first).
    pub uses: Vec<Var>,
    /// A guard predicate (PTX `@%p` / `@!%p`): the instruction runs only where it holds.
    pub guard: Option<Var>,
}

/// How a block ends.
#[derive(Clone, Debug, PartialEq)]
pub enum Terminator {
    /// Falls or jumps to its single successor.
    Jump,
    /// Branches on `cond` (two successors; the edge added first is the side taken when `cond` is
    /// nonzero).
    Branch {
        /// The condition variable.
        cond: Var,
        /// Where the branch is.
        loc: Location,
    },
    /// Ends the thread.
    Return,
}

/// A basic block.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// Its instructions.
    pub insts: Vec<Inst>,
    /// How it ends.
    pub term: Terminator,
}

/// A shared array (IR) or `.shared` symbol (PTX).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedDecl {
    /// Its name.
    pub name: String,
    /// Size in bytes.
    pub bytes: u64,
    /// Alignment of its start.
    pub align: u32,
}

/// A kernel lowered for analysis.
#[derive(Clone, Debug)]
pub struct Program {
    /// The kernel's name.
    pub name: String,
    /// Threads per block when known (IR always; PTX when `.reqntid`/`.maxntid` says).
    pub block_size: Option<u32>,
    /// All the threads of a block (x·y·z) when the launch is declared (`.reqntid`, `--block`, the
    /// IR's block size): which lanes exist when a block is smaller than a warp.
    pub block_threads: Option<u32>,
    /// Whether the x-dimension of the block is a multiple of 32, known (`.reqntid`, the IR's rule) or
    /// assumed ([`WarpAlignment`]): then a warp's lanes have consecutive `%tid.x` from a multiple of 32
    /// and equal `%tid.y`/`%tid.z`, so `%tid.x / 32` and `%tid.x < 32·k` agree within each warp.
    pub warp_aligned_x: WarpAlignment,
    /// Whether `%tid.x` takes every value below `block_size` in some block (`.reqntid`; the IR;
    /// `.maxntid` of a kernel that never reads `%tid.y`/`%tid.z`, i.e. one launched one-dimensionally).
    pub thread_range_exact: bool,
    /// Variable names, for messages.
    pub var_names: Vec<String>,
    /// Each variable's width in bits when known (0: unknown): arithmetic on it wraps at 2^bits.
    pub var_bits: Vec<u8>,
    /// The control-flow graph.
    pub cfg: DiGraph<Block, ()>,
    /// The entry block.
    pub entry: NodeIndex,
    /// Per block ending in a [`Terminator::Branch`] with two different successors: the successor it
    /// reaches when the condition is the given value (the other successor gets the opposite).
    pub taken: Vec<Option<(NodeIndex, bool)>>,
    /// Shared arrays.
    pub shared: Vec<SharedDecl>,
    /// What the front end could not model (reported as notes).
    pub unknown: Vec<(Location, String)>,
    /// Where instructions came from in the kernel's source language, when known: the IR's source
    /// positions (Rust, from `#[warpforge::kernel]`) by statement path, or the `.loc` line in force
    /// at a PTX instruction. Findings name them beside their [`Location`].
    pub sources: BTreeMap<Location, SourceLoc>,
}

impl Program {
    /// Whether a block is one warp (then warp-uniform is block-uniform).
    pub fn single_warp(&self) -> bool {
        self.block_size == Some(32)
    }

    /// A variable's name.
    pub fn var_name(&self, v: Var) -> &str {
        self.var_names.get(v).map_or("?", String::as_str)
    }
}
