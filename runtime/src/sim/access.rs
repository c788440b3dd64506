//! Loads, stores, wide accesses and atomics: every lane's address checked first (memcheck: bounds
//! against the buffer's length or the shared array's declared size, which is stricter than hardware;
//! wide accesses aligned to their width), then the access, lane by lane in ascending order, with
//! racecheck, initcheck and the coalescing / bank-conflict counters on the side.

use super::block::{BlockRun, Stop};
use super::decode::{Inst, Mem, Reg, Space};
use super::finding::FindingKind;
use super::lanes::lanes;
use super::memory::{atomic_result, read_bytes, write_bytes};
use super::race::{Race, Touch};
use super::stats::{global_sectors, shared_wavefronts};
use super::warp::Warp;

/// What a memory instruction does, decoded from its [`Inst`].
enum Kind<'i> {
    Load(Reg),
    Store(Reg),
    LoadWide(&'i [Reg]),
    StoreWide(&'i [Reg]),
    Atomic {
        dst: Reg,
        op: warpforge_ir::AtomicOp,
        operand: Reg,
        compare: Option<Reg>,
    },
}

impl BlockRun<'_> {
    /// Executes the memory instruction at `pc`.
    pub(crate) fn exec_memory(&mut self, warp: &mut Warp, pc: usize) -> Result<(), Stop> {
        let program = self.program;
        let (mem, index, kind) = match &program.insts[pc] {
            Inst::Load { dst, mem, index } => (*mem, *index, Kind::Load(*dst)),
            Inst::Store { mem, index, src } => (*mem, *index, Kind::Store(*src)),
            Inst::LoadWide { dsts, mem, index } => (*mem, *index, Kind::LoadWide(dsts)),
            Inst::StoreWide { mem, index, srcs } => (*mem, *index, Kind::StoreWide(srcs)),
            Inst::Atomic {
                dst,
                op,
                mem,
                index,
                operand,
                compare,
            } => (
                *mem,
                *index,
                Kind::Atomic {
                    dst: *dst,
                    op: *op,
                    operand: *operand,
                    compare: *compare,
                },
            ),
            _ => unreachable!("a memory instruction"),
        };
        let elem = mem.elem.size_bytes().unwrap_or(4);
        let width = match kind {
            Kind::LoadWide(r) | Kind::StoreWide(r) => 4 * r.len() as u32,
            _ => elem,
        };
        let active = warp.active;
        let c = &mut self.counters;
        c.active_lanes += u64::from(active.count_ones());
        let len = match mem.space {
            Space::Global(b) => {
                c.global += 1;
                self.globals[b as usize].len
            }
            Space::Shared { .. } => {
                c.shared += 1;
                u64::from(mem.shared_len)
            }
        };

        // Addresses, checked before anything is touched.
        // Alignment is a property of the address: shared arrays start at their offset in the block's
        // shared memory (global buffers are allocated aligned).
        let base = match mem.space {
            Space::Shared { offset } => u64::from(offset),
            Space::Global(_) => 0,
        };
        let indices = *warp.reg(index);
        let mut addrs = [0u64; 32];
        let (mut oob, mut misaligned) = (0u32, 0u32);
        for l in lanes(active) {
            match indices[l].checked_mul(u64::from(elem)).filter(|a| {
                a.checked_add(u64::from(width))
                    .is_some_and(|end| end <= len)
            }) {
                Some(a) if (base + a) % u64::from(width) != 0 => misaligned |= 1 << l,
                Some(a) => addrs[l] = a,
                None => oob |= 1 << l,
            }
        }
        if oob != 0 || misaligned != 0 {
            let (kind, lanes_bad) = if oob != 0 {
                (FindingKind::OutOfBounds, oob)
            } else {
                (FindingKind::Misaligned, misaligned)
            };
            let l = lanes_bad.trailing_zeros() as usize;
            let byte = indices[l].saturating_mul(u64::from(elem));
            let array = program.arrays[mem.array as usize].clone();
            let detail = if kind == FindingKind::OutOfBounds {
                format!(
                    "index {} ({width}-byte access at byte {byte}) is past the end of `{array}` \
                     ({len} bytes){}",
                    indices[l],
                    if matches!(mem.space, Space::Shared { .. }) {
                        " — the simulator checks each shared array's declared size, stricter than \
                         hardware"
                    } else {
                        ""
                    }
                )
            } else {
                format!(
                    "a {width}-byte access must start at a multiple of {width} bytes (index {}; CUDA: \
                     CUDA_ERROR_MISALIGNED_ADDRESS)",
                    indices[l]
                )
            };
            let f = self.finding(
                kind,
                pc as u32,
                warp.index,
                lanes_bad,
                Some((array, byte)),
                detail,
            );
            return self.report(kind, pc as u32, 0, f);
        }

        if self.options.stats {
            let touched: Vec<(u32, u64)> = lanes(active).map(|l| (l as u32, addrs[l])).collect();
            let c = &mut self.counters;
            match mem.space {
                Space::Global(_) => {
                    c.global_bytes += u64::from(width) * touched.len() as u64;
                    c.global_sectors += global_sectors(&touched, width);
                }
                Space::Shared { offset } => {
                    let abs: Vec<(u32, u64)> = touched
                        .iter()
                        .map(|&(l, a)| (l, a + u64::from(offset)))
                        .collect();
                    let (waves, ideal) = shared_wavefronts(&abs, width);
                    c.shared_wavefronts += waves;
                    c.bank_conflicts += waves - ideal;
                }
            }
        }

        for l in lanes(active) {
            let addr = addrs[l];
            match kind {
                Kind::Load(dst) => {
                    let v = self.read(warp, pc, l, mem, addr, elem)?;
                    warp.regs[dst as usize][l] = v;
                }
                Kind::Store(src) => {
                    let v = warp.regs[src as usize][l];
                    self.write(warp, pc, l, mem, addr, elem, v, false)?;
                }
                Kind::LoadWide(dsts) => {
                    for (k, dst) in dsts.iter().enumerate() {
                        let v = self.read(warp, pc, l, mem, addr + 4 * k as u64, 4)?;
                        warp.regs[*dst as usize][l] = v;
                    }
                }
                Kind::StoreWide(srcs) => {
                    for (k, src) in srcs.iter().enumerate() {
                        let v = warp.regs[*src as usize][l];
                        self.write(warp, pc, l, mem, addr + 4 * k as u64, 4, v, false)?;
                    }
                }
                Kind::Atomic {
                    dst,
                    op,
                    operand,
                    compare,
                } => {
                    let operand = warp.regs[operand as usize][l] as u32;
                    let compare = compare.map_or(0, |c| warp.regs[c as usize][l] as u32);
                    let old = match mem.space {
                        Space::Global(b) => {
                            let bits = u64::from(operand);
                            self.check_race(warp, pc, l, mem, addr, 4, true, true, bits)?;
                            if self.race.is_some() {
                                self.check_blocks(warp, pc, l, mem, addr, 4, false, true)?;
                            }
                            self.globals[b as usize].atomic(addr, op, operand, compare)
                        }
                        Space::Shared { offset } => {
                            // One atomic access for racecheck (an atomic never races another).
                            self.initcheck(warp, pc, l, mem, addr, 4)?;
                            let at = (u64::from(offset) + addr) as usize;
                            let old = read_bytes(&self.shared, at, 4) as u32;
                            let new = atomic_result(op, old, operand, compare);
                            self.write(warp, pc, l, mem, addr, 4, u64::from(new), true)?;
                            old
                        }
                    };
                    warp.regs[dst as usize][l] = u64::from(old);
                }
            }
        }
        Ok(())
    }

    /// Reads `size` bytes at byte `addr` of `mem` for lane `l` (checked), with racecheck and initcheck.
    fn read(
        &mut self,
        warp: &Warp,
        pc: usize,
        l: usize,
        mem: Mem,
        addr: u64,
        size: u32,
    ) -> Result<u64, Stop> {
        match mem.space {
            Space::Global(b) => {
                if self.race.is_some() {
                    self.check_race(warp, pc, l, mem, addr, size, false, false, 0)?;
                    self.check_blocks(warp, pc, l, mem, addr, size, false, false)?;
                }
                Ok(self.globals[b as usize].read(addr, size))
            }
            Space::Shared { offset } => {
                let at = (u64::from(offset) + addr) as usize;
                if self.race.is_some() {
                    self.check_race(warp, pc, l, mem, addr, size, false, false, 0)?;
                    self.initcheck(warp, pc, l, mem, addr, size)?;
                }
                Ok(read_bytes(&self.shared, at, size))
            }
        }
    }

    /// initcheck: a warning when no thread wrote the shared bytes `addr..addr + size` of `mem`.
    fn initcheck(
        &mut self,
        warp: &Warp,
        pc: usize,
        l: usize,
        mem: Mem,
        addr: u64,
        size: u32,
    ) -> Result<(), Stop> {
        let Space::Shared { offset } = mem.space else {
            return Ok(());
        };
        if self.written.is_empty() {
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
            warp,
            l,
            at,
            0,
            detail.into(),
        )
    }

    /// Writes `size` bytes of `value` at byte `addr` of `mem` for lane `l`, with racecheck.
    #[allow(clippy::too_many_arguments)]
    fn write(
        &mut self,
        warp: &Warp,
        pc: usize,
        l: usize,
        mem: Mem,
        addr: u64,
        size: u32,
        value: u64,
        atomic: bool,
    ) -> Result<(), Stop> {
        if self.race.is_some() {
            self.check_race(warp, pc, l, mem, addr, size, true, atomic, value)?;
            self.check_blocks(warp, pc, l, mem, addr, size, !atomic, atomic)?;
        }
        match mem.space {
            Space::Global(b) => self.globals[b as usize].write(addr, size, value),
            Space::Shared { offset } => {
                let at = (u64::from(offset) + addr) as usize;
                write_bytes(&mut self.shared, at, size, value);
                if !self.written.is_empty() {
                    self.written[at..at + size as usize].fill(true);
                }
            }
        }
        Ok(())
    }

    /// Reports a finding about lane `l`'s access to byte `addr` of `mem` at `pc` (`other_pc`: the other
    /// statement of a race, so each pair is reported once per block).
    #[allow(clippy::too_many_arguments)]
    fn memory_finding(
        &mut self,
        kind: FindingKind,
        pc: usize,
        warp: &Warp,
        l: usize,
        (mem, addr): (Mem, u64),
        other_pc: u32,
        detail: String,
    ) -> Result<(), Stop> {
        let array = self.program.arrays[mem.array as usize].clone();
        let f = self.finding(
            kind,
            pc as u32,
            warp.index,
            1 << l,
            Some((array, addr)),
            detail,
        );
        self.report(kind, pc as u32, other_pc, f)
    }

    /// racecheck between blocks, for a plain global access.
    #[allow(clippy::too_many_arguments)]
    fn check_blocks(
        &mut self,
        warp: &Warp,
        pc: usize,
        l: usize,
        mem: Mem,
        addr: u64,
        size: u32,
        write: bool,
        atomic: bool,
    ) -> Result<(), Stop> {
        let Space::Global(b) = mem.space else {
            return Ok(());
        };
        let Some(other) = self.globals[b as usize].touch(self.block, addr, size, write, atomic)
        else {
            return Ok(());
        };
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
        self.memory_finding(FindingKind::GlobalRace, pc, warp, l, at, u32::MAX, detail)
    }

    /// racecheck on each byte of an access.
    #[allow(clippy::too_many_arguments)]
    fn check_race(
        &mut self,
        warp: &Warp,
        pc: usize,
        l: usize,
        mem: Mem,
        addr: u64,
        size: u32,
        write: bool,
        atomic: bool,
        value: u64,
    ) -> Result<(), Stop> {
        let Some(race) = &mut self.race else {
            return Ok(());
        };
        let thread = warp.index * 32 + l as u32;
        let mut found: Option<(Race, u64)> = None;
        for i in 0..u64::from(size) {
            let t = Touch {
                thread,
                pc: pc as u32,
                step: warp.step,
                write,
                atomic,
                byte: (value >> (8 * i)) as u8,
            };
            let r = match mem.space {
                Space::Global(b) => race.global(b, addr + i, t),
                Space::Shared { offset } => race.shared((u64::from(offset) + addr + i) as usize, t),
            };
            if found.is_none() {
                found = r.map(|r| (r, addr + i));
            }
        }
        let Some((r, byte)) = found else {
            return Ok(());
        };
        let kind = match mem.space {
            Space::Global(_) => FindingKind::GlobalRace,
            Space::Shared { .. } => FindingKind::SharedRace,
        };
        let verb = |w: bool| if w { "writes" } else { "reads" };
        let who = |t: u32| format!("thread {t} (warp {}, lane {})", t / 32, t % 32);
        let detail = if r.same_statement {
            format!(
                "{} and {} write different values to the same byte in one statement (which lands is \
                 undefined)",
                who(r.first_thread),
                who(r.second_thread)
            )
        } else {
            format!(
                "{} {} it here; {} {} it at {} with no barrier (or warp_sync naming both lanes) between",
                who(r.second_thread),
                verb(r.second_wrote),
                who(r.first_thread),
                verb(r.first_wrote),
                self.program.site(r.first_pc as usize)
            )
        };
        let at = (mem, byte);
        self.memory_finding(kind, pc, warp, l, at, r.first_pc, detail)
    }
}
