//! What the sanitizer reports: [`Finding`]s, each naming the check, the statement, the block, warp and
//! lanes, and the address where there is one.

use crate::profile::ProfileSite;
use std::fmt;

/// The compute-sanitizer tool a finding belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Check {
    /// Memory errors: out-of-bounds and misaligned accesses, reads of uninitialized shared memory.
    Memcheck,
    /// Synchronization errors: partial barriers, collectives whose mask does not match the lanes there.
    Synccheck,
    /// Data races on shared memory (between barriers) and on global memory within a block.
    Racecheck,
    /// The launch itself: a block that ran past the step limit.
    Launch,
}

impl Check {
    /// The tool's name (`memcheck`, …).
    pub const fn name(self) -> &'static str {
        match self {
            Check::Memcheck => "memcheck",
            Check::Synccheck => "synccheck",
            Check::Racecheck => "racecheck",
            Check::Launch => "launch",
        }
    }
}

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// The kernel's result is undefined (or the block was stopped).
    Error,
    /// Suspicious but defined (e.g. reading shared memory no thread wrote: its contents are zero here,
    /// garbage on hardware).
    Warning,
}

/// What was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FindingKind {
    /// An access past the end of a global buffer or a shared array (CUDA: `CUDA_ERROR_ILLEGAL_ADDRESS`,
    /// 700). The block stops.
    OutOfBounds,
    /// A wide access whose address is not a multiple of its width (CUDA:
    /// `CUDA_ERROR_MISALIGNED_ADDRESS`, 716). The block stops.
    Misaligned,
    /// A read of shared memory that no thread of the block has written (initcheck). A warning.
    UninitializedShared,
    /// A barrier that part of the block reached while the rest exited or waits elsewhere. The block
    /// stops instead of hanging.
    PartialBarrier,
    /// A warp collective whose mask names a lane that is not executing it, or executed by a lane its
    /// mask leaves out, or whose lanes disagree on the mask. The block stops.
    CollectiveMask,
    /// A shuffle reading a lane outside its mask (the value is unspecified on CUDA; the lane's own value
    /// here).
    ShuffleOutsideMask,
    /// Two threads of a block touch the same shared byte between two barriers, one of them writing, and
    /// not both atomically.
    SharedRace,
    /// The same on a global byte within one block, or on a global byte written by one block and read or
    /// written by another (blocks are unordered).
    GlobalRace,
    /// A block executed more warp-instructions than the step limit (an endless loop?). The block stops.
    StepLimit,
    /// Warps that wait on each other through memory and can never stop waiting (PTX): every warp
    /// still running came back to a state it had been in, with no byte of memory changed in between
    /// and no other block running. The block stops.
    Deadlock,
    /// A call past the simulator's limits on calls in progress (depth, or bytes of frames per
    /// thread or per block): unbounded recursion? The block stops.
    StackOverflow,
    /// A `brx.idx` whose index is past its `.branchtargets` list (undefined in the PTX ISA). The
    /// block stops.
    BranchIndex,
    /// A `cp.async` misused (PTX): a thread that exits with copies no wait covers, or a src-size
    /// past the cp-size.
    AsyncCopy,
    /// An mbarrier misused (PTX): used uninitialized or invalidated, initialized while in use,
    /// more arrivals than a phase expects, invalidated while waited on. The block stops.
    Mbarrier,
    /// A thread executed `trap` (PTX): the kernel aborts. The block stops.
    Trap,
    /// A device `assert()` failed (CUDA's `__assertfail`): the kernel aborts, naming the assertion,
    /// its file and line. The block stops.
    Assert,
}

impl FindingKind {
    /// The check it belongs to.
    pub const fn check(self) -> Check {
        match self {
            FindingKind::OutOfBounds
            | FindingKind::Misaligned
            | FindingKind::UninitializedShared => Check::Memcheck,
            FindingKind::PartialBarrier
            | FindingKind::CollectiveMask
            | FindingKind::ShuffleOutsideMask
            | FindingKind::AsyncCopy
            | FindingKind::Mbarrier => Check::Synccheck,
            FindingKind::SharedRace | FindingKind::GlobalRace => Check::Racecheck,
            FindingKind::StepLimit
            | FindingKind::Deadlock
            | FindingKind::StackOverflow
            | FindingKind::BranchIndex
            | FindingKind::Trap
            | FindingKind::Assert => Check::Launch,
        }
    }

    /// A short kebab-case name (`out-of-bounds`, …).
    pub const fn name(self) -> &'static str {
        match self {
            FindingKind::OutOfBounds => "out-of-bounds",
            FindingKind::Misaligned => "misaligned",
            FindingKind::UninitializedShared => "uninitialized-shared-read",
            FindingKind::PartialBarrier => "partial-barrier",
            FindingKind::CollectiveMask => "collective-mask",
            FindingKind::ShuffleOutsideMask => "shuffle-outside-mask",
            FindingKind::SharedRace => "shared-race",
            FindingKind::GlobalRace => "global-race",
            FindingKind::StepLimit => "step-limit",
            FindingKind::Deadlock => "deadlock",
            FindingKind::StackOverflow => "stack-overflow",
            FindingKind::BranchIndex => "branch-index",
            FindingKind::AsyncCopy => "async-copy",
            FindingKind::Mbarrier => "mbarrier",
            FindingKind::Trap => "trap",
            FindingKind::Assert => "assert",
        }
    }

    /// Its severity.
    pub const fn severity(self) -> Severity {
        match self {
            FindingKind::UninitializedShared => Severity::Warning,
            _ => Severity::Error,
        }
    }

    /// Whether the block stops at this finding (memory faults, broken synchronization, the step
    /// limit), as a GPU would trap or hang.
    pub const fn stops_block(self) -> bool {
        matches!(
            self,
            FindingKind::OutOfBounds
                | FindingKind::Misaligned
                | FindingKind::PartialBarrier
                | FindingKind::CollectiveMask
                | FindingKind::StepLimit
                | FindingKind::Deadlock
                | FindingKind::StackOverflow
                | FindingKind::BranchIndex
                | FindingKind::Mbarrier
                | FindingKind::Trap
                | FindingKind::Assert
        )
    }
}

/// One sanitizer finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// What was found.
    pub kind: FindingKind,
    /// The statement: its path and what it does (`body[4].then[0] (store to `tile`)`).
    pub statement: String,
    /// Where it is, as data: the IR statement path or the PTX line.
    pub site: ProfileSite,
    /// The block.
    pub block: u32,
    /// The warp within the block.
    pub warp: u32,
    /// The lanes involved (bit `i`: lane `i`).
    pub lanes: u32,
    /// The address, where the finding is about memory: the array and the byte offset in it.
    pub address: Option<(String, u64)>,
    /// The rest of the story: sizes, the other statement of a race, who did not arrive at a barrier.
    pub detail: String,
    /// How many other blocks reported the same kind of finding at the same statement (they are not
    /// listed one by one).
    pub other_blocks: u64,
}

impl Finding {
    /// Its severity.
    pub fn severity(&self) -> Severity {
        self.kind.severity()
    }
}

/// Lane numbers as compact ranges: `0-15, 20`.
pub fn lane_list(mask: u32) -> String {
    let mut parts = Vec::new();
    let mut lane = 0;
    while lane < 32 {
        if mask >> lane & 1 == 0 {
            lane += 1;
            continue;
        }
        let start = lane;
        while lane < 32 && mask >> lane & 1 == 1 {
            lane += 1;
        }
        parts.push(if lane - 1 == start {
            format!("{start}")
        } else {
            format!("{start}-{}", lane - 1)
        });
    }
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let severity = match self.severity() {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(
            f,
            "{severity}[{}/{}] {}: block {}, warp {}, lanes {}",
            self.kind.check().name(),
            self.kind.name(),
            self.statement,
            self.block,
            self.warp,
            lane_list(self.lanes)
        )?;
        if let Some((array, offset)) = &self.address {
            write!(f, ", `{array}` byte {offset}")?;
        }
        if !self.detail.is_empty() {
            write!(f, ": {}", self.detail)?;
        }
        if self.other_blocks > 0 {
            write!(f, " (and the same in {} other blocks)", self.other_blocks)?;
        }
        Ok(())
    }
}
