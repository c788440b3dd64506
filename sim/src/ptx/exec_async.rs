//! `cp.async` (PTX ISA "cp.async", "cp.async.commit_group", "cp.async.wait_group",
//! "cp.async.mbarrier.arrive"): a copy of 4, 8 or 16 bytes from global to shared memory that the
//! issuing thread performs asynchronously.
//!
//! # Model
//!
//! The ISA lets a copy land at any time between its issue and the instruction that waits for it,
//! and says nothing about the order of copies in between. The simulator picks one such time,
//! always the same: the **latest**. A copy is checked when it is issued (alignment, bounds: the
//! faults are the issuing instruction's) and recorded in its thread's current, uncommitted group;
//! `cp.async.commit_group` closes that group; `cp.async.wait_group N` performs the copies of every
//! committed group but the `N` most recent (oldest first, each in issue order);
//! `cp.async.wait_all` commits and performs everything; `cp.async.mbarrier.arrive` performs all the
//! thread's copies and then arrives on the mbarrier (`exec_mbarrier.rs`), as the ISA has its
//! arrive-on operation triggered by their completion. A kernel that relies on a copy landing
//! earlier reads shared memory the copy has not written yet, and that read is what the sanitizer
//! reports.
//!
//! # Sanitizer
//!
//! While a copy is pending, a read or a write of its destination bytes by any thread (an
//! `ld`/`st`/`atom` in shared memory) is a shared race with the `cp.async` (its line named), and a
//! write of its source bytes a global race; a thread that exits with copies pending is an
//! [`FindingKind::AsyncCopy`] error (nothing it or anyone runs later waits for them; they are
//! performed then). The copy itself reads and writes through racecheck and initcheck at the
//! instruction that completes it, in the name of the `cp.async`, so a read by another thread that
//! no barrier orders after that completion is a race as usual.

use super::async_state::{Copy, Thread};
use super::block::{PtxBlock, PtxWarp};
use super::exec_mem::{Fault, Place};
use super::inst::{Addr, MemSpace, Op};
use super::inst_async::Async;
use super::lanes;
use crate::block::{Stop, Who};
use crate::finding::FindingKind;
use crate::race::Strength;

impl PtxBlock<'_> {
    /// `cp.async*` and `mbarrier.*` at `pc` on `mask`'s lanes.
    pub(super) fn exec_async(
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
        match a {
            Async::Copy {
                dst,
                src,
                size,
                src_size,
                ignore,
            } => {
                self.run.counters.global += 1;
                for l in lanes(mask) {
                    let from_src = match (ignore, src_size) {
                        (Some((p, negated)), _)
                            if (warp.regs[*p as usize][l] & 1 == 1) != *negated =>
                        {
                            0
                        }
                        (_, Some(r)) => warp.regs[*r as usize][l] as u32,
                        _ => *size,
                    };
                    self.issue(warp, pc, l, *dst, *src, *size, from_src)?;
                }
            }
            Async::Commit => {
                self.run.counters.control += 1;
                for l in lanes(mask) {
                    let t = self.thread_copies(warp.index, l);
                    let open = std::mem::take(&mut t.open);
                    t.groups.push_back(open);
                }
            }
            Async::CopyWait(keep) => {
                self.run.counters.control += 1;
                for l in lanes(mask) {
                    let t = self.thread_copies(warp.index, l);
                    if keep.is_none() {
                        let open = std::mem::take(&mut t.open);
                        t.groups.push_back(open);
                    }
                    let keep = keep.unwrap_or(0) as usize;
                    let mut due = Vec::new();
                    while t.groups.len() > keep {
                        due.extend(t.groups.pop_front().unwrap_or_default());
                    }
                    self.perform(who, l, due)?;
                }
            }
            Async::Bulk {
                dst,
                src,
                size,
                mbar,
            } => {
                self.run.counters.global += 1;
                let (dst, src, size, mbar) = (*dst, *src, *size, *mbar);
                for l in lanes(mask) {
                    self.bulk_copy(warp, pc, l, dst, src, size, mbar)?;
                }
            }
            Async::CopyArrive { .. } => {
                self.run.counters.barrier += 1;
                for l in lanes(mask) {
                    self.perform_all(who, l)?;
                }
                self.exec_mbarrier(warp, pc, mask)?;
            }
            _ => {
                self.run.counters.barrier += 1;
                self.exec_mbarrier(warp, pc, mask)?;
            }
        }
        Ok(())
    }

    /// Thread `l` of `warp`'s copies.
    fn thread_copies(&mut self, warp: u32, l: usize) -> &mut Thread {
        let t = warp as usize * 32 + l;
        let threads = &mut self.asyncs.threads;
        if threads.len() <= t {
            threads.resize(t + 1, Thread::default());
        }
        &mut threads[t]
    }

    /// The address `addr` of lane `l`.
    pub(super) fn lane_addr(warp: &PtxWarp, addr: Addr, l: usize) -> u64 {
        addr.base
            .map_or(0, |b| warp.regs[b as usize][l])
            .wrapping_add(addr.offset as u64)
    }

    /// Checks and records lane `l`'s copy.
    #[allow(clippy::too_many_arguments)]
    fn issue(
        &mut self,
        warp: &PtxWarp,
        pc: usize,
        l: usize,
        dst: Addr,
        src: Addr,
        size: u32,
        from_src: u32,
    ) -> Result<(), Stop> {
        let thread = warp.index as usize * 32 + l;
        let who = Who {
            warp: warp.index,
            step: warp.step,
        };
        let fault = |b: &mut Self, f: Fault, at: u32| b.lane_fault(warp, pc, l, u64::from(at), f);
        let d = Self::lane_addr(warp, dst, l);
        let dst = match self.place(MemSpace::Shared, d, u64::from(size), thread) {
            Ok(Place::Shared(abs)) => abs,
            Ok(_) => return Ok(()),
            Err(f) => return fault(self, f, size),
        };
        if from_src > size {
            let detail = format!(
                "src-size {from_src} is larger than cp-size {size} (undefined in the PTX ISA); \
                 {size} bytes are copied here"
            );
            let f = self.run.finding(
                FindingKind::AsyncCopy,
                pc as u32,
                warp.index,
                1 << l,
                None,
                detail,
            );
            self.run.report(FindingKind::AsyncCopy, pc as u32, 0, f)?;
        }
        let from_src = from_src.min(size);
        let s = Self::lane_addr(warp, src, l);
        let mut source = (0, 0);
        if from_src > 0 {
            // The source is aligned to cp-size; only its first `from_src` bytes are read.
            let whole = self.place(MemSpace::Global, s, u64::from(size), thread);
            let place = match whole {
                Err(Fault::Illegal(..)) if from_src < size => {
                    self.place(MemSpace::Global, s, 1, thread).and_then(|p| {
                        let end = s.wrapping_add(u64::from(from_src) - 1);
                        self.place(MemSpace::Global, end, 1, thread).map(|_| p)
                    })
                }
                other => other,
            };
            match place {
                Ok(Place::Global { buffer, offset }) => source = (buffer, offset),
                Ok(_) => return Ok(()),
                Err(f) => return fault(self, f, size),
            }
        }
        if self.asyncs.dst_bytes.is_empty() {
            self.asyncs.dst_bytes = vec![0; self.launch.shared_total as usize];
        }
        let copy = Copy {
            pc: pc as u32,
            dst,
            size,
            src: source,
            from_src,
        };
        if self.run.race.is_some() {
            // Two pending copies writing different values to one byte: which lands last is
            // undefined. Copies of the same source byte write the same value (cooperative groups'
            // `memcpy_async` has spare lanes repeat the last element): no race, as racecheck
            // reports write-write hazards only between different values.
            let conflict = (dst..dst + u64::from(size)).find(|&b| {
                self.asyncs
                    .dst_bytes
                    .get(b as usize)
                    .is_some_and(|&n| n > 0)
                    && self
                        .asyncs
                        .find(|c| c.covers(b) && c.origin(b) != copy.origin(b))
                        .is_some()
            });
            if let Some(b) = conflict {
                self.pending_shared(who, pc, l, b, 1, true)?;
            }
        }
        self.asyncs.track(&copy, true);
        self.thread_copies(warp.index, l).open.push(copy);
        Ok(())
    }

    /// Performs every pending copy of lane `l` (all its groups, then its current one).
    pub(super) fn perform_all(&mut self, who: Who, l: usize) -> Result<(), Stop> {
        let t = self.thread_copies(who.warp, l);
        let mut due: Vec<Copy> = t.groups.drain(..).flatten().collect();
        due.append(&mut t.open);
        self.perform(who, l, due)
    }

    /// Performs `copies` of lane `l`, in order, through racecheck and initcheck.
    fn perform(&mut self, who: Who, l: usize, copies: Vec<Copy>) -> Result<(), Stop> {
        for c in copies {
            self.asyncs.track(&c, false);
            let pc = c.pc as usize;
            let (buffer, offset) = c.src;
            let global = Self::global_mem(buffer);
            let (shared, rel) = self.shared_mem(c.dst);
            for i in 0..c.size {
                let byte = if i < c.from_src {
                    let at = offset + u64::from(i);
                    self.run.read(who, pc, l, global, at, 1, Strength::Plain)?
                } else {
                    0
                };
                let at = rel + u64::from(i);
                self.run
                    .write(who, pc, l, shared, at, 1, byte, false, Strength::Plain)?;
            }
        }
        Ok(())
    }

    /// A thread ending with copies pending: reported, and performed.
    pub(super) fn exit_async(&mut self, warp: &PtxWarp, pc: usize, mask: u32) -> Result<(), Stop> {
        if self.asyncs.pending == 0 {
            return Ok(());
        }
        let who = Who {
            warp: warp.index,
            step: warp.step,
        };
        for l in lanes(mask) {
            let t = warp.index as usize * 32 + l;
            let Some(th) = self.asyncs.threads.get(t).filter(|th| !th.is_empty()) else {
                continue;
            };
            let count = th.open.len() + th.groups.iter().map(Vec::len).sum::<usize>();
            let first = th
                .groups
                .iter()
                .flatten()
                .chain(&th.open)
                .next()
                .map_or(0, |c| c.pc);
            let detail = format!(
                "thread {t} exits with {count} cp.async cop{} never waited for (the first: {}): \
                 no cp.async.wait_group, cp.async.wait_all or mbarrier orders their writes to \
                 shared memory before anything that reads them",
                if count == 1 { "y" } else { "ies" },
                self.launch.describe(first as usize)
            );
            let f = self.run.finding(
                FindingKind::AsyncCopy,
                pc as u32,
                warp.index,
                1 << l,
                None,
                detail,
            );
            self.run
                .report(FindingKind::AsyncCopy, pc as u32, first, f)?;
            self.perform_all(who, l)?;
        }
        Ok(())
    }

    /// racecheck against pending copies: lane `l`'s access to shared bytes `abs..abs + size`.
    pub(super) fn pending_shared(
        &mut self,
        who: Who,
        pc: usize,
        l: usize,
        abs: u64,
        size: u32,
        write: bool,
    ) -> Result<(), Stop> {
        if self.asyncs.pending == 0 || self.run.race.is_none() {
            return Ok(());
        }
        let end = abs + u64::from(size);
        let Some(b) = (abs..end).find(|&b| {
            self.asyncs
                .dst_bytes
                .get(b as usize)
                .is_some_and(|&n| n > 0)
        }) else {
            return Ok(());
        };
        let Some((t, c)) = self.asyncs.find(|c| c.covers(b)) else {
            return Ok(());
        };
        let me = who.warp * 32 + l as u32;
        let detail = format!(
            "thread {me} {} shared memory that the cp.async at {} (thread {t}) writes, while that \
             copy is still pending: nothing (cp.async.wait_group, cp.async.wait_all, an mbarrier) \
             waited for it, so {}",
            if write { "writes" } else { "reads" },
            self.launch.describe(c.pc as usize),
            if write {
                "which write lands last is undefined"
            } else {
                "the bytes read are undefined"
            }
        );
        let (mem, rel) = self.shared_mem(b);
        self.run.memory_finding(
            FindingKind::SharedRace,
            pc,
            who,
            l,
            (mem, rel),
            c.pc,
            detail,
        )
    }

    /// racecheck against pending copies: lane `l`'s write of global bytes of `buffer`.
    pub(super) fn pending_source(
        &mut self,
        who: Who,
        pc: usize,
        l: usize,
        buffer: u32,
        offset: u64,
        size: u32,
    ) -> Result<(), Stop> {
        if self.asyncs.pending == 0 || self.run.race.is_none() {
            return Ok(());
        }
        let Some(b) = (offset..offset + u64::from(size))
            .find(|&b| self.asyncs.src_bytes.contains_key(&(buffer, b)))
        else {
            return Ok(());
        };
        let hit =
            |c: &Copy| c.src.0 == buffer && c.src.1 <= b && b < c.src.1 + u64::from(c.from_src);
        let Some((t, c)) = self.asyncs.find(hit) else {
            return Ok(());
        };
        let detail = format!(
            "thread {} writes global memory that the cp.async at {} (thread {t}) copies from, \
             while that copy is still pending: the copy may read either value",
            who.warp * 32 + l as u32,
            self.launch.describe(c.pc as usize),
        );
        let mem = Self::global_mem(buffer);
        self.run
            .memory_finding(FindingKind::GlobalRace, pc, who, l, (mem, b), c.pc, detail)
    }
}
