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
use super::decode::Program;
use super::exec_int::{ones, sext};
use super::exec_mem::Place;
use super::inst::Addr;
use super::inst::{MemSpace, Op, Ty};
use super::lanes;
use crate::memory::{read_bytes, write_bytes};

/// A lane's place in the fast path: the global buffer, or [`SHARED`] for shared memory.
pub(super) const SHARED: u32 = u32::MAX;

/// Every lane's address `[base+offset]` (as [`effective_address`], for all 32 lanes in one
/// vectorized loop; lanes outside the mask are computed and ignored).
#[inline(always)]
pub(super) fn warp_addresses(program: &Program, regs: &[[u64; 32]], addr: Addr) -> [u64; 32] {
    let Addr { base, offset } = addr;
    let Some(b) = base else {
        return [offset as u64; 32];
    };
    let keep = if program.reg_bits[b as usize] <= 32 {
        0xffff_ffff
    } else {
        u64::MAX
    };
    let col = &regs[b as usize];
    std::array::from_fn(|l| col[l].wrapping_add(offset as u64) & keep)
}

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

    /// Places the addresses `offsets` of `mask`'s lanes (each `size` bytes) through [`Self::locate`]:
    /// `buffers` and `offsets` then hold each lane's buffer (or [`SHARED`]) and byte offset.
    /// Shared memory, the common case, is checked for the whole warp at once. `false` when a lane's
    /// access is not placed quickly (the caller takes the general path).
    #[inline(always)]
    pub(super) fn place_lanes(
        &self,
        space: MemSpace,
        size: u64,
        mask: u32,
        buffers: &mut [u32; 32],
        offsets: &mut [u64; 32],
    ) -> bool {
        if space == MemSpace::Shared && size.is_power_of_two() {
            // In bounds: `a + size <= total`, as `a <= total - size` (no overflow to think of).
            let Some(last) = u64::from(self.launch.shared_total).checked_sub(size) else {
                return false;
            };
            let bad = |a: u64| (a & (size - 1)) | u64::from(a > last);
            *buffers = [SHARED; 32];
            return if mask == u32::MAX {
                offsets.iter().fold(0, |any, &a| any | bad(a)) == 0
            } else {
                !lanes(mask).any(|l| bad(offsets[l]) != 0)
            };
        }
        let mut hint = 0;
        if space == MemSpace::Global && mask != 0 && size.is_power_of_two() {
            // Every lane in the first lane's buffer, the common case: one range test over the warp.
            let first = offsets[mask.trailing_zeros() as usize];
            if let Some((buffer, start, len)) = self.launch.map.region_of(first, &mut hint) {
                if let Some(last) = len.checked_sub(size) {
                    let bad = |a: u64| (a & (size - 1)) | u64::from(a.wrapping_sub(start) > last);
                    let fits = if mask == u32::MAX {
                        offsets.iter().fold(0, |any, &a| any | bad(a)) == 0
                    } else {
                        !lanes(mask).any(|l| bad(offsets[l]) != 0)
                    };
                    if fits {
                        *buffers = [buffer; 32];
                        for o in offsets.iter_mut() {
                            *o = o.wrapping_sub(start);
                        }
                        return true;
                    }
                }
            }
        }
        for l in lanes(mask) {
            let Some((b, o)) = self.locate(space, offsets[l], size, &mut hint) else {
                return false;
            };
            buffers[l] = b;
            offsets[l] = o;
        }
        true
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
        let mut offsets = warp_addresses(program, &warp.regs, addr);
        if !self.place_lanes(space, size, mask, &mut buffers, &mut offsets) {
            return false;
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
        // The global buffer every lane's access is in, when there is one.
        let single = (!shared && mask != 0)
            .then(|| buffers[mask.trailing_zeros() as usize])
            .filter(|&b| {
                if mask == u32::MAX {
                    buffers.iter().fold(true, |all, &x| all & (x == b))
                } else {
                    lanes(mask).all(|l| buffers[l] == b)
                }
            });
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
                    if space == MemSpace::Shared && elem == 4 {
                        // Every lane in shared memory (`place_lanes`): 32-bit words straight
                        // from the block's bytes.
                        let shared = &run.shared[..];
                        let word = |l: usize| {
                            let at = (offsets[l] + skip) as usize;
                            let w = u32::from_le_bytes(shared[at..at + 4].try_into().expect("4"));
                            if signed {
                                w as i32 as i64 as u64
                            } else {
                                u64::from(w)
                            }
                        };
                        if mask == u32::MAX {
                            for (l, slot) in col.iter_mut().enumerate() {
                                *slot = word(l) & keep;
                            }
                        } else {
                            for l in lanes(mask) {
                                col[l] = word(l) & keep;
                            }
                        }
                        continue;
                    }
                    if let Some(global) = single.map(|b| &run.globals[b as usize]) {
                        // Every lane in one global buffer: no choice of memory per lane.
                        for l in lanes(mask) {
                            let v = global.read(offsets[l] + skip, elem);
                            let v = if signed { sext(v, 8 * elem) } else { v };
                            col[l] = v & keep;
                        }
                        continue;
                    }
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
                if let Some(b) = single {
                    // Every lane in one global buffer.
                    let global = &run.globals[b as usize];
                    let mut changed = false;
                    for l in lanes(mask) {
                        for (k, &s) in srcs.iter().enumerate() {
                            let at = offsets[l] + k as u64 * u64::from(elem);
                            let v = warp.regs[s as usize][l] & keep;
                            changed |= global.read(at, elem) != v;
                            global.write(at, elem, v);
                        }
                    }
                    run.changed |= changed;
                    return true;
                }
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

    /// Executes a load from the parameter or constant space (read-only for the whole launch, so
    /// nothing to check but the bounds and the alignment, sanitizer or not) when every lane's
    /// address is aligned and in bounds; `false` (nothing done) otherwise: the general path
    /// explains the fault.
    pub(super) fn fast_constant_load(&mut self, warp: &mut PtxWarp, pc: usize, mask: u32) -> bool {
        if super::exec_hot::general_only() {
            return false;
        }
        let program = self.launch.program;
        let Op::Ld {
            space,
            ty,
            dsts,
            addr,
            ..
        } = &program.insts[pc].op
        else {
            return false;
        };
        let bytes: &[u8] = match space {
            MemSpace::Param => &self.launch.params,
            MemSpace::Const => &program.constants,
            _ => return false,
        };
        let elem = ty.bits() / 8;
        let size = u64::from(elem) * dsts.len() as u64;
        if !size.is_power_of_two() {
            return false;
        }
        let Some(last) = (bytes.len() as u64).checked_sub(size) else {
            return false;
        };
        let offsets = warp_addresses(program, &warp.regs, *addr);
        if lanes(mask).any(|l| (offsets[l] & (size - 1)) != 0 || offsets[l] > last) {
            return false;
        }
        self.run.counters.arithmetic += 1;
        let signed = matches!(ty, Ty::Int(t) if t.signed);
        for (k, d) in dsts.iter().enumerate() {
            let Some(d) = *d else {
                continue;
            };
            let keep = ones(program.reg_bits[d as usize]);
            let skip = k as u64 * u64::from(elem);
            for l in lanes(mask) {
                let v = read_bytes(bytes, (offsets[l] + skip) as usize, elem);
                let v = if signed { sext(v, 8 * elem) } else { v };
                warp.regs[d as usize][l] = v & keep;
            }
        }
        true
    }
}
