//! The common cases of `ld` and `st` with the sanitizer on, kept short: whole 4-byte words (32-,
//! 64- and vector accesses of them) of global or shared memory, without acquire or release
//! semantics, that every lane's address places quickly (`place_lanes`) while no `cp.async` copy is
//! in flight.
//!
//! A load's racecheck is decided per word before anything is recorded: when no word a lane reads
//! was written since the last barrier by another thread (or only strongly, for a strong load), no
//! read can race, and the reads are recorded warp-wide (shared memory's only logged, see
//! `race_quiet.rs`), as the general path would record them lane by lane; initcheck asks that every
//! byte was written. If any word needs the full check or a byte was never written, nothing was done
//! and the general path runs the instruction (and reports). A store goes lane after lane as on the
//! general path, straight to the shadow (`RaceState::check`), without its layers. The check between
//! blocks (`check_blocks`) runs per lane in lane order, as on the general path. The bytes read and
//! written, the counters and the findings are the general path's (`exec_mem_checked_tests.rs`).

use super::block::{PtxBlock, PtxWarp};
use super::exec_int::{ones, sext};
use super::exec_mem_fast::{warp_addresses, SHARED};
use super::inst::{Addr, MemSpace, Op, Ty};
use super::lanes;
use crate::block::{Stop, Who};
use crate::memory::{read_bytes, write_bytes};
use crate::race::{runs, Region, Sem, Strength, Touch};

impl PtxBlock<'_> {
    /// Executes the load at `pc` on `mask`'s lanes when the sanitizer is on and the load is the
    /// common case above; `Ok(false)` (nothing done) otherwise.
    pub(super) fn checked_load(
        &mut self,
        warp: &mut PtxWarp,
        pc: usize,
        mask: u32,
    ) -> Result<bool, Stop> {
        let program = self.launch.program;
        let Op::Ld {
            space,
            ty,
            dsts,
            addr,
            strong,
            sem,
        } = &program.insts[pc].op
        else {
            return Ok(false);
        };
        let elem = ty.bits() / 8;
        let size = u64::from(elem) * dsts.len() as u64;
        let (mut buffers, mut offsets) = ([0u32; 32], [0u64; 32]);
        if !self.checked_places(
            warp,
            (*space, elem, size, *addr, *sem),
            mask,
            &mut buffers,
            &mut offsets,
        ) {
            return Ok(false);
        }
        let words = size / 4;
        let any_strong = *strong != Strength::Plain;
        let race = self.run.race.as_mut().expect("the sanitizer is on");
        for l in lanes(mask) {
            let (r, at) = (region(buffers[l]), offsets[l]);
            let thread = warp.index * 32 + l as u32;
            if !race.unwritten(r)
                && !(0..words).all(|w| race.quiet_read(r, at / 4 + w, thread, any_strong))
            {
                return Ok(false);
            }
            if r == Region::Shared
                && self.run.unwritten != 0
                && !self.run.written[at as usize..(at + size) as usize]
                    .iter()
                    .all(|&w| w)
            {
                return Ok(false);
            }
        }
        // Nothing can go wrong within the block: record the reads (shared memory's in the log), a
        // run of neighbouring lanes at one address at once (as lane after lane of one step would
        // merge into one record).
        let race = self.run.race.as_mut().expect("the sanitizer is on");
        let (pc32, step) = (pc as u32, warp.step);
        if *space == MemSpace::Shared {
            race.log_shared_load(warp.index, mask, pc32, step, any_strong, words, &offsets);
        } else {
            let same = |o: usize, l: usize| offsets[o] == offsets[l] && buffers[o] == buffers[l];
            for (l, lanes) in runs(mask, same) {
                let (r, at) = (region(buffers[l]), offsets[l]);
                for w in 0..words {
                    race.record_read(r, at / 4 + w, warp.index, lanes, pc32, step, any_strong);
                }
            }
        }
        self.count_access(&buffers, mask);
        let who = Who {
            warp: warp.index,
            step: warp.step,
        };
        let device = *strong == Strength::Device;
        let signed = matches!(ty, Ty::Int(t) if t.signed);
        // The check between blocks, lane after lane (reading has no side effect, so the values
        // are read after it; a finding that stops the block stops it before any is used).
        if *space != MemSpace::Shared {
            for l in lanes(mask).filter(|&l| buffers[l] != SHARED) {
                let mem = Self::global_mem(buffers[l]);
                for k in 0..dsts.len() as u64 {
                    let at = offsets[l] + k * u64::from(elem);
                    self.run
                        .check_blocks(who, pc, l, mem, at, elem, false, false, device)?;
                }
            }
        }
        let (run, regs) = (&self.run, &mut warp.regs);
        for (k, d) in dsts.iter().enumerate() {
            let Some(d) = *d else {
                continue;
            };
            let (col, keep) = (&mut regs[d as usize], ones(program.reg_bits[d as usize]));
            let skip = k as u64 * u64::from(elem);
            if *space == MemSpace::Shared && elem == 4 {
                // Every lane in shared memory (`place_lanes`): whole words.
                let shared = &run.shared[..];
                for l in lanes(mask) {
                    let at = (offsets[l] + skip) as usize;
                    let w = u32::from_le_bytes(shared[at..at + 4].try_into().expect("4 bytes"));
                    let v = if signed {
                        w as i32 as i64 as u64
                    } else {
                        u64::from(w)
                    };
                    col[l] = v & keep;
                }
                continue;
            }
            for l in lanes(mask) {
                let at = offsets[l] + skip;
                let v = match buffers[l] {
                    SHARED => read_bytes(&run.shared, at as usize, elem),
                    b => run.globals[b as usize].read(at, elem),
                };
                let v = if signed { sext(v, 8 * elem) } else { v };
                col[l] = v & keep;
            }
        }
        Ok(true)
    }

    /// Executes the store at `pc` on `mask`'s lanes when the sanitizer is on and the store is
    /// the common case (whole words of global or shared memory placed by `place_lanes`, no release
    /// semantics, no copy in flight): lane after lane as the general path, racecheck straight on
    /// the shadow. `Ok(false)` (nothing done) otherwise.
    pub(super) fn checked_store(
        &mut self,
        warp: &mut PtxWarp,
        pc: usize,
        mask: u32,
    ) -> Result<bool, Stop> {
        let program = self.launch.program;
        let Op::St {
            space,
            ty,
            srcs,
            addr,
            strong,
            sem,
        } = &program.insts[pc].op
        else {
            return Ok(false);
        };
        let elem = ty.bits() / 8;
        let size = u64::from(elem) * srcs.len() as u64;
        let (mut buffers, mut offsets) = ([0u32; 32], [0u64; 32]);
        if !self.checked_places(
            warp,
            (*space, elem, size, *addr, *sem),
            mask,
            &mut buffers,
            &mut offsets,
        ) {
            return Ok(false);
        }
        self.count_access(&buffers, mask);
        let who = Who {
            warp: warp.index,
            step: warp.step,
        };
        let any_strong = *strong != Strength::Plain;
        let device = *strong == Strength::Device;
        let keep = ones(8 * elem);
        for l in lanes(mask) {
            let (buffer, place) = (buffers[l], offsets[l]);
            let t = Touch {
                thread: warp.index * 32 + l as u32,
                pc: pc as u32,
                step: warp.step,
                write: true,
                strong: any_strong,
                value: 0,
            };
            for (k, &src) in srcs.iter().enumerate() {
                let at = place + k as u64 * u64::from(elem);
                let v = warp.regs[src as usize][l] & keep;
                let region = region(buffer);
                let race = self.run.race.as_mut().expect("the sanitizer is on");
                if let Some((r, byte)) = race.check(region, at, elem, t, v) {
                    // Reported against the array holding the lane's address, as the general path.
                    let (mem, base) = if buffer == SHARED {
                        let (mem, rel) = self.shared_mem(place);
                        (mem, place - rel)
                    } else {
                        (Self::global_mem(buffer), 0)
                    };
                    self.run.report_race(who, pc, l, mem, r, byte - base)?;
                }
                if buffer == SHARED {
                    let at = at as usize;
                    self.run.changed |= read_bytes(&self.run.shared, at, elem) != v;
                    write_bytes(&mut self.run.shared, at, elem, v);
                    self.run.mark_written(at..at + elem as usize);
                } else {
                    let mem = Self::global_mem(buffer);
                    self.run
                        .check_blocks(who, pc, l, mem, at, elem, !device, device, false)?;
                    let global = &self.run.globals[buffer as usize];
                    self.run.changed |= global.read(at, elem) != v;
                    global.write(at, elem, v);
                }
            }
        }
        Ok(true)
    }

    /// Where `mask`'s lanes' access of `size` bytes (elements of `elem`) at `addr` lands, when the
    /// sanitizer's fast paths take it: the sanitizer on without statistics, no copy in flight,
    /// elements of 4 to 8 bytes (whole words), no acquire or release semantics, and every lane
    /// placed by `place_lanes`: `buffers` and `offsets` then hold each lane's buffer (or
    /// [`SHARED`]) and byte offset.
    #[inline(always)]
    fn checked_places(
        &self,
        warp: &PtxWarp,
        (space, elem, size, addr, sem): (MemSpace, u32, u64, Addr, Sem),
        mask: u32,
        buffers: &mut [u32; 32],
        offsets: &mut [u64; 32],
    ) -> bool {
        if self.run.race.is_none()
            || self.run.options.stats
            || self.asyncs.pending != 0
            || super::exec_hot::general_only()
            || sem.acquire
            || sem.release
            || !(4..=8).contains(&elem)
            || mask == 0
        {
            return false;
        }
        *offsets = warp_addresses(self.launch.program, &warp.regs, addr);
        self.place_lanes(space, size, mask, buffers, offsets)
    }

    /// Counts a warp's access as the general path does: shared or global by its first lane.
    #[inline(always)]
    fn count_access(&mut self, buffers: &[u32; 32], mask: u32) {
        if buffers[mask.trailing_zeros() as usize] == SHARED {
            self.run.counters.shared += 1;
        } else {
            self.run.counters.global += 1;
        }
    }
}

/// racecheck's name for a lane's place.
#[inline(always)]
fn region(buffer: u32) -> Region {
    if buffer == SHARED {
        Region::Shared
    } else {
        Region::Global(buffer)
    }
}
