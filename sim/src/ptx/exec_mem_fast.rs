//! The common case of `ld` and `st`, kept short. `place_quick` places an aligned, in-bounds address
//! of global or shared memory (directly or through a generic address) without building a fault's
//! description; anything else takes `exec_mem.rs`'s `place`, which explains the fault.
//! `fast_memory` executes a whole load or store when the sanitizer and the statistics are off and
//! every lane's address places quickly: nothing to record for racecheck or initcheck, no copies in
//! flight to check (those checks run only with the sanitizer), no faults. Otherwise it does nothing
//! and the general path runs. The bytes read and written, the counters and `changed` (the
//! scheduler's deadlock proof) are the general path's.

use super::address::{generic, Generic};
use super::block::{PtxBlock, PtxWarp};
use super::exec_int::{ones, sext};
use super::exec_mem::{effective_address, Place};
use super::inst::{MemSpace, Op, Ty};
use super::lanes;
use crate::memory::{read_bytes, write_bytes};

/// A lane's place in the fast path: the global buffer, or [`SHARED`] for shared memory.
const SHARED: u32 = u32::MAX;

impl PtxBlock<'_> {
    /// Where an access of `size` bytes at `addr` lands, when it is an aligned, in-bounds access to
    /// global or shared memory (directly or through a generic address); `None` otherwise (the
    /// caller asks `place`).
    #[inline]
    pub(super) fn place_quick(&self, space: MemSpace, addr: u64, size: u64) -> Option<Place> {
        if super::exec_hot::general_only() {
            return None;
        }
        let (buffer, offset) = self.locate(space, addr, size, &mut 0)?;
        Some(if buffer == SHARED {
            Place::Shared(offset)
        } else {
            Place::Global { buffer, offset }
        })
    }

    /// [`Self::place_quick`] as (buffer or [`SHARED`], byte offset).
    #[inline(always)]
    fn locate(
        &self,
        space: MemSpace,
        addr: u64,
        size: u64,
        hint: &mut usize,
    ) -> Option<(u32, u64)> {
        if !size.is_power_of_two() || addr & (size - 1) != 0 {
            return None;
        }
        let (space, addr) = match space {
            MemSpace::Generic => match generic(addr) {
                Generic::Shared(a) => (MemSpace::Shared, a),
                Generic::Global(a) => (MemSpace::Global, a),
                Generic::Local(_) => return None,
            },
            s => (s, addr),
        };
        match space {
            MemSpace::Global => self.launch.map.find_quick(addr, size, hint),
            MemSpace::Shared => addr
                .checked_add(size)
                .is_some_and(|end| end <= u64::from(self.launch.shared_total))
                .then_some((SHARED, addr)),
            _ => None,
        }
    }

    /// Executes the load or store at `pc` on `mask`'s lanes when the sanitizer and the statistics
    /// are off and every lane's address is placed by [`Self::locate`]; `false` (nothing done)
    /// otherwise.
    pub(super) fn fast_memory(&mut self, warp: &mut PtxWarp, pc: usize, mask: u32) -> bool {
        if self.run.race.is_some() || self.run.options.stats || super::exec_hot::general_only() {
            return false;
        }
        let program = self.launch.program;
        let (space, ty, count, addr, load) = match &program.insts[pc].op {
            Op::Ld {
                space,
                ty,
                dsts,
                addr,
                ..
            } => (*space, *ty, dsts.len(), *addr, true),
            Op::St {
                space,
                ty,
                srcs,
                addr,
                ..
            } => (*space, *ty, srcs.len(), *addr, false),
            _ => return false,
        };
        if !matches!(
            space,
            MemSpace::Global | MemSpace::Shared | MemSpace::Generic
        ) {
            return false;
        }
        let elem = ty.bits() / 8;
        let size = u64::from(elem) * count as u64;
        let mut buffers = [0u32; 32];
        let mut offsets = [0u64; 32];
        let mut hint = 0;
        for l in lanes(mask) {
            let a = effective_address(program, &warp.regs, addr, l);
            let Some((b, o)) = self.locate(space, a, size, &mut hint) else {
                return false;
            };
            buffers[l] = b;
            offsets[l] = o;
        }
        let shared = if mask == 0 {
            space == MemSpace::Shared
        } else {
            buffers[mask.trailing_zeros() as usize] == SHARED
        };
        if shared {
            self.run.counters.shared += 1;
        } else {
            self.run.counters.global += 1;
        }
        match &program.insts[pc].op {
            Op::Ld { dsts, .. } if load => {
                // Reads have no side effect here, so each destination is filled in turn (a
                // discarded element, `_`, is not read).
                let signed = matches!(ty, Ty::Int(t) if t.signed);
                let (run, regs) = (&self.run, &mut warp.regs);
                for (k, d) in dsts.iter().enumerate() {
                    let Some(d) = *d else {
                        continue;
                    };
                    let keep = ones(program.reg_bits[d as usize]);
                    let col = &mut regs[d as usize];
                    let skip = k as u64 * u64::from(elem);
                    for l in lanes(mask) {
                        let at = offsets[l] + skip;
                        let v = match buffers[l] {
                            SHARED if elem == 4 => {
                                let at = at as usize;
                                u64::from(u32::from_le_bytes(
                                    run.shared[at..at + 4].try_into().expect("4 bytes"),
                                ))
                            }
                            SHARED => read_bytes(&run.shared, at as usize, elem),
                            b => run.globals[b as usize].read(at, elem),
                        };
                        let v = if signed { sext(v, 8 * elem) } else { v };
                        col[l] = v & keep;
                    }
                }
            }
            Op::St { srcs, .. } => {
                let keep = ones(8 * elem);
                let run = &mut self.run;
                for l in lanes(mask) {
                    for (k, &s) in srcs.iter().enumerate() {
                        let at = offsets[l] + k as u64 * u64::from(elem);
                        let v = warp.regs[s as usize][l] & keep;
                        match buffers[l] {
                            SHARED => {
                                let at = at as usize;
                                run.changed |= read_bytes(&run.shared, at, elem) != v;
                                write_bytes(&mut run.shared, at, elem, v);
                            }
                            b => {
                                let global = &run.globals[b as usize];
                                run.changed |= global.read(at, elem) != v;
                                global.write(at, elem, v);
                            }
                        }
                    }
                }
            }
            _ => unreachable!("a load or a store, matched above"),
        }
        true
    }
}
