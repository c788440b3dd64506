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

use std::rc::Rc;

use rustc_hash::FxHashMap;

pub(crate) use super::race_shadow::{Arrivals, Race, Touch};
use super::race_shadow::{Order, Word};
pub(crate) use quiet::runs;
use quiet::{LoggedLoad, Stamp};

#[path = "race_quiet.rs"]
mod quiet;

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

/// The shadow state of a block's shared memory (dense) or global memory (sparse, keyed by buffer and
/// byte address), plus each warp's `warp_sync`s since the last barrier.
#[derive(Debug, Default)]
pub(crate) struct RaceState {
    /// Shared memory's shadow, one [`Word`] per 4 bytes, and each word's last writer
    /// (`race_quiet.rs`).
    shared: Vec<Word>,
    shared_stamps: Vec<Stamp>,
    /// Global memory's shadow in pages of [`PAGE`] bytes, allocated when first touched and kept
    /// across barriers (a word's epoch says whether its record is current, as for shared memory):
    /// the page of (buffer, byte / PAGE) is `pages[index]`, found by hashing with Fx (SipHash's
    /// resistance to chosen keys buys nothing here) once per page rather than once per byte.
    page_of: FxHashMap<(u32, u64), u32>,
    pages: Vec<Box<[Word]>>,
    /// The last writers of each page's words.
    stamp_pages: Vec<Box<[Stamp]>>,
    /// Shared loads found quiet and not yet recorded in the shadow (`race_quiet.rs`).
    log: Vec<LoggedLoad>,
    /// The epoch of the last write to shared memory, and to each global buffer.
    shared_written: u64,
    global_written: Vec<u64>,
    /// The page the last global word was in (accesses touch neighbouring words).
    last_page: Option<((u32, u64), u32)>,
    epoch: u64,
    /// Per warp: (step, mask) of each `warp_sync` since the last barrier.
    syncs: Vec<Vec<(u64, u32)>>,
    /// Per thread: the mbarrier waits it passed since the last barrier, each with the warp step
    /// of the wait and the (thread, step) of every arrival of the phase it waited for (PTX).
    edges: FxHashMap<u32, Vec<(Arrivals, u64)>>,
    /// Per byte: what is ordered before the releases to it since the last barrier, as (thread,
    /// step) — each thread once, at its latest step — for an acquire to take as an edge.
    releases: FxHashMap<Loc, Arrivals>,
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
        self.shared
            .resize(shared_bytes.div_ceil(4), Word::default());
        self.shared_stamps
            .resize(shared_bytes.div_ceil(4), Stamp::default());
        self.syncs.clear();
        self.syncs.resize(warps, Vec::new());
        self.last_page = None;
    }

    pub fn new(shared_bytes: usize, warps: usize) -> Self {
        RaceState {
            shared: vec![Word::default(); shared_bytes.div_ceil(4)],
            shared_stamps: vec![Stamp::default(); shared_bytes.div_ceil(4)],
            page_of: FxHashMap::default(),
            pages: Vec::new(),
            stamp_pages: Vec::new(),
            log: Vec::new(),
            shared_written: 0,
            global_written: Vec::new(),
            last_page: None,
            epoch: 1,
            syncs: vec![Vec::new(); warps],
            edges: FxHashMap::default(),
            releases: FxHashMap::default(),
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
        let mut before: FxHashMap<u32, u64> = FxHashMap::default();
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
        // Reads logged before the barrier are ordered before everything after it: nothing left
        // to check them against.
        self.log.clear();
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

    /// Checks and records an access `t` to bytes `addr..addr + size` of `region` (`value`: the bytes
    /// written, lowest address first); the first race and the byte it was found at.
    pub fn check(
        &mut self,
        region: Region,
        addr: u64,
        size: u32,
        t: Touch,
        value: u64,
    ) -> Option<(Race, u64)> {
        self.flush_reads();
        let end = addr + u64::from(size);
        let mut found = None;
        let mut word = addr / 4;
        while word * 4 < end {
            let base = word * 4;
            let lo = addr.saturating_sub(base) as usize;
            let hi = (end - base).min(4) as usize;
            // The value's bytes for this word, at their places in it.
            let shift = 8 * (base + lo as u64 - addr);
            let bytes = value.checked_shr(shift as u32).unwrap_or(0) as u32;
            let t = Touch {
                value: bytes.checked_shl(8 * lo as u32).unwrap_or(0),
                ..t
            };
            let page = match region {
                Region::Shared => 0,
                Region::Global(buffer) => self.page((buffer, base / PAGE as u64)) as usize,
            };
            let order = Order {
                syncs: &self.syncs,
                edges: &self.edges,
            };
            let (shadow, stamp) = match region {
                Region::Shared => (
                    &mut self.shared[word as usize],
                    &mut self.shared_stamps[word as usize],
                ),
                Region::Global(_) => {
                    let (index, at) = (page, (base % PAGE as u64 / 4) as usize);
                    (&mut self.pages[index][at], &mut self.stamp_pages[index][at])
                }
            };
            let r = shadow.check(&order, self.epoch, lo, hi, t);
            stamp.after(shadow, self.epoch, &t);
            if t.write || shadow.split_in(self.epoch) {
                self.mark_written(region);
            }
            if found.is_none() {
                found = r.map(|(r, i)| (r, base + i as u64));
            }
            word += 1;
        }
        found
    }

    /// The index of global shadow page `key` (allocated when first touched), through the last
    /// page's.
    #[inline]
    fn page(&mut self, key: (u32, u64)) -> u32 {
        match self.last_page {
            Some((k, index)) if k == key => index,
            _ => {
                let (pages, stamps) = (&mut self.pages, &mut self.stamp_pages);
                let index = *self.page_of.entry(key).or_insert_with(|| {
                    pages.push(vec![Word::default(); PAGE / 4].into_boxed_slice());
                    stamps.push(vec![Stamp::default(); PAGE / 4].into_boxed_slice());
                    (pages.len() - 1) as u32
                });
                self.last_page = Some((key, index));
                index
            }
        }
    }
}

/// Where an access lands, for racecheck: the block's shared memory or a global buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Region {
    Shared,
    Global(u32),
}

/// Bytes per page of the global shadow.
pub(crate) const PAGE: usize = 256;

/// The most global shadow pages a state given back keeps (about 26 MB).
const SPARE_PAGES: usize = 1024;

thread_local! {
    /// The state the last block on this thread gave back.
    static SPARE: std::cell::RefCell<Option<RaceState>> = const { std::cell::RefCell::new(None) };
}
