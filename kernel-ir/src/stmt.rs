//! Statements: the tree that owns control flow, memory access, synchronization and warp collectives.
//!
//! Control flow is structured (if / loop / break / continue / return), as in naga and WGSL. Statements
//! that produce results define fresh [`Value`]s; each value is defined exactly once and is visible from
//! its definition to the end of the enclosing block (nested blocks included).

use crate::expr::{keyword_table, Expr};
use crate::kernel::{LocalId, ParamId, SharedId, Value};

/// A sequence of statements.
pub type Block = Vec<Stmt>;

/// One statement.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Stmt {
    /// Binds `value` to the result of a pure expression.
    Let {
        /// The value defined here.
        value: Value,
        /// What it is computed from.
        expr: Expr,
    },
    /// Writes a mutable local.
    Assign {
        /// The local written.
        local: LocalId,
        /// The new contents.
        value: Value,
    },
    /// Reads element `index` of `array` into `value`.
    Load {
        /// The value defined here (type: the element type).
        value: Value,
        /// The array read.
        array: MemRef,
        /// Element index (`u32` or `u64`).
        index: Value,
    },
    /// Writes `value` to element `index` of `array`.
    Store {
        /// The array written (a read-write buffer or shared array).
        array: MemRef,
        /// Element index (`u32` or `u64`).
        index: Value,
        /// The stored value (type: the element type).
        value: Value,
    },
    /// Reads 2 or 4 consecutive `u32` elements starting at `index` in one 8- or 16-byte access.
    /// `index` must be a multiple of the width for the access to be aligned (the analyzer checks it).
    LoadWide {
        /// The values defined here, one per element (2 or 4, all `u32`).
        values: Vec<Value>,
        /// A `u32` array.
        array: MemRef,
        /// Index of the first element.
        index: Value,
    },
    /// Reads byte `index` of a `u32` array (byte `index % 4`, little-endian, of element `index / 4`),
    /// zero-extended into `value` (`u32`): one byte access (`ld.u8`) instead of a word load and the
    /// shifts that pick the byte out of it (what WGSL, which has no byte access, does).
    LoadByte {
        /// The value defined here (`u32`).
        value: Value,
        /// A `u32` array.
        array: MemRef,
        /// Byte index (`u32` or `u64`).
        index: Value,
    },
    /// Writes the low byte of `value` (`u32`) to byte `index` of a read-write `u32` array (byte
    /// `index % 4`, little-endian, of element `index / 4`), leaving the element's other bytes: one
    /// `st.u8`; on WGSL an atomic clear and set of the byte in its word (the array is atomic there).
    StoreByte {
        /// A read-write `u32` array.
        array: MemRef,
        /// Byte index (`u32` or `u64`).
        index: Value,
        /// The stored byte, in the low 8 bits of a `u32`.
        value: Value,
    },
    /// Writes 2 or 4 consecutive `u32` elements starting at `index` in one access.
    StoreWide {
        /// A read-write `u32` array.
        array: MemRef,
        /// Index of the first element.
        index: Value,
        /// The stored values (2 or 4, all `u32`).
        values: Vec<Value>,
    },
    /// An atomic read-modify-write on a `u32` element; `value` receives the old contents.
    Atomic {
        /// The old contents of the element.
        value: Value,
        /// The operation.
        op: AtomicOp,
        /// A read-write `u32` array.
        array: MemRef,
        /// Element index.
        index: Value,
        /// The operand (the new value for exchange and compare-and-swap).
        operand: Value,
        /// For compare-and-swap only: the expected old contents.
        compare: Option<Value>,
    },
    /// Two-way branch on a `bool`.
    If {
        /// The condition.
        cond: Value,
        /// Runs when `cond` is true.
        then_block: Block,
        /// Runs when `cond` is false (may be empty).
        else_block: Block,
    },
    /// Repeats `body` until a `break` (or `return`).
    Loop {
        /// The loop body.
        body: Block,
    },
    /// Leaves the innermost loop.
    Break,
    /// Starts the next iteration of the innermost loop.
    Continue,
    /// Ends the thread.
    Return,
    /// Block-wide barrier with memory ordering for shared and global memory (`bar.sync 0`,
    /// `workgroupBarrier`). Must be reached by every thread of the block.
    Barrier,
    /// A warp collective over the lanes named in `mask`.
    Warp(WarpOp),
}

/// The array a memory statement touches. The address space is part of the reference: a shared array
/// can never be accessed as a global buffer or the other way round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemRef {
    /// A global buffer passed as a kernel parameter.
    Global(ParamId),
    /// A block-shared array declared by the kernel.
    Shared(SharedId),
}

/// Atomic read-modify-write operations (all on `u32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// `old + operand` (wrapping).
    Add,
    /// Unsigned minimum.
    Min,
    /// Unsigned maximum.
    Max,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Replace with `operand`.
    Exchange,
    /// Replace with `operand` if the old contents equal `compare`.
    CompareExchange,
}

keyword_table!(AtomicOp {
    Add => "add", Min => "min", Max => "max", And => "and", Or => "or", Exchange => "exch",
    CompareExchange => "cas",
});

/// The lanes taking part in a warp collective. Every lane named must execute the same collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mask {
    /// A constant lane mask; must be non-zero. `0xffff_ffff` is the full warp.
    Const(u32),
    /// A mask computed at run time (a `u32` value).
    Dynamic(Value),
}

impl Mask {
    /// All 32 lanes.
    pub const FULL: Mask = Mask::Const(u32::MAX);
}

/// Lane-to-lane data movement modes of [`WarpOp::Shuffle`] (CUDA's `shfl.sync` modes). The lane operand
/// is taken modulo 32 in every mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShuffleMode {
    /// Read from lane `lane`.
    Index,
    /// Read from lane `self - lane`; lanes below `lane` keep their own value.
    Up,
    /// Read from lane `self + lane`; lanes whose source is past 31 keep their own value.
    Down,
    /// Read from lane `self ^ lane`.
    Xor,
}

keyword_table!(ShuffleMode { Index => "idx", Up => "up", Down => "down", Xor => "xor" });

/// Vote modes of [`WarpOp::Vote`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VoteMode {
    /// True if the predicate holds on any participating lane.
    Any,
    /// True if the predicate holds on every participating lane.
    All,
}

keyword_table!(VoteMode { Any => "any", All => "all" });

/// Warp collectives. Each is a statement so it cannot be moved across control flow.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum WarpOp {
    /// Reads `src` from another lane (`u32`, `i32` or `f32`). The source lane is computed from `lane`
    /// (a `u32`, taken modulo 32) according to `mode`. Reading from a lane outside `mask` gives an
    /// unspecified value, as on CUDA; the analyzer reports masks that cannot match the active lanes.
    Shuffle {
        /// The value defined here (type of `src`).
        value: Value,
        /// How the source lane is chosen.
        mode: ShuffleMode,
        /// What each lane offers.
        src: Value,
        /// Lane index, delta or xor mask (`u32`).
        lane: Value,
        /// Participating lanes.
        mask: Mask,
    },
    /// A `u32` whose bit `i` is lane `i`'s `pred`, for the lanes in `mask`.
    Ballot {
        /// The value defined here (`u32`).
        value: Value,
        /// Each lane's predicate (`bool`).
        pred: Value,
        /// Participating lanes.
        mask: Mask,
    },
    /// Whether `pred` holds on any / all participating lanes.
    Vote {
        /// The value defined here (`bool`).
        value: Value,
        /// Any or all.
        mode: VoteMode,
        /// Each lane's predicate (`bool`).
        pred: Value,
        /// Participating lanes.
        mask: Mask,
    },
    /// The mask of participating lanes whose `src` equals this lane's (`u32` or `u64` source).
    MatchAny {
        /// The value defined here (`u32`).
        value: Value,
        /// What each lane offers.
        src: Value,
        /// Participating lanes.
        mask: Mask,
    },
    /// Waits until every lane in `mask` has reached a `warp_sync` with the same mask; orders their
    /// shared-memory accesses.
    Sync {
        /// Participating lanes.
        mask: Mask,
    },
}

impl WarpOp {
    /// The lane mask of this collective.
    pub fn mask(&self) -> Mask {
        match self {
            WarpOp::Shuffle { mask, .. }
            | WarpOp::Ballot { mask, .. }
            | WarpOp::Vote { mask, .. }
            | WarpOp::MatchAny { mask, .. }
            | WarpOp::Sync { mask } => *mask,
        }
    }
}
