//! The state of a block's asynchronous copies (`cp.async`, `cp.async.bulk`) and of its mbarriers'
//! arrivals, as racecheck orders them; `exec_async.rs` executes the instructions on it.

use std::collections::VecDeque;

use rustc_hash::FxHashMap as HashMap;

use crate::race::Arrivals;

/// One copy that was issued and not yet performed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Copy {
    /// The `cp.async`.
    pub(super) pc: u32,
    /// Shared destination (absolute byte) and bytes (cp-size).
    pub(super) dst: u64,
    pub(super) size: u32,
    /// The global source (buffer, byte) and how many bytes come from it (the rest are zeros).
    pub(super) src: (u32, u64),
    pub(super) from_src: u32,
}

impl Copy {
    /// Whether it writes shared byte `b`.
    pub(super) fn covers(&self, b: u64) -> bool {
        self.dst <= b && b < self.dst + u64::from(self.size)
    }

    /// Where the value it writes to shared byte `b` comes from: a global (buffer, byte), or
    /// `None` for a zero of the fill.
    pub(super) fn origin(&self, b: u64) -> Option<(u32, u64)> {
        let at = b - self.dst;
        (at < u64::from(self.from_src)).then_some((self.src.0, self.src.1 + at))
    }
}

/// One thread's copies: the current group, then the committed groups, oldest first.
#[derive(Clone, Debug, Default)]
pub(super) struct Thread {
    pub(super) open: Vec<Copy>,
    pub(super) groups: VecDeque<Vec<Copy>>,
}

impl Thread {
    pub(super) fn is_empty(&self) -> bool {
        self.open.is_empty() && self.groups.iter().all(Vec::is_empty)
    }
}

/// A block's pending copies, and the mbarrier arrivals racecheck orders by.
#[derive(Debug, Default)]
pub(crate) struct AsyncState {
    pub(super) threads: Vec<Thread>,
    /// Pending copies writing each shared byte (allocated with the first copy).
    pub(super) dst_bytes: Vec<u32>,
    /// Pending copies reading each global byte.
    pub(super) src_bytes: HashMap<(u32, u64), u32>,
    /// Copies pending in the block.
    pub(super) pending: usize,
    /// Per mbarrier (shared byte): the (thread, warp step) of each arrival in the current phase,
    /// and the arrivals of the last completed phase of each parity (racecheck only).
    pub arrivals: HashMap<u64, Vec<(u32, u64)>>,
    pub completed: HashMap<(u64, bool), Arrivals>,
    /// Per mbarrier: the warps whose last wait on it found its phase incomplete.
    pub waiting: HashMap<u64, u64>,
}

impl AsyncState {
    /// Counts `c` pending (`add`) or no longer pending.
    pub(super) fn track(&mut self, c: &Copy, add: bool) {
        let step = |n: &mut u32| {
            if add {
                *n += 1
            } else {
                *n = n.saturating_sub(1)
            }
        };
        for b in c.dst..c.dst + u64::from(c.size) {
            if let Some(n) = self.dst_bytes.get_mut(b as usize) {
                step(n);
            }
        }
        for b in 0..u64::from(c.from_src) {
            let n = self.src_bytes.entry((c.src.0, c.src.1 + b)).or_insert(0);
            step(n);
            if *n == 0 {
                self.src_bytes.remove(&(c.src.0, c.src.1 + b));
            }
        }
        if add {
            self.pending += 1;
        } else {
            self.pending -= 1;
        }
    }

    /// A pending copy (and its thread) satisfying `hits`.
    pub(super) fn find(&self, hits: impl Fn(&Copy) -> bool) -> Option<(u32, Copy)> {
        self.threads.iter().enumerate().find_map(|(t, th)| {
            th.open
                .iter()
                .chain(th.groups.iter().flatten())
                .find(|c| hits(c))
                .map(|c| (t as u32, *c))
        })
    }
}
