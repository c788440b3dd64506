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
use super::inst::{MemSpace, Op, Ty};
use super::lanes;
use crate::block::{Stop, Who};
use crate::memory::{read_bytes, write_bytes};
use crate::race::{Region, Strength, Touch};

impl PtxBlock<'_> {
    /// Executes the load at `pc` on `mask`'s lanes when the sanitizer is on and the load is the
    /// common case above; `Ok(false)` (nothing done) otherwise.
    pub(super) fn checked_load(
        &mut self,
        warp: &mut PtxWarp,
        pc: usize,
        mask: u32,
    ) -> Result<bool, Stop> {
        if self.run.race.is_none()
            || self.run.options.stats
            || self.asyncs.pending != 0
            || super::exec_hot::general_only()
        {
            return Ok(false);
        }
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
        if sem.acquire
            || sem.release
            || !matches!(
                space,
                MemSpace::Global | MemSpace::Shared | MemSpace::Generic
            )
        {
            return Ok(false);
        }
        let elem = ty.bits() / 8;
        let size = u64::from(elem) * dsts.len() as u64;
        if !(4..=8).contains(&elem) || mask == 0 {
            return Ok(false);
        }
        let mut buffers = [0u32; 32];
        let mut offsets = warp_addresses(program, &warp.regs, *addr);
        if !self.place_lanes(*space, size, mask, &mut buffers, &mut offsets) {
            return Ok(false);
        }
        let region = |b: u32| {
            if b == SHARED {
                Region::Shared
            } else {
                Region::Global(b)
            }
        };
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
            let mut rest = mask;
            while rest != 0 {
                let l = rest.trailing_zeros() as usize;
                let mut same = 1u32 << l;
                let mut next = rest & !same;
                while next != 0 && {
                    let o = next.trailing_zeros() as usize;
                    offsets[o] == offsets[l] && buffers[o] == buffers[l]
                } {
                    same |= next & next.wrapping_neg();
                    next &= next - 1;
                }
                rest &= !same;
                let (r, at) = (region(buffers[l]), offsets[l]);
                for w in 0..words {
                    race.record_read(r, at / 4 + w, warp.index, same, pc32, step, any_strong);
                }
            }
        }
        if buffers[mask.trailing_zeros() as usize] == SHARED {
            self.run.counters.shared += 1;
        } else {
            self.run.counters.global += 1;
        }
        let who = Who {
            warp: warp.index,
            step: warp.step,
        };
        let device = *strong == Strength::Device;
        let signed = matches!(ty, Ty::Int(t) if t.signed);
        for l in lanes(mask) {
            let (buffer, offset) = (buffers[l], offsets[l]);
            if buffer != SHARED {
                let mem = Self::global_mem(buffer);
                for k in 0..dsts.len() as u64 {
                    let at = offset + k * u64::from(elem);
                    self.run
                        .check_blocks(who, pc, l, mem, at, elem, false, false, device)?;
                }
            }
            for (k, d) in dsts.iter().enumerate() {
                let Some(d) = *d else {
                    continue;
                };
                let at = offset + k as u64 * u64::from(elem);
                let v = match buffer {
                    SHARED if elem == 4 => {
                        let at = at as usize;
                        let word = self.run.shared[at..at + 4].try_into().expect("4 bytes");
                        u64::from(u32::from_le_bytes(word))
                    }
                    SHARED => read_bytes(&self.run.shared, at as usize, elem),
                    b => self.run.globals[b as usize].read(at, elem),
                };
                let v = if signed { sext(v, 8 * elem) } else { v };
                warp.regs[d as usize][l] = v & ones(program.reg_bits[d as usize]);
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
        if self.run.race.is_none()
            || self.run.options.stats
            || self.asyncs.pending != 0
            || super::exec_hot::general_only()
        {
            return Ok(false);
        }
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
        if sem.acquire || sem.release || !(4..=8).contains(&elem) || mask == 0 {
            return Ok(false);
        }
        let mut buffers = [0u32; 32];
        let mut offsets = warp_addresses(program, &warp.regs, *addr);
        if !self.place_lanes(*space, size, mask, &mut buffers, &mut offsets) {
            return Ok(false);
        }
        if buffers[mask.trailing_zeros() as usize] == SHARED {
            self.run.counters.shared += 1;
        } else {
            self.run.counters.global += 1;
        }
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
                let region = if buffer == SHARED {
                    Region::Shared
                } else {
                    Region::Global(buffer)
                };
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
}
