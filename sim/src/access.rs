//! The IR's loads, stores, wide accesses and atomics: every lane's address checked first (memcheck:
//! bounds against the buffer's length or the shared array's declared size, which is stricter than
//! hardware; wide accesses aligned to their width), then the access, lane by lane in ascending order
//! (`lane_access.rs`: racecheck, initcheck), with the coalescing / bank-conflict counters on the side.

use super::block::{BlockRun, Stop, Who};
use super::decode::{Inst, Reg, Space};
use super::finding::FindingKind;
use super::lanes::lanes;
use super::memory::{atomic_result, float_add, read_bytes};
use super::race::Strength;
use super::stats::{global_sectors, shared_wavefronts};
use super::warp::Warp;
use warpforge_ir::ScalarType;

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
        let who = Who {
            warp: warp.index,
            step: warp.step,
        };
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
                    let v = self.read(who, pc, l, mem, addr, elem, Strength::Plain)?;
                    warp.regs[dst as usize][l] = v;
                }
                Kind::Store(src) => {
                    let v = warp.regs[src as usize][l];
                    self.write(who, pc, l, mem, addr, elem, v, false, Strength::Plain)?;
                }
                Kind::LoadWide(dsts) => {
                    for (k, dst) in dsts.iter().enumerate() {
                        let v =
                            self.read(who, pc, l, mem, addr + 4 * k as u64, 4, Strength::Plain)?;
                        warp.regs[*dst as usize][l] = v;
                    }
                }
                Kind::StoreWide(srcs) => {
                    for (k, src) in srcs.iter().enumerate() {
                        let v = warp.regs[*src as usize][l];
                        self.write(
                            who,
                            pc,
                            l,
                            mem,
                            addr + 4 * k as u64,
                            4,
                            v,
                            false,
                            Strength::Plain,
                        )?;
                    }
                }
                Kind::Atomic {
                    dst,
                    op,
                    operand,
                    compare,
                } => {
                    let wide = mem.elem == ScalarType::F64;
                    let size = if wide { 8 } else { 4 };
                    let operand = warp.regs[operand as usize][l];
                    let narrow = operand as u32;
                    let compare = compare.map_or(0, |c| warp.regs[c as usize][l] as u32);
                    let old = match mem.space {
                        Space::Global(b) => {
                            self.check_race(who, pc, l, mem, addr, size, true, true, operand)?;
                            if self.race.is_some() {
                                self.check_blocks(who, pc, l, mem, addr, size, false, true, false)?;
                            }
                            let buffer = &self.globals[b as usize];
                            match mem.elem {
                                ScalarType::F64 => buffer.atomic_add_f64(addr, operand),
                                ScalarType::F32 => u64::from(buffer.atomic_add_f32(addr, narrow)),
                                _ => u64::from(buffer.atomic(addr, op, narrow, compare)),
                            }
                        }
                        Space::Shared { offset } => {
                            // One atomic access for racecheck (an atomic never races another).
                            self.initcheck(who, pc, l, mem, addr, size)?;
                            let at = (u64::from(offset) + addr) as usize;
                            let old = read_bytes(&self.shared, at, size);
                            let new = match mem.elem {
                                ScalarType::F64 => crate::ptx::f64_atomic_add(old, operand),
                                ScalarType::F32 => u64::from(float_add(false, old as u32, narrow)),
                                _ => u64::from(atomic_result(op, old as u32, narrow, compare)),
                            };
                            self.write(who, pc, l, mem, addr, size, new, true, Strength::Plain)?;
                            old
                        }
                    };
                    warp.regs[dst as usize][l] = old;
                }
            }
        }
        Ok(())
    }
}
