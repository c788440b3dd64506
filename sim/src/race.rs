//! racecheck: a happens-before check per byte, between barriers. A barrier orders everything before it
//! against everything after it (for shared and global memory); a `warp_sync` orders the accesses of the
//! lanes in its mask. Every other pair of accesses to one byte from two different threads, at least one
//! a write and not both strong (an atomic, or a PTX load or store with `.relaxed`, `.acquire`,
//! `.release` or `.volatile`: the PTX memory model's morally strong pairs within a block), is a race — including two lanes of one warp at different statements
//! (independent thread scheduling makes them unordered on Volta and later, and on WebGPU lanes are
//! invocations), and lanes of the same statement writing different values (which one lands is
//! undefined).

use std::collections::HashMap;
use std::rc::Rc;

/// How strong an access is in the PTX memory model: plain, or strong within its block (`.cta` scope),
/// or strong across the device (`.gpu`/`.sys` scope, or `.volatile`, which is `.relaxed.sys`).
/// Strong accesses do not race with each other or with atomics within their scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strength {
    Plain,
    Block,
    Device,
}

/// The arrivals of one completed mbarrier phase: each arriving thread and its warp step then.
pub(crate) type Arrivals = Rc<[(u32, u64)]>;

/// A write (or atomic) to a byte since the last barrier.
#[derive(Clone, Copy, Debug)]
struct WriteRec {
    thread: u32,
    pc: u32,
    step: u64,
    strong: bool,
    byte: u8,
}

/// The reads of a byte by one warp at one dynamic instruction.
#[derive(Clone, Copy, Debug)]
struct ReadRec {
    warp: u32,
    lanes: u32,
    pc: u32,
    step: u64,
    /// A strong load (see the module docs).
    strong: bool,
}

/// One byte's accesses since the last barrier.
#[derive(Clone, Debug, Default)]
struct Shadow {
    epoch: u64,
    write: Option<WriteRec>,
    reads: Vec<ReadRec>,
}

/// A race found: the two statements (program counters) and the threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Race {
    /// The earlier access.
    pub first_pc: u32,
    /// Its thread (within the block).
    pub first_thread: u32,
    /// Whether it wrote.
    pub first_wrote: bool,
    /// The later access.
    pub second_pc: u32,
    /// Its thread.
    pub second_thread: u32,
    /// Whether it wrote.
    pub second_wrote: bool,
    /// Both at the same statement, writing different values.
    pub same_statement: bool,
}

/// An access being checked.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Touch {
    pub thread: u32,
    pub pc: u32,
    pub step: u64,
    pub write: bool,
    /// An atomic or a strong load or store (see the module docs).
    pub strong: bool,
    /// The byte written (writes only).
    pub byte: u8,
}

/// The shadow state of a block's shared memory (dense) or global memory (sparse, keyed by buffer and
/// byte address), plus each warp's `warp_sync`s since the last barrier.
#[derive(Debug, Default)]
pub(crate) struct RaceState {
    shared: Vec<Shadow>,
    global: HashMap<(u32, u64), Shadow>,
    epoch: u64,
    /// Per warp: (step, mask) of each `warp_sync` since the last barrier.
    syncs: Vec<Vec<(u64, u32)>>,
    /// Per thread: the mbarrier waits it passed since the last barrier, each with the warp step
    /// of the wait and the (thread, step) of every arrival of the phase it waited for (PTX).
    edges: HashMap<u32, Vec<(Arrivals, u64)>>,
}

impl RaceState {
    pub fn new(shared_bytes: usize, warps: usize) -> Self {
        RaceState {
            shared: vec![Shadow::default(); shared_bytes],
            global: HashMap::new(),
            epoch: 1,
            syncs: vec![Vec::new(); warps],
            edges: HashMap::new(),
        }
    }

    /// A wait by `thread` at `step` that saw an mbarrier phase complete: everything each thread of
    /// `arrivals` did up to its arrival (at its step) happens before what `thread` does after.
    pub fn sync_edge(&mut self, arrivals: Arrivals, thread: u32, step: u64) {
        self.edges.entry(thread).or_default().push((arrivals, step));
    }

    /// A barrier: everything before it happens before everything after.
    pub fn barrier(&mut self) {
        self.epoch += 1;
        self.global.clear();
        self.edges.clear();
        for s in &mut self.syncs {
            s.clear();
        }
    }

    /// A `warp_sync` of `mask` by `warp` at `step`.
    pub fn warp_sync(&mut self, warp: u32, step: u64, mask: u32) {
        self.syncs[warp as usize].push((step, mask));
    }

    /// Whether an access by `a_thread` at `a_step` is ordered before one by `b_thread` at `b_step`
    /// (same warp, a `warp_sync` between them naming both lanes; or `a_thread` arrived on an
    /// mbarrier after the access and `b_thread` saw that phase complete before its access).
    fn ordered(&self, a_thread: u32, a_step: u64, b_thread: u32, b_step: u64) -> bool {
        let by_mbarrier = self.edges.get(&b_thread).is_some_and(|waits| {
            waits.iter().any(|(arrivals, wait)| {
                *wait <= b_step
                    && arrivals
                        .iter()
                        .any(|&(t, arrived)| t == a_thread && a_step <= arrived)
            })
        });
        if by_mbarrier {
            return true;
        }
        let warp = a_thread / 32;
        if warp != b_thread / 32 {
            return false;
        }
        let both = 1u32 << (a_thread % 32) | 1u32 << (b_thread % 32);
        self.syncs[warp as usize]
            .iter()
            .any(|&(step, mask)| step > a_step && step < b_step && mask & both == both)
    }

    /// Checks and records an access to shared byte `addr`.
    pub fn shared(&mut self, addr: usize, t: Touch) -> Option<Race> {
        let epoch = self.epoch;
        let mut shadow = std::mem::take(&mut self.shared[addr]);
        if shadow.epoch != epoch {
            shadow = Shadow {
                epoch,
                ..Shadow::default()
            };
        }
        let race = self.check(&mut shadow, t);
        self.shared[addr] = shadow;
        race
    }

    /// Checks and records an access to byte `addr` of global buffer `buffer`.
    pub fn global(&mut self, buffer: u32, addr: u64, t: Touch) -> Option<Race> {
        let mut shadow = self.global.remove(&(buffer, addr)).unwrap_or_default();
        let race = self.check(&mut shadow, t);
        self.global.insert((buffer, addr), shadow);
        race
    }

    fn check(&self, shadow: &mut Shadow, t: Touch) -> Option<Race> {
        let mut race = None;
        if let Some(w) = shadow.write {
            let unordered = w.thread != t.thread
                && !(w.strong && t.strong)
                && !self.ordered(w.thread, w.step, t.thread, t.step);
            let same_instance = w.step == t.step && w.pc == t.pc && w.thread / 32 == t.thread / 32;
            let benign = same_instance && (!t.write || w.byte == t.byte);
            if unordered && !benign {
                race = Some(Race {
                    first_pc: w.pc,
                    first_thread: w.thread,
                    first_wrote: true,
                    second_pc: t.pc,
                    second_thread: t.thread,
                    second_wrote: t.write,
                    same_statement: same_instance,
                });
            }
        }
        if t.write {
            if race.is_none() {
                let lane = t.thread % 32;
                let warp = t.thread / 32;
                for r in &shadow.reads {
                    let others = if r.warp == warp {
                        r.lanes & !(1 << lane)
                    } else {
                        r.lanes
                    };
                    if others == 0 || (r.strong && t.strong) {
                        continue;
                    }
                    let reader = r.warp * 32 + others.trailing_zeros();
                    if !self.ordered(reader, r.step, t.thread, t.step) {
                        race = Some(Race {
                            first_pc: r.pc,
                            first_thread: reader,
                            first_wrote: false,
                            second_pc: t.pc,
                            second_thread: t.thread,
                            second_wrote: true,
                            same_statement: false,
                        });
                        break;
                    }
                }
            }
            shadow.write = Some(WriteRec {
                thread: t.thread,
                pc: t.pc,
                step: t.step,
                strong: t.strong,
                byte: t.byte,
            });
            shadow.reads.clear();
        } else {
            let warp = t.thread / 32;
            let bit = 1u32 << (t.thread % 32);
            match shadow.reads.last_mut() {
                Some(r) if r.warp == warp && r.step == t.step => r.lanes |= bit,
                _ => shadow.reads.push(ReadRec {
                    warp,
                    lanes: bit,
                    pc: t.pc,
                    step: t.step,
                    strong: t.strong,
                }),
            }
        }
        race
    }
}
