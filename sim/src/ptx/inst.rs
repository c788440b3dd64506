//! The decoded form of a PTX instruction: an [`Op`] with every operand resolved to a register index
//! (immediates, special registers and symbol addresses are registers filled before the warp starts),
//! every type and modifier resolved to what the executor needs, and branch targets resolved to
//! instruction indices with their reconvergence points.
use crate::race::{Sem, Strength};

pub(crate) use super::inst_mem::{Addr, AtomOp, CallArg, MemSpace, Slot};
pub(crate) use super::inst_types::*;

/// Barrier flavours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BarKind {
    /// Arrive and wait.
    Sync,
    /// Arrive without waiting.
    Arrive,
    /// Arrive, wait, and reduce a predicate over the participating threads.
    Red(BarRed),
}

/// `bar.red`'s reductions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BarRed {
    Popc,
    And,
    Or,
}

/// `shfl.sync` modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

/// `vote.sync` modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

/// `redux.sync` operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReduxOp {
    Add,
    Min,
    Max,
    And,
    Or,
    Xor,
}

/// One decoded instruction.
#[derive(Clone, Debug)]
pub(crate) enum Op {
    /// `mov`, also of a special register, an immediate or a symbol's address: `d` gets `a`'s low
    /// `bits`.
    Mov {
        d: R,
        a: R,
        bits: u32,
    },
    /// `mov.b64 d, {a, b}` and the like: the parts, lowest first, each `part_bits` wide.
    Pack {
        d: R,
        parts: Vec<R>,
        part_bits: u32,
    },
    /// `mov.b64 {a, b}, d`: `d` split into parts (`None`: `_`).
    Unpack {
        parts: Vec<Option<R>>,
        a: R,
        part_bits: u32,
    },
    IntBin {
        op: IntBin,
        ty: Int,
        d: R,
        a: R,
        b: R,
    },
    IntUn {
        op: IntUn,
        ty: Int,
        d: R,
        a: R,
    },
    /// `mul.{lo,hi,wide}` is `IntBin`/`Mad` without `c`; `mad.{lo,hi,wide}` here.
    Mad {
        half: Half,
        ty: Int,
        d: R,
        a: R,
        b: R,
        c: R,
    },
    /// `mul.wide`.
    MulWide {
        ty: Int,
        d: R,
        a: R,
        b: R,
    },
    Bfe {
        ty: Int,
        d: R,
        a: R,
        b: R,
        c: R,
    },
    Bfi {
        bits: u32,
        d: R,
        a: R,
        b: R,
        c: R,
        e: R,
    },
    /// `mul24`, carry chains, `bmsk`, `dp4a`, `shf`, `lop3`, … (`inst_int.rs`).
    IntX(super::inst_int::IntX),
    /// Half-precision arithmetic, comparisons and conversions, `set`, `testp`, `copysign`
    /// (`inst_half.rs`).
    FloatX(super::inst_half::FloatX),
    /// `ldmatrix`, `stmatrix`, `mma.sync`, `wmma` (`inst_mma.rs`).
    Mma(Box<super::inst_mma::MmaOp>),
    /// `prmt.b32` (the generic form).
    Prmt {
        d: R,
        a: R,
        b: R,
        c: R,
    },
    Setp {
        cmp: Cmp,
        ty: CmpTy,
        p: Option<R>,
        q: Option<R>,
        a: R,
        b: R,
        /// `.and`/`.or`/`.xor` with a predicate, maybe negated.
        combine: Option<(BoolOp, R, bool)>,
    },
    Selp {
        d: R,
        a: R,
        b: R,
        c: R,
        bits: u32,
    },
    Cvt {
        to: Ty,
        from: Ty,
        rnd: Rnd,
        mods: FMods,
        d: R,
        a: R,
    },
    FBin {
        op: FBin,
        ty: FTy,
        mods: FMods,
        d: R,
        a: R,
        b: R,
    },
    /// `fma` and `mad` on `f32` and `f64`.
    Fma {
        ty: FTy,
        mods: FMods,
        d: R,
        a: R,
        b: R,
        c: R,
    },
    FUn {
        op: FUn,
        ty: FTy,
        mods: FMods,
        d: R,
        a: R,
    },
    /// `cvta` (`to_generic`: space → generic; otherwise generic → space); `bits` is 32 or 64.
    Cvta {
        space: MemSpace,
        to_generic: bool,
        d: R,
        a: R,
        bits: u32,
    },
    /// `ld` of `count` elements of `ty`, into `dsts` (a `None` element is a `_` sink).
    Ld {
        space: MemSpace,
        ty: Ty,
        dsts: Vec<Option<R>>,
        addr: Addr,
        /// `.relaxed`, `.acquire` or `.volatile`: a strong load, and its scope (racecheck).
        strong: Strength,
        /// `.acquire` (racecheck's release/acquire edges).
        sem: Sem,
    },
    /// `st`; `strong`: `.relaxed`, `.release` or `.volatile`, and its scope.
    St {
        space: MemSpace,
        ty: Ty,
        srcs: Vec<R>,
        addr: Addr,
        strong: Strength,
        /// `.release`.
        sem: Sem,
    },
    /// `atom` (`d` is `None` for `red`); `sem`: `.acquire`, `.release` or `.acq_rel`.
    Atom {
        space: MemSpace,
        op: AtomOp,
        ty: Int,
        d: Option<R>,
        addr: Addr,
        b: R,
        c: Option<R>,
        sem: Sem,
    },
    /// `bra`: the target and the branch's reconvergence point (its immediate post-dominator, or
    /// [`super::cfg::EXIT`]).
    Bra {
        target: u32,
        reconverge: u32,
    },
    /// `exit`, and `ret` in the entry: the lanes end.
    Exit,
    /// `trap`: the thread aborts the kernel (a finding; the block stops).
    Trap,
    /// A failed device `assert()`: nvcc's call of the CUDA runtime's `__assertfail(message, file,
    /// line, function, char size)` (`.extern`, no body in the module). The kernel aborts, as after
    /// `trap`, with a finding naming the assertion.
    AssertFail {
        message: Slot,
        file: Slot,
        line: Slot,
        function: Slot,
    },
    /// Device `printf`: nvcc's call of the CUDA runtime's `vprintf(format, args)` (`.extern`, no
    /// body in the module), its return value (the number of arguments read) to `ret` if the call
    /// takes one (`printf.rs`, `exec_printf.rs`).
    Printf {
        format: Slot,
        args: Slot,
        ret: Option<Slot>,
    },
    /// `call` of a `.func`: its index in the program's functions, what the call copies into the
    /// callee's parameters, and what comes back from its return parameters at `ret`.
    Call {
        func: u32,
        args: Box<[CallArg]>,
        rets: Box<[CallArg]>,
    },
    /// `ret` in a `.func`: the lanes go back to their caller.
    Ret,
    /// `brx.idx index, tlist`: the table (an index into the program's `.branchtargets` lists) and
    /// the branch's reconvergence point.
    Brx {
        index: R,
        table: u32,
        reconverge: u32,
    },
    Bar {
        kind: BarKind,
        aligned: bool,
        id: R,
        count: Option<R>,
        d: Option<R>,
        pred: Option<(R, bool)>,
    },
    /// `bar.warp.sync`.
    WarpSync {
        mask: R,
    },
    Shfl {
        mode: ShflMode,
        d: R,
        p: Option<R>,
        a: R,
        b: R,
        c: R,
        mask: R,
    },
    Vote {
        mode: VoteMode,
        d: R,
        a: R,
        negate: bool,
        mask: R,
    },
    Match {
        all: bool,
        bits: u32,
        d: R,
        p: Option<R>,
        a: R,
        mask: R,
    },
    Activemask {
        d: R,
    },
    Redux {
        op: ReduxOp,
        ty: Int,
        d: R,
        a: R,
        mask: R,
    },
    /// `cp.async` and its groups, and the mbarrier instructions (`inst_async.rs`).
    Async(super::inst_async::Async),
    /// `membar`, `fence`, `prefetch`, `griddepcontrol`: nothing to do in a sequentially consistent,
    /// cacheless simulator that runs one grid at a time.
    Nop,
    /// A device-scope fence (`membar.gl`/`.sys`, `fence.sc`/`fence.acq_rel` at `.gpu`/`.sys`, what
    /// `__threadfence()` compiles to): no effect on values here (every access is performed in
    /// order), but with a later global atomic it publishes the block's writes to the blocks whose
    /// atomics on that address come after (`sync_blocks.rs`).
    DeviceFence,
    /// `nanosleep`: the warp ends its turn (other warps of the block run first); no time passes.
    Yield,
    /// `mov` from a clock: `%clock`/`%clock64` (the warp's warp-instructions issued so far: one
    /// cycle each) or `%globaltimer` (`_lo`, `_hi`; the block's warp-instructions so far as
    /// nanoseconds). Deterministic and monotone; `bits` is the destination's width.
    Clock {
        d: R,
        timer: Timer,
    },
}

/// Which clock a `mov` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Timer {
    Clock,
    Clock64,
    Global,
    GlobalLo,
    GlobalHi,
}

/// An instruction, its guard and where it came from.
#[derive(Clone, Debug)]
pub(crate) struct Inst {
    pub op: Op,
    /// `@%p` (false) or `@!%p` (true).
    pub guard: Option<(R, bool)>,
}

impl Op {
    /// The lanes' membermask register of a `.sync` collective.
    pub fn sync_mask(&self) -> Option<R> {
        match self {
            Op::WarpSync { mask }
            | Op::Shfl { mask, .. }
            | Op::Vote { mask, .. }
            | Op::Match { mask, .. }
            | Op::Redux { mask, .. } => Some(*mask),
            _ => None,
        }
    }
}
