//! The mbarrier instructions (PTX ISA "Parallel Synchronization and Communication Instructions:
//! mbarrier"): `init`, `arrive` (with a count, `.expect_tx`, `.noComplete`), `arrive_drop`,
//! `expect_tx`, `complete_tx`, `test_wait` and `try_wait` (with a state or a phase parity),
//! `inval`, `pending_count`, and the arrival of `cp.async.mbarrier.arrive`. Each lane performs its
//! operation in turn, in ascending lane order, as one atomic update of the object.
//!
//! # The object
//!
//! An mbarrier is 8 bytes of shared memory, 8-aligned. The ISA leaves their contents opaque; the
//! simulator keeps its state there, so a plain load sees these bits (and a write by `st` changes
//! the barrier, as on hardware it would corrupt it):
//!
//! | bits   | field |
//! |--------|-------|
//! | 0–19   | pending arrivals of the current phase |
//! | 20–39  | expected arrivals per phase (the count of `mbarrier.init`, less the `arrive_drop`s) |
//! | 40–60  | tx-count, 21-bit two's complement |
//! | 62     | valid: set by `mbarrier.init`, cleared by `mbarrier.inval` |
//! | 63     | the current phase's parity |
//!
//! The `state` an arrival returns is the object as it was before the arrival (so its bit 63 is the
//! phase the thread arrived in); `mbarrier.pending_count` reads bits 0–19 of a state. A phase
//! completes when its pending arrivals and its tx-count are both zero: the parity flips, the
//! pending count is reloaded with the expected count, the tx-count is zero. `test_wait` and
//! `try_wait` are true when the phase they name (a state's phase, or the phase of parity
//! `phaseParity`) has completed, i.e. when the current parity differs from it. A wait that finds
//! it incomplete ends the warp's turn (the ISA lets `try_wait` suspend the thread), so the warps
//! that will arrive run; a wait that can never succeed is found by the scheduler's deadlock proof.
//!
//! # Sanitizer (synccheck, [`FindingKind::Mbarrier`]; the block stops, as the ISA leaves the
//! barrier undefined)
//!
//! An operation on bytes that hold no initialized mbarrier; an `init` count outside 1..2^20-1;
//! `mbarrier.init` of a barrier whose phase has arrivals or a tx-count, or that warps wait on; more
//! arrivals in a phase than it has pending; a `.noComplete` arrival that completes the phase; a
//! tx-count out of its range; `mbarrier.inval` of a barrier whose phase has arrivals or that other
//! warps wait on. racecheck: a successful wait orders everything each thread did before its
//! arrival in that phase before everything the waiting thread does after the wait.

use super::block::{PtxBlock, PtxWarp};
use super::exec_mem::Place;
use super::inst::{Addr, MemSpace, Op};
use super::inst_async::Async;
use super::lanes;
use crate::block::{Stop, Who};
use crate::finding::FindingKind;
use crate::memory::read_bytes;
use crate::race::{Arrivals, Strength};

const COUNT_MAX: u32 = (1 << 20) - 1;
const TX_MAX: i64 = (1 << 20) - 1;

/// The fields of an mbarrier object (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mbar {
    pending: u32,
    expected: u32,
    tx: i64,
    valid: bool,
    phase: bool,
}

impl Mbar {
    fn from_bits(b: u64) -> Mbar {
        let tx = ((b >> 40) & 0x1f_ffff) as i64;
        Mbar {
            pending: (b & 0xf_ffff) as u32,
            expected: ((b >> 20) & 0xf_ffff) as u32,
            tx: if tx >= 1 << 20 { tx - (1 << 21) } else { tx },
            valid: b >> 62 & 1 == 1,
            phase: b >> 63 == 1,
        }
    }

    fn bits(self) -> u64 {
        u64::from(self.pending & 0xf_ffff)
            | u64::from(self.expected & 0xf_ffff) << 20
            | ((self.tx as u64) & 0x1f_ffff) << 40
            | u64::from(self.valid) << 62
            | u64::from(self.phase) << 63
    }
}

impl PtxBlock<'_> {
    /// The mbarrier instruction at `pc` on `mask`'s lanes.
    pub(super) fn exec_mbarrier(
        &mut self,
        warp: &mut PtxWarp,
        pc: usize,
        mask: u32,
    ) -> Result<(), Stop> {
        let Op::Async(a) = &self.launch.program.insts[pc].op else {
            return Ok(());
        };
        let who = Who {
            warp: warp.index,
            step: warp.step,
        };
        let mut incomplete = false;
        for l in lanes(mask) {
            let thread = warp.index * 32 + l as u32;
            let reg = |r: u32| warp.regs[r as usize][l];
            match *a {
                Async::PendingCount { d, state } => {
                    warp.regs[d as usize][l] = reg(state) & 0xf_ffff;
                }
                Async::Init { addr, space, count } => {
                    let abs = self.mbar_at(warp, pc, l, addr, space)?;
                    let old = self.load(abs);
                    let count = reg(count);
                    if count == 0 || count > u64::from(COUNT_MAX) {
                        let why = format!(
                            "`mbarrier.init` with count {count}: the count is 1 to {COUNT_MAX}"
                        );
                        return Err(self.mbar_error(warp, pc, l, abs, why));
                    }
                    let waiters = self.asyncs.waiting.get(&abs).copied().unwrap_or(0);
                    if old.valid && (old.pending != old.expected || old.tx != 0 || waiters != 0) {
                        let why = format!(
                            "mbarrier.init of an mbarrier in use ({} of {} arrivals and a tx-count \
                             of {} in its current phase{}): invalidate it (mbarrier.inval) once \
                             no thread uses it",
                            old.expected - old.pending.min(old.expected),
                            old.expected,
                            old.tx,
                            if waiters != 0 { ", warps waiting on it" } else { "" }
                        );
                        return Err(self.mbar_error(warp, pc, l, abs, why));
                    }
                    let new = Mbar {
                        pending: count as u32,
                        expected: count as u32,
                        tx: 0,
                        valid: true,
                        phase: false,
                    };
                    self.asyncs.arrivals.remove(&abs);
                    self.store(who, pc, l, abs, new)?;
                }
                Async::Inval { addr, space } => {
                    let abs = self.mbar_at(warp, pc, l, addr, space)?;
                    let old = self.valid(warp, pc, l, abs, who)?;
                    let others =
                        self.asyncs.waiting.get(&abs).copied().unwrap_or(0) & !(1u64 << warp.index);
                    if others != 0 || old.pending != old.expected {
                        let why = format!(
                            "`mbarrier.inval` of an mbarrier in use: {}",
                            if others != 0 {
                                format!("warp {} waits on it", others.trailing_zeros())
                            } else {
                                format!(
                                    "{} of {} arrivals of its current phase happened",
                                    old.expected.saturating_sub(old.pending),
                                    old.expected
                                )
                            }
                        );
                        return Err(self.mbar_error(warp, pc, l, abs, why));
                    }
                    self.asyncs.waiting.remove(&abs);
                    self.store(who, pc, l, abs, Mbar::from_bits(0))?;
                }
                Async::Arrive {
                    state,
                    addr,
                    space,
                    count,
                    drop,
                    tx,
                    no_complete,
                } => {
                    let abs = self.mbar_at(warp, pc, l, addr, space)?;
                    let old = self.valid(warp, pc, l, abs, who)?;
                    let n = count.map_or(1, reg);
                    let tx = tx.map_or(0, |t| reg(t) as u32 as i64);
                    let new = self.arrive(warp, pc, l, abs, old, (n, tx, drop, no_complete))?;
                    self.note_arrival(abs, thread, who.step, old, new);
                    self.store(who, pc, l, abs, new)?;
                    if let Some(d) = state {
                        warp.regs[d as usize][l] = old.bits();
                    }
                }
                Async::CopyArrive {
                    mbar, space, noinc, ..
                } => {
                    let abs = self.mbar_at(warp, pc, l, mbar, space)?;
                    let old = self.valid(warp, pc, l, abs, who)?;
                    // Without `.noinc` the pending count is raised by one first: the arrival is
                    // an extra one, and the two cancel.
                    let new = if noinc {
                        self.arrive(warp, pc, l, abs, old, (1, 0, false, false))?
                    } else {
                        old
                    };
                    self.note_arrival(abs, thread, who.step, old, new);
                    self.store(who, pc, l, abs, new)?;
                }
                Async::Tx {
                    addr,
                    space,
                    bytes,
                    add,
                } => {
                    let b = reg(bytes) as u32 as i64;
                    self.tx(warp, pc, l, (addr, space), if add { b } else { -b })?;
                }
                Async::Wait {
                    p,
                    addr,
                    space,
                    operand,
                    parity,
                    ..
                } => {
                    let abs = self.mbar_at(warp, pc, l, addr, space)?;
                    let m = self.valid(warp, pc, l, abs, who)?;
                    let waited = if parity {
                        reg(operand) & 1 == 1
                    } else {
                        reg(operand) >> 63 == 1
                    };
                    let done = m.phase != waited;
                    warp.regs[p as usize][l] = u64::from(done);
                    let bit = 1u64 << warp.index;
                    let waiting = self.asyncs.waiting.entry(abs).or_insert(0);
                    if done {
                        *waiting &= !bit;
                        let from = self.asyncs.completed.get(&(abs, waited)).cloned();
                        if let (Some(race), Some(from)) = (&mut self.run.race, from) {
                            race.sync_edge(from, thread, who.step);
                        }
                    } else {
                        *waiting |= bit;
                        incomplete = true;
                    }
                }
                Async::Copy { .. } | Async::Bulk { .. } | Async::Commit | Async::CopyWait(_) => {}
            }
        }
        if incomplete {
            // The thread may be suspended: the warps that will arrive run first.
            warp.yield_turn = true;
        }
        Ok(())
    }

    /// Lane `l` changes the tx-count of the mbarrier at `at` by `bytes` (`expect_tx`: more,
    /// `complete_tx` and a bulk copy's completion: fewer); the phase completes when nothing is
    /// pending.
    pub(super) fn tx(
        &mut self,
        warp: &PtxWarp,
        pc: usize,
        l: usize,
        (addr, space): (Addr, MemSpace),
        bytes: i64,
    ) -> Result<(), Stop> {
        let who = Who {
            warp: warp.index,
            step: warp.step,
        };
        let thread = warp.index * 32 + l as u32;
        let abs = self.mbar_at(warp, pc, l, addr, space)?;
        let mut m = self.valid(warp, pc, l, abs, who)?;
        m.tx += bytes;
        if m.tx.abs() > TX_MAX {
            let why = format!("the tx-count becomes {}, outside ±{TX_MAX}", m.tx);
            return Err(self.mbar_error(warp, pc, l, abs, why));
        }
        let old = self.load(abs);
        let new = Self::settle(m);
        self.note_arrival(abs, thread, who.step, old, new);
        self.store(who, pc, l, abs, new)
    }

    /// One arrival of `n` (with `tx` bytes expected first; `drop`: the expected count falls by
    /// `n` too) on `old`; the new object.
    fn arrive(
        &mut self,
        warp: &PtxWarp,
        pc: usize,
        l: usize,
        abs: u64,
        old: Mbar,
        (n, tx, drop, no_complete): (u64, i64, bool, bool),
    ) -> Result<Mbar, Stop> {
        let mut m = old;
        m.tx += tx;
        if m.tx.abs() > TX_MAX {
            let why = format!("the tx-count becomes {}, outside ±{TX_MAX}", m.tx);
            return Err(self.mbar_error(warp, pc, l, abs, why));
        }
        if n == 0 || n > u64::from(m.pending) {
            let why = format!(
                "{n} arrival{} on an mbarrier whose current phase has {} of its {} arrivals \
                 pending: more arrivals than the phase expects (or a count of 0)",
                if n == 1 { "" } else { "s" },
                m.pending,
                m.expected
            );
            return Err(self.mbar_error(warp, pc, l, abs, why));
        }
        m.pending -= n as u32;
        if drop {
            m.expected = m.expected.saturating_sub(n as u32);
        }
        let new = Self::settle(m);
        if no_complete && new.phase != old.phase {
            let why = "an `mbarrier.arrive.noComplete` arrival completes the phase (undefined in \
                       the PTX ISA)"
                .to_owned();
            return Err(self.mbar_error(warp, pc, l, abs, why));
        }
        Ok(new)
    }

    /// `m` with its phase completed when nothing is pending.
    fn settle(mut m: Mbar) -> Mbar {
        if m.pending == 0 && m.tx == 0 {
            m.phase = !m.phase;
            m.pending = m.expected;
        }
        m
    }

    /// racecheck's record of an arrival by `thread` at `step` (a phase completing keeps its
    /// arrivals for the waits).
    fn note_arrival(&mut self, abs: u64, thread: u32, step: u64, old: Mbar, new: Mbar) {
        if self.run.race.is_none() {
            return;
        }
        let list = self.asyncs.arrivals.entry(abs).or_default();
        list.push((thread, step));
        if new.phase != old.phase {
            let done: Arrivals = std::mem::take(list).into();
            self.asyncs.completed.insert((abs, old.phase), done);
        }
    }

    /// The shared byte of lane `l`'s mbarrier (a fault stops the block).
    fn mbar_at(
        &mut self,
        warp: &PtxWarp,
        pc: usize,
        l: usize,
        addr: Addr,
        space: MemSpace,
    ) -> Result<u64, Stop> {
        let a = Self::lane_addr(warp, addr, l);
        match self.place(space, a, 8, warp.index as usize * 32 + l) {
            Ok(Place::Shared(abs)) => Ok(abs),
            Ok(_) => {
                let detail = format!(
                    "lane {l}'s mbarrier address {a:#x} is not in shared memory (an mbarrier lives \
                     in `.shared`)"
                );
                let f = self.run.finding(
                    FindingKind::Mbarrier,
                    pc as u32,
                    warp.index,
                    1 << l,
                    None,
                    detail,
                );
                self.run
                    .report(FindingKind::Mbarrier, pc as u32, 0, f)
                    .and(Err(Stop))
            }
            Err(f) => self.lane_fault(warp, pc, l, 8, f).and(Err(Stop)),
        }
    }

    /// The object at `abs` (racecheck'd by the caller).
    fn load(&self, abs: u64) -> Mbar {
        Mbar::from_bits(read_bytes(&self.run.shared, abs as usize, 8))
    }

    /// The object at `abs`, which must be a valid mbarrier.
    fn valid(
        &mut self,
        warp: &PtxWarp,
        pc: usize,
        l: usize,
        abs: u64,
        who: Who,
    ) -> Result<Mbar, Stop> {
        let m = self.load(abs);
        if m.valid {
            let (mem, rel) = self.shared_mem(abs);
            self.run
                .check_race(who, pc, l, mem, rel, 8, false, true, 0)?;
            return Ok(m);
        }
        let why = "the bytes hold no mbarrier: they were not initialized with mbarrier.init (or \
                   were invalidated with mbarrier.inval)"
            .to_owned();
        Err(self.mbar_error(warp, pc, l, abs, why))
    }

    /// Writes `m` at `abs` as an atomic update.
    fn store(&mut self, who: Who, pc: usize, l: usize, abs: u64, m: Mbar) -> Result<(), Stop> {
        let (mem, rel) = self.shared_mem(abs);
        self.run
            .write(who, pc, l, mem, rel, 8, m.bits(), true, Strength::Plain)
    }

    /// Reports an mbarrier misuse by lane `l` at `pc`; the block stops.
    fn mbar_error(&mut self, warp: &PtxWarp, pc: usize, l: usize, abs: u64, why: String) -> Stop {
        let (mem, rel) = self.shared_mem(abs);
        let who = Who {
            warp: warp.index,
            step: warp.step,
        };
        // The kind stops the block: the report's `Err(Stop)` is the answer either way.
        let _ = self
            .run
            .memory_finding(FindingKind::Mbarrier, pc, who, l, (mem, rel), 0, why);
        Stop
    }
}
