//! racecheck's shadow memory and its happens-before check (the rules are `race.rs`'s module docs).
//!
//! The shadow is kept per 4-byte word: while every access to a word since the last barrier covered
//! the whole word (nearly every access of 32- and 64-bit data), its four bytes have the same history
//! and one record stands for all of them, checked once per access instead of once per byte. The
//! first narrower access splits the word into four byte records, each a copy of the word's (with its
//! own byte of the last written value), and the word stays split until the next barrier. A split
//! word is checked byte by byte exactly as an unsplit one would have been, so the findings are the
//! byte-level check's: the same race, at the same byte.

use std::rc::Rc;

use rustc_hash::FxHashMap;

/// The arrivals of one completed mbarrier phase: each arriving thread and its warp step then.
pub(crate) type Arrivals = Rc<[(u32, u64)]>;

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
    /// The bytes written (writes only), at their places in the word being checked.
    pub value: u32,
}

/// A write (or atomic) since the last barrier.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WriteRec {
    thread: u32,
    pc: u32,
    step: u64,
    strong: bool,
    /// The bytes written: the whole word's four in a word record, the byte (low 8 bits) in a byte's.
    value: u32,
}

/// The reads by one warp at one dynamic instruction.
#[derive(Clone, Copy, Debug)]
struct ReadRec {
    warp: u32,
    lanes: u32,
    pc: u32,
    step: u64,
    /// A strong load (see `race.rs`).
    strong: bool,
}

/// The accesses since the last barrier to a byte, or to a word whose bytes were all accessed
/// together. The reads since the last write are `older`, then `newest`: the newest is kept inline
/// because nearly every read checks it (is this the same warp at the same instruction?), and a
/// list on the heap was a cache miss per checked access.
#[derive(Clone, Debug, Default)]
pub(crate) struct Shadow {
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

    /// Records a read by `lanes` of `warp` at `pc`, warp step `step`.
    #[inline]
    fn record_read(&mut self, warp: u32, lanes: u32, pc: u32, step: u64, strong: bool) {
        match &mut self.newest {
            Some(r) if r.warp == warp && r.step == step => r.lanes |= lanes,
            newest => {
                let read = ReadRec {
                    warp,
                    lanes,
                    pc,
                    step,
                    strong,
                };
                if let Some(previous) = newest.replace(read) {
                    self.older.push(previous);
                }
            }
        }
    }

    /// This record as of `epoch`: one last touched before the current barrier starts afresh
    /// (keeping its list's allocation).
    #[inline]
    fn current(&mut self, epoch: u64) -> &mut Shadow {
        if self.epoch != epoch {
            self.epoch = epoch;
            self.write = None;
            self.clear_reads();
        }
        self
    }
}

/// One 4-byte word's shadow (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct Word {
    whole: Shadow,
    /// The epoch in which a narrower access split the word: its bytes' records are `bytes` while
    /// this is the current epoch (the allocation is kept for the next split).
    split_epoch: u64,
    bytes: Option<Box<[Shadow; 4]>>,
}

impl Word {
    /// Checks and records `t`'s access to bytes `lo..hi` of this word as of `epoch`; `t.value`
    /// holds the bytes written at their places in the word. The first race and the byte (0..4) it
    /// was found at.
    #[inline]
    pub fn check(
        &mut self,
        order: &Order,
        epoch: u64,
        lo: usize,
        hi: usize,
        t: Touch,
    ) -> Option<(Race, usize)> {
        let split = self.split_epoch == epoch;
        if !split && lo == 0 && hi == 4 {
            let whole = self.whole.current(epoch);
            // Lanes of one store writing different values to the word: whether a byte races
            // depends on whether its own bytes differ, so the bytes go their own ways.
            let per_byte = t.write
                && whole
                    .write
                    .is_some_and(|w| same_instance(&w, &t) && w.value != t.value);
            if !per_byte {
                return order.check(whole, t).map(|r| (r, 0));
            }
        }
        if !split {
            self.whole.current(epoch);
            let bytes = self.bytes.get_or_insert_with(Default::default);
            for (i, b) in bytes.iter_mut().enumerate() {
                b.clone_from(&self.whole);
                if let Some(w) = &mut b.write {
                    w.value = w.value >> (8 * i) & 0xff;
                }
            }
            self.split_epoch = epoch;
        }
        let bytes = self.bytes.as_mut().expect("split above");
        let mut found = None;
        for (i, b) in bytes.iter_mut().enumerate().take(hi).skip(lo) {
            let byte = Touch {
                value: t.value >> (8 * i) & 0xff,
                ..t
            };
            let r = order.check(b, byte);
            if found.is_none() {
                found = r.map(|r| (r, i));
            }
        }
        found
    }
}

impl Word {
    /// Whether a narrower access split the word in `epoch`.
    #[inline]
    pub fn split_in(&self, epoch: u64) -> bool {
        self.split_epoch == epoch
    }

    /// Records a whole-word read by `lanes` of `warp` that `race_quiet.rs` found cannot race (as
    /// [`Order::check`] would record it, lane by lane).
    #[inline]
    pub fn record_read(
        &mut self,
        epoch: u64,
        warp: u32,
        lanes: u32,
        pc: u32,
        step: u64,
        strong: bool,
    ) {
        debug_assert_ne!(
            self.split_epoch, epoch,
            "a split word's reads are checked byte by byte"
        );
        self.whole
            .current(epoch)
            .record_read(warp, lanes, pc, step, strong);
    }
}

/// Whether a write and an access are one warp's same dynamic instruction.
fn same_instance(w: &WriteRec, t: &Touch) -> bool {
    w.step == t.step && w.pc == t.pc && w.thread / 32 == t.thread / 32
}

/// What orders two accesses of a block since its last barrier: each warp's `warp_sync`s and each
/// thread's wait and acquire edges. Borrowed apart from the shadow memory, so that a record is
/// checked where it lies.
pub(crate) struct Order<'a> {
    /// Per warp: (step, mask) of each `warp_sync` since the last barrier.
    pub syncs: &'a [Vec<(u64, u32)>],
    /// Per thread: the waits and acquires it passed since the last barrier (see `RaceState::edges`).
    pub edges: &'a FxHashMap<u32, Vec<(Arrivals, u64)>>,
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
        if !self.edges.is_empty() && self.by_edge(a_thread, a_step, b_thread, b_step) {
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

    /// Checks `t` against a current record and records it.
    #[inline]
    fn check(&self, shadow: &mut Shadow, t: Touch) -> Option<Race> {
        let mut race = None;
        if let Some(w) = shadow.write {
            let unordered = w.thread != t.thread
                && !(w.strong && t.strong)
                && !self.ordered(w.thread, w.step, t.thread, t.step);
            let same = same_instance(&w, &t);
            let benign = same && (!t.write || w.value == t.value);
            if unordered && !benign {
                race = Some(Race {
                    first_pc: w.pc,
                    first_thread: w.thread,
                    first_wrote: true,
                    second_pc: t.pc,
                    second_thread: t.thread,
                    second_wrote: t.write,
                    same_statement: same,
                });
            }
        }
        if t.write {
            if race.is_none() {
                race = self.after_reads(shadow, &t);
            }
            shadow.write = Some(WriteRec {
                thread: t.thread,
                pc: t.pc,
                step: t.step,
                strong: t.strong,
                value: t.value,
            });
            shadow.clear_reads();
        } else {
            shadow.record_read(t.thread / 32, 1 << (t.thread % 32), t.pc, t.step, t.strong);
        }
        race
    }

    /// A write's race with a read since the last write, if one is unordered before it.
    fn after_reads(&self, shadow: &Shadow, t: &Touch) -> Option<Race> {
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
                return Some(Race {
                    first_pc: r.pc,
                    first_thread: reader,
                    first_wrote: false,
                    second_pc: t.pc,
                    second_thread: t.thread,
                    second_wrote: true,
                    same_statement: false,
                });
            }
        }
        None
    }
}

#[cfg(test)]
#[path = "race_shadow_tests.rs"]
mod tests;
