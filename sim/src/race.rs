//! racecheck: a happens-before check per byte, between barriers. A barrier orders everything before it
//! against everything after it (for shared and global memory); a `warp_sync` orders the accesses of the
//! lanes in its mask. Every other pair of accesses to one byte from two different threads, at least one
//! a write and not both strong (an atomic, or a PTX load or store with `.relaxed`, `.acquire`,
//! `.release` or `.volatile`: the PTX memory model's morally strong pairs within a block), is a race — including two lanes of one warp at different statements
//! (independent thread scheduling makes them unordered on Volta and later, and on WebGPU lanes are
//! invocations), and lanes of the same statement writing different values (which one lands is
//! undefined).
//!
//! Release/acquire on one location also orders (PTX only): a release write (`st.release`, or an
//! `atom`/`red` with `.release` or `.acq_rel`) to a byte, read by an acquire (`ld.acquire`, or an
//! `atom` with `.acquire` or `.acq_rel`) of another thread, orders everything the releasing thread
//! did before the release — and what was ordered before that: the lanes of a `warp_sync` it passed,
//! the arrivals of a wait it passed — before everything the acquiring thread does after the acquire.
//! An approximation on the generous side: the acquire is taken to synchronise with every release to
//! the byte since the last barrier, not only the one whose value it reads (or whose release sequence
//! that value continues), and whatever scope either names (both are within the block here). That can
//! only miss a race, never invent one. `fence` instructions do not take part.

use std::collections::HashMap;
use std::rc::Rc;

use rustc_hash::FxHashMap;

/// How strong an access is in the PTX memory model: plain, or strong within its block (`.cta` scope),
/// or strong across the device (`.gpu`/`.sys` scope, or `.volatile`, which is `.relaxed.sys`).
/// Strong accesses do not race with each other or with atomics within their scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strength {
    Plain,
    Block,
    Device,
}

/// The ordering half of a PTX memory operation's semantics: whether it acquires (`ld.acquire`,
/// `atom.acquire`/`.acq_rel`) and whether it releases (`st.release`, `atom`/`red` with `.release` or
/// `.acq_rel`). Both false for weak and `.relaxed` accesses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sem {
    pub acquire: bool,
    pub release: bool,
}

/// A byte where a release and an acquire can meet: shared memory (the block's byte address) or a
/// byte of a global buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Loc {
    Shared(u64),
    Global(u32, u64),
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

/// One byte's accesses since the last barrier. The reads since the last write are `older`, then
/// `newest`: the newest is kept inline because nearly every read of a byte checks it (is this the same
/// warp at the same instruction?), and a byte's list on the heap was a cache miss per checked access.
#[derive(Clone, Debug, Default)]
struct Shadow {
    epoch: u64,
    write: Option<WriteRec>,
    newest: Option<ReadRec>,
    older: Vec<ReadRec>,
}

impl Shadow {
    /// The reads since the last write, oldest first.
    fn reads(&self) -> impl Iterator<Item = &ReadRec> {
        self.older.iter().chain(self.newest.as_ref())
    }

    fn clear_reads(&mut self) {
        self.newest = None;
        self.older.clear();
    }
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
    /// Global memory's shadow in pages of [`PAGE`] bytes, allocated when first touched and kept
    /// across barriers (a byte's epoch says whether its record is current, as for shared memory):
    /// the page of (buffer, byte / PAGE) is `pages[index]`, found by hashing with Fx (SipHash's
    /// resistance to chosen keys buys nothing here) once per page rather than once per byte.
    page_of: FxHashMap<(u32, u64), u32>,
    pages: Vec<Box<[Shadow]>>,
    /// The page the last global byte was in (accesses touch neighbouring bytes).
    last_page: Option<((u32, u64), u32)>,
    epoch: u64,
    /// Per warp: (step, mask) of each `warp_sync` since the last barrier.
    syncs: Vec<Vec<(u64, u32)>>,
    /// Per thread: the mbarrier waits it passed since the last barrier, each with the warp step
    /// of the wait and the (thread, step) of every arrival of the phase it waited for (PTX).
    edges: HashMap<u32, Vec<(Arrivals, u64)>>,
    /// Per byte: what is ordered before the releases to it since the last barrier, as (thread,
    /// step) — each thread once, at its latest step — for an acquire to take as an edge.
    releases: HashMap<Loc, Arrivals>,
}

impl RaceState {
    /// The state for a block of `shared_bytes` of shared memory and `warps` warps: the one the
    /// last block on this thread gave back (its shadow memory kept, every record made stale by a
    /// new epoch), or a new one. Allocating, zeroing and freeing the shadow pages of every block
    /// was a tenth of racecheck's time.
    pub fn take(shared_bytes: usize, warps: usize) -> Self {
        match SPARE.with(|s| s.borrow_mut().take()) {
            Some(mut r) => {
                r.reset(shared_bytes, warps);
                r
            }
            None => RaceState::new(shared_bytes, warps),
        }
    }

    /// Keeps this state for the next block on this thread (unless its global shadow is past
    /// [`SPARE_PAGES`] pages).
    pub fn give_back(self) {
        if self.pages.len() <= SPARE_PAGES {
            SPARE.with(|s| *s.borrow_mut() = Some(self));
        }
    }

    /// Starts afresh for another block: a new epoch (every shadow byte is stale), no syncs, edges
    /// or releases.
    fn reset(&mut self, shared_bytes: usize, warps: usize) {
        self.barrier();
        self.shared.resize(shared_bytes, Shadow::default());
        self.syncs.clear();
        self.syncs.resize(warps, Vec::new());
        self.last_page = None;
    }

    pub fn new(shared_bytes: usize, warps: usize) -> Self {
        RaceState {
            shared: vec![Shadow::default(); shared_bytes],
            page_of: FxHashMap::default(),
            pages: Vec::new(),
            last_page: None,
            epoch: 1,
            syncs: vec![Vec::new(); warps],
            edges: HashMap::new(),
            releases: HashMap::new(),
        }
    }

    /// A wait by `thread` at `step` that saw an mbarrier phase complete: everything each thread of
    /// `arrivals` did up to its arrival (at its step) happens before what `thread` does after.
    pub fn sync_edge(&mut self, arrivals: Arrivals, thread: u32, step: u64) {
        self.edges.entry(thread).or_default().push((arrivals, step));
    }

    /// A release write to `at` by `thread` at `step`: it, and what is ordered before it (its own
    /// earlier accesses; the lanes of each `warp_sync` it passed, up to that sync; the arrivals of
    /// each wait it passed), happen before what an acquire of `at` is followed by.
    pub fn release(&mut self, at: Loc, thread: u32, step: u64) {
        let mut before: HashMap<u32, u64> = HashMap::new();
        let mut add = |t: u32, s: u64| {
            let e = before.entry(t).or_insert(s);
            *e = (*e).max(s);
        };
        add(thread, step);
        if let Some(old) = self.releases.get(&at) {
            old.iter().for_each(|&(t, s)| add(t, s));
        }
        let warp = thread / 32;
        let me = 1u32 << (thread % 32);
        for &(s, mask) in &self.syncs[warp as usize] {
            if s < step && mask & me != 0 {
                for lane in (0..32).filter(|l| mask >> l & 1 != 0) {
                    add(warp * 32 + lane, s);
                }
            }
        }
        for (arrivals, wait) in self.edges.get(&thread).into_iter().flatten() {
            if *wait <= step {
                arrivals.iter().for_each(|&(t, s)| add(t, s));
            }
        }
        let mut list: Vec<(u32, u64)> = before.into_iter().collect();
        list.sort_unstable();
        self.releases.insert(at, list.into());
    }

    /// An acquire read of `at` by `thread` at `step`: the releases to `at` so far are ordered before
    /// what `thread` does from here on (a spin re-reading an unchanged set adds nothing).
    pub fn acquire(&mut self, at: Loc, thread: u32, step: u64) {
        let Some(from) = self.releases.get(&at) else {
            return;
        };
        let waits = self.edges.entry(thread).or_default();
        if !waits.iter().any(|(a, _)| Rc::ptr_eq(a, from)) {
            waits.push((from.clone(), step));
        }
    }

    /// A barrier: everything before it happens before everything after.
    pub fn barrier(&mut self) {
        self.epoch += 1;
        self.edges.clear();
        self.releases.clear();
        for s in &mut self.syncs {
            s.clear();
        }
    }

    /// A `warp_sync` of `mask` by `warp` at `step`.
    pub fn warp_sync(&mut self, warp: u32, step: u64, mask: u32) {
        let syncs = &mut self.syncs[warp as usize];
        debug_assert!(
            syncs.last().is_none_or(|&(last, _)| last <= step),
            "warp {warp}'s syncs must come in step order (`ordered` relies on it)"
        );
        syncs.push((step, mask));
    }

    /// Checks and records an access to shared byte `addr`.
    pub fn shared(&mut self, addr: usize, t: Touch) -> Option<Race> {
        let order = Order {
            syncs: &self.syncs,
            edges: &self.edges,
        };
        order.check(current(&mut self.shared[addr], self.epoch), t)
    }

    /// Checks and records an access to byte `addr` of global buffer `buffer`.
    pub fn global(&mut self, buffer: u32, addr: u64, t: Touch) -> Option<Race> {
        let key = (buffer, addr / PAGE as u64);
        let index = match self.last_page {
            Some((k, index)) if k == key => index,
            _ => {
                let pages = &mut self.pages;
                let index = *self.page_of.entry(key).or_insert_with(|| {
                    pages.push(vec![Shadow::default(); PAGE].into_boxed_slice());
                    (pages.len() - 1) as u32
                });
                self.last_page = Some((key, index));
                index
            }
        };
        let order = Order {
            syncs: &self.syncs,
            edges: &self.edges,
        };
        let shadow = &mut self.pages[index as usize][(addr % PAGE as u64) as usize];
        order.check(current(shadow, self.epoch), t)
    }
}

/// Bytes per page of the global shadow.
const PAGE: usize = 256;

/// The most global shadow pages a state given back keeps (about 26 MB).
const SPARE_PAGES: usize = 1024;

thread_local! {
    /// The state the last block on this thread gave back.
    static SPARE: std::cell::RefCell<Option<RaceState>> = const { std::cell::RefCell::new(None) };
}

/// `shadow` as of `epoch`: a byte last touched before the current barrier starts afresh (keeping its
/// list's allocation).
#[inline]
fn current(shadow: &mut Shadow, epoch: u64) -> &mut Shadow {
    if shadow.epoch != epoch {
        shadow.epoch = epoch;
        shadow.write = None;
        shadow.clear_reads();
    }
    shadow
}

/// What orders two accesses of a block since its last barrier: each warp's `warp_sync`s and each
/// thread's wait and acquire edges. Borrowed apart from the shadow state, so that a byte's shadow is
/// checked where it lies.
struct Order<'a> {
    /// Per warp: (step, mask) of each `warp_sync` since the last barrier.
    syncs: &'a [Vec<(u64, u32)>],
    /// Per thread: the waits and acquires it passed since the last barrier (see `RaceState::edges`).
    edges: &'a HashMap<u32, Vec<(Arrivals, u64)>>,
}

impl Order<'_> {
    /// Whether `b_thread`, by `b_step`, passed a wait or acquire whose edge covers `a_thread`'s access
    /// at `a_step` (`a_thread` arrived or released after it).
    fn by_edge(&self, a_thread: u32, a_step: u64, b_thread: u32, b_step: u64) -> bool {
        self.edges.get(&b_thread).is_some_and(|waits| {
            waits.iter().any(|(arrivals, wait)| {
                *wait <= b_step
                    && arrivals
                        .iter()
                        .any(|&(t, arrived)| t == a_thread && a_step <= arrived)
            })
        })
    }

    /// Whether an access by `a_thread` at `a_step` is ordered before one by `b_thread` at `b_step`
    /// (same warp, a `warp_sync` between them naming both lanes; or `a_thread` arrived on an
    /// mbarrier, or released a location, after the access and `b_thread` — or a lane of its warp
    /// that then passed a `warp_sync` naming both — saw that phase complete or acquired the location
    /// before its access).
    fn ordered(&self, a_thread: u32, a_step: u64, b_thread: u32, b_step: u64) -> bool {
        if self.by_edge(a_thread, a_step, b_thread, b_step) {
            return true;
        }
        let b_warp = b_thread / 32;
        let b_bit = 1u32 << (b_thread % 32);
        let via_lane = !self.edges.is_empty()
            && self.syncs[b_warp as usize].iter().any(|&(step, mask)| {
                step < b_step
                    && mask & b_bit != 0
                    && (0..32).any(|l| {
                        mask >> l & 1 != 0
                            && b_warp * 32 + l != b_thread
                            && self.by_edge(a_thread, a_step, b_warp * 32 + l, step)
                    })
            });
        if via_lane {
            return true;
        }
        let warp = a_thread / 32;
        if warp != b_warp {
            return false;
        }
        let both = 1u32 << (a_thread % 32) | b_bit;
        // A warp's syncs are in step order: scan back from the newest, down to `a_step` only (between
        // barriers a warp can pass thousands of them; the one that orders a pair is usually recent).
        self.syncs[warp as usize]
            .iter()
            .rev()
            .take_while(|&&(step, _)| step > a_step)
            .any(|&(step, mask)| step < b_step && mask & both == both)
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
                for r in shadow.reads() {
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
            shadow.clear_reads();
        } else {
            let warp = t.thread / 32;
            let bit = 1u32 << (t.thread % 32);
            match &mut shadow.newest {
                Some(r) if r.warp == warp && r.step == t.step => r.lanes |= bit,
                newest => {
                    let read = ReadRec {
                        warp,
                        lanes: bit,
                        pc: t.pc,
                        step: t.step,
                        strong: t.strong,
                    };
                    if let Some(previous) = newest.replace(read) {
                        shadow.older.push(previous);
                    }
                }
            }
        }
        race
    }
}
