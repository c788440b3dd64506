//! One lane's byte-level access to global or shared memory, shared by every executor: the access
//! itself with racecheck (within the block, and between blocks on global memory) and initcheck on
//! the side. The address is already checked (bounds and alignment are the executor's: the IR checks
//! element indices against each array, PTX checks addresses against the memory a space holds).

use super::block::{BlockRun, Stop, Who};
use super::decode::{Mem, Space};
use super::finding::FindingKind;
use super::memory::{read_bytes, write_bytes};
use super::profile::Sites;
use super::race::{Race, Region, Strength, Touch};

impl<P: Sites> BlockRun<'_, P> {
    /// Reads `size` bytes at byte `addr` of `mem` for lane `l` (checked), with racecheck and initcheck.
    /// `strong`: a strong load (PTX `.relaxed`, `.acquire`, `.volatile`), which does not race with
    /// another strong access or an atomic of its scope (the PTX memory model's morally strong pairs).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn read(
        &mut self,
        who: Who,
        pc: usize,
        l: usize,
        mem: Mem,
        addr: u64,
        size: u32,
        strong: Strength,
    ) -> Result<u64, Stop> {
        match mem.space {
            Space::Global(b) => {
                if self.race.is_some() {
                    let any = strong != Strength::Plain;
                    self.check_race(who, pc, l, mem, addr, size, false, any, 0)?;
                    // A device-scope strong load does not race with other blocks' atomics.
                    let device = strong == Strength::Device;
                    self.check_blocks(who, pc, l, mem, addr, size, false, false, device)?;
                }
                Ok(self.globals[b as usize].read(addr, size))
            }
            Space::Shared { offset } => {
                let at = (u64::from(offset) + addr) as usize;
                if self.race.is_some() {
                    let any = strong != Strength::Plain;
                    self.check_race(who, pc, l, mem, addr, size, false, any, 0)?;
                    self.initcheck(who, pc, l, mem, addr, size)?;
                }
                Ok(read_bytes(&self.shared, at, size))
            }
        }
    }

    /// initcheck: a warning when no thread wrote the shared bytes `addr..addr + size` of `mem`.
    pub(crate) fn initcheck(
        &mut self,
        who: Who,
        pc: usize,
        l: usize,
        mem: Mem,
        addr: u64,
        size: u32,
    ) -> Result<(), Stop> {
        let Space::Shared { offset } = mem.space else {
            return Ok(());
        };
        if self.unwritten == 0 {
            return Ok(());
        }
        let at = (u64::from(offset) + addr) as usize;
        if (at..at + size as usize).all(|i| self.written[i]) {
            return Ok(());
        }
        let at = (mem, addr);
        let detail =
            "no thread of the block wrote these bytes before this read (zero here, whatever \
                      the last block left on hardware)";
        self.memory_finding(
            FindingKind::UninitializedShared,
            pc,
            who,
            l,
            at,
            0,
            detail.into(),
        )
    }

    /// Writes `size` bytes of `value` at byte `addr` of `mem` for lane `l`, with racecheck.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn write(
        &mut self,
        who: Who,
        pc: usize,
        l: usize,
        mem: Mem,
        addr: u64,
        size: u32,
        value: u64,
        atomic: bool,
        strong: Strength,
    ) -> Result<(), Stop> {
        if self.race.is_some() {
            let any = atomic || strong != Strength::Plain;
            self.check_race(who, pc, l, mem, addr, size, true, any, value)?;
            // A device-scope strong store meets other blocks as an atomic update does.
            let device = atomic || strong == Strength::Device;
            self.check_blocks(who, pc, l, mem, addr, size, !device, device, false)?;
        }
        match mem.space {
            Space::Global(b) => {
                let global = &self.globals[b as usize];
                self.changed |= global.read(addr, size) != value & width_mask(size);
                global.write(addr, size, value);
            }
            Space::Shared { offset } => {
                let at = (u64::from(offset) + addr) as usize;
                self.changed |= read_bytes(&self.shared, at, size) != value & width_mask(size);
                write_bytes(&mut self.shared, at, size, value);
                self.mark_written(at..at + size as usize);
            }
        }
        Ok(())
    }

    /// Notes that shared bytes `range` were written (initcheck), when sanitizing.
    pub(crate) fn mark_written(&mut self, range: std::ops::Range<usize>) {
        if let Some(bytes) = self.written.get_mut(range) {
            self.unwritten -= bytes.iter().filter(|&&w| !w).count();
            bytes.fill(true);
        }
    }

    /// Reports a finding about lane `l`'s access to byte `addr` of `mem` at `pc` (`other_pc`: the other
    /// statement of a race, so each pair is reported once per block).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn memory_finding(
        &mut self,
        kind: FindingKind,
        pc: usize,
        who: Who,
        l: usize,
        (mem, addr): (Mem, u64),
        other_pc: u32,
        detail: String,
    ) -> Result<(), Stop> {
        let array = self.program.array_name(mem.array).to_owned();
        let f = self.finding(
            kind,
            pc as u32,
            who.warp,
            1 << l,
            Some((array, addr)),
            detail,
        );
        self.report(kind, pc as u32, other_pc, f)
    }

    /// racecheck between blocks, for a plain global access.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn check_blocks(
        &mut self,
        who: Who,
        pc: usize,
        l: usize,
        mem: Mem,
        addr: u64,
        size: u32,
        write: bool,
        atomic: bool,
        strong_read: bool,
    ) -> Result<(), Stop> {
        let Space::Global(b) = mem.space else {
            return Ok(());
        };
        let Some(other) =
            self.globals[b as usize].touch(self.block, addr, size, write, atomic, strong_read)
        else {
            return Ok(());
        };
        // A writer that published its writes to this block (a fence, then an atomic this block's
        // atomic came after).
        if let (Some(writer), Some(releases), true) = (other.block, self.releases, other.wrote) {
            if releases.ordered(writer, &self.sync.acquired) {
                return Ok(());
            }
        }
        let them = other.block.map_or_else(
            || "several other blocks".to_owned(),
            |o| format!("block {o}"),
        );
        let detail = format!(
            "this block {} the byte, and {them} {} it in the same launch: blocks run in no defined \
             order, so the result depends on the schedule",
            if atomic {
                "updates (atomically)"
            } else if write {
                "writes"
            } else {
                "reads"
            },
            if other.wrote { "writes" } else { "reads" }
        );
        let at = (mem, addr);
        self.memory_finding(FindingKind::GlobalRace, pc, who, l, at, u32::MAX, detail)
    }

    /// racecheck on each byte of an access.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn check_race(
        &mut self,
        who: Who,
        pc: usize,
        l: usize,
        mem: Mem,
        addr: u64,
        size: u32,
        write: bool,
        strong: bool,
        value: u64,
    ) -> Result<(), Stop> {
        let Some(race) = &mut self.race else {
            return Ok(());
        };
        let thread = who.warp * 32 + l as u32;
        let t = Touch {
            thread,
            pc: pc as u32,
            step: who.step,
            write,
            strong,
            value: 0,
        };
        let (region, base) = match mem.space {
            Space::Global(b) => (Region::Global(b), 0),
            Space::Shared { offset } => (Region::Shared, u64::from(offset)),
        };
        let Some((r, byte)) = race.check(region, base + addr, size, t, value) else {
            return Ok(());
        };
        self.report_race(who, pc, l, mem, r, byte - base)
    }

    /// Reports race `r` found at byte `byte` of `mem` by lane `l`'s access at `pc`.
    pub(crate) fn report_race(
        &mut self,
        who: Who,
        pc: usize,
        l: usize,
        mem: Mem,
        r: Race,
        byte: u64,
    ) -> Result<(), Stop> {
        let kind = match mem.space {
            Space::Global(_) => FindingKind::GlobalRace,
            Space::Shared { .. } => FindingKind::SharedRace,
        };
        let verb = |w: bool| if w { "writes" } else { "reads" };
        let thread = |t: u32| format!("thread {t} (warp {}, lane {})", t / 32, t % 32);
        let detail = if r.same_statement {
            format!(
                "{} and {} write different values to the same byte in one statement (which lands is \
                 undefined)",
                thread(r.first_thread),
                thread(r.second_thread)
            )
        } else {
            format!(
                "{} {} it here; {} {} it at {} with no barrier (or warp_sync naming both lanes) between",
                thread(r.second_thread),
                verb(r.second_wrote),
                thread(r.first_thread),
                verb(r.first_wrote),
                self.program.site(r.first_pc as usize)
            )
        };
        let at = (mem, byte);
        self.memory_finding(kind, pc, who, l, at, r.first_pc, detail)
    }
}

/// The low `size` bytes of a value.
fn width_mask(size: u32) -> u64 {
    if size >= 8 {
        u64::MAX
    } else {
        (1u64 << (size * 8)) - 1
    }
}
