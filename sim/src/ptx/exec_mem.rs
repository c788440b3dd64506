//! `ld`, `st`, `atom` and `red` on a warp. Every lane's address is checked first, as the hardware's
//! load/store unit would: an address that is not a multiple of the access size (a vector's whole
//! size, an atomic's type size) is a misaligned address (`CUDA_ERROR_MISALIGNED_ADDRESS`, 716), one
//! outside the memory its space holds — no buffer of the launch, past the block's shared memory,
//! past a thread's local memory — an illegal address (`CUDA_ERROR_ILLEGAL_ADDRESS`, 700); either
//! stops the block with the instruction's line. Then the lanes access memory in ascending order
//! through the shared machinery (racecheck, initcheck, the cross-block check), with the coalescing
//! and bank-conflict counters.

use warpforge_ir::ScalarType;

use super::address::{generic, Generic};
use super::block::{PtxBlock, PtxWarp};
use super::exec_float;
use super::exec_int::{ones, sext};
use super::inst::{Addr, AtomOp, Int, MemSpace, Op, Ty, R};
use super::lanes;
use crate::block::{Stop, Who};
use crate::decode::{Mem, Space};
use crate::memory::{read_bytes, write_bytes};
use crate::race::{Loc, Sem, Strength};
use crate::stats::{global_sectors, shared_wavefronts};

/// Where one lane's access lands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    Global { buffer: u32, offset: u64 },
    Shared(u64),
    Local(u64),
    Param(u64),
    Const(u64),
}

/// Why a lane's access faults.
pub(super) enum Fault {
    Misaligned(String, Option<(String, u64)>),
    Illegal(String, Option<(String, u64)>),
}

/// What the instruction does with each lane's bytes.
enum Access<'i> {
    Load(&'i [Option<R>]),
    Store(&'i [R]),
    Atomic {
        op: AtomOp,
        ty: Int,
        d: Option<R>,
        b: R,
        c: Option<R>,
    },
}

/// The new value of an atomic read-modify-write.
fn rmw(op: AtomOp, ty: Int, global: bool, old: u64, b: u64, c: u64) -> u64 {
    let (old, b) = (ty.trunc(old), ty.trunc(b));
    ty.trunc(match op {
        AtomOp::Add => old.wrapping_add(b),
        AtomOp::AddF32 => exec_float::atomic_add(global, old, b),
        AtomOp::AddF64 => super::exec_f64::atomic_add(old, b),
        AtomOp::Min if ty.value(b) < ty.value(old) => b,
        AtomOp::Max if ty.value(b) > ty.value(old) => b,
        AtomOp::Min | AtomOp::Max => old,
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
        AtomOp::Exch => b,
        AtomOp::Cas if old == b => c,
        AtomOp::Cas => old,
        AtomOp::Inc if old >= b => 0,
        AtomOp::Inc => old + 1,
        AtomOp::Dec if old == 0 || old > b => b,
        AtomOp::Dec => old - 1,
    })
}

/// Lane `l`'s address `[base+offset]`: with a 32-bit base register the sum wraps at 32 bits (nvcc
/// folds negative offsets into 32-bit shared addresses, `[%r29+128]` with `%r29` = `-128`).
pub(super) fn effective_address(
    program: &super::decode::Program,
    regs: &[[u64; 32]],
    addr: Addr,
    l: usize,
) -> u64 {
    let Addr { base, offset } = addr;
    let a = base
        .map_or(0, |b| regs[b as usize][l])
        .wrapping_add(offset as u64);
    match base {
        Some(b) if program.reg_bits[b as usize] <= 32 => a & 0xffff_ffff,
        _ => a,
    }
}

impl PtxBlock<'_> {
    /// Where an access of `size` bytes at `addr` in `space` lands, for thread `thread` of the block.
    pub(super) fn place(
        &self,
        space: MemSpace,
        addr: u64,
        size: u64,
        thread: usize,
    ) -> Result<Place, Fault> {
        let l = self.launch;
        let within = |len: u64| addr.checked_add(size).is_some_and(|end| end <= len);
        let kind = match space {
            MemSpace::Generic => match generic(addr) {
                Generic::Shared(a) => return self.place(MemSpace::Shared, a, size, thread),
                Generic::Local(a) => return self.place(MemSpace::Local, a, size, thread),
                Generic::Global(a) => return self.place(MemSpace::Global, a, size, thread),
            },
            s => s,
        };
        if addr % size != 0 {
            let array = match kind {
                MemSpace::Shared => l.program_shared_array_at(addr).map(|i| {
                    let a = &l.program.shared[i];
                    (a.name.clone(), addr - u64::from(a.offset))
                }),
                MemSpace::Global => match l.map.find(addr, 1) {
                    Ok((buffer, offset)) => Some((l.arrays[buffer as usize].clone(), offset)),
                    Err(_) => None,
                },
                _ => None,
            };
            let within = array.as_ref().map_or_else(String::new, |(name, offset)| {
                format!(" (byte {offset} of `{name}`)")
            });
            return Err(Fault::Misaligned(
                format!("{} address {addr:#x}{within}", kind.name()),
                array,
            ));
        }
        let illegal = |what: String, at: Option<(String, u64)>| Err(Fault::Illegal(what, at));
        match kind {
            MemSpace::Global => match l.map.find(addr, size) {
                Ok((buffer, offset)) => Ok(Place::Global { buffer, offset }),
                Err(None) => illegal(
                    format!("global address {addr:#x}, in no buffer of the launch"),
                    None,
                ),
                Err(Some((buffer, offset))) => {
                    let name = l.arrays[buffer as usize].clone();
                    let len = self.run.globals[buffer as usize].len;
                    illegal(
                        format!("byte {offset} of `{name}`, past its end ({len} bytes)"),
                        Some((name, offset)),
                    )
                }
            },
            MemSpace::Shared if within(u64::from(l.shared_total)) => Ok(Place::Shared(addr)),
            MemSpace::Shared => illegal(
                format!(
                    "shared byte {addr}, past the block's {} bytes of shared memory",
                    l.shared_total
                ),
                None,
            ),
            MemSpace::Local if within(self.local_len(thread)) => Ok(Place::Local(addr)),
            MemSpace::Local => illegal(
                format!(
                    "local byte {addr}, past the thread's {} bytes of local memory (its frames \
                     and the kernel's)",
                    self.local_len(thread)
                ),
                None,
            ),
            MemSpace::Param if within(l.params.len() as u64) => Ok(Place::Param(addr)),
            MemSpace::Param => illegal(
                format!(
                    "parameter byte {addr}, past the {} parameter bytes",
                    l.params.len()
                ),
                None,
            ),
            MemSpace::Const if within(l.program.constants.len() as u64) => Ok(Place::Const(addr)),
            _ => illegal(
                format!(
                    "constant byte {addr}, past the {} bytes of `.const` variables",
                    l.program.constants.len()
                ),
                None,
            ),
        }
    }

    /// The shared machinery's view of a global buffer.
    pub(super) fn global_mem(buffer: u32) -> Mem {
        Mem {
            space: Space::Global(buffer),
            elem: ScalarType::U32,
            array: buffer,
            shared_len: 0,
        }
    }

    /// The shared machinery's view of shared byte `abs`: the array holding it, and the offset in it.
    pub(super) fn shared_mem(&self, abs: u64) -> (Mem, u64) {
        let l = self.launch;
        let (index, offset) = match l.program_shared_array_at(abs) {
            Some(i) => (i, u64::from(l.program.shared[i].offset)),
            None => (l.program.shared.len(), 0),
        };
        let mem = Mem {
            space: Space::Shared {
                offset: offset as u32,
            },
            elem: ScalarType::U32,
            array: l.first_shared + index as u32,
            shared_len: 0,
        };
        (mem, abs - offset)
    }

    /// Executes the memory instruction at `pc` on `mask`'s lanes.
    pub(crate) fn exec_memory(
        &mut self,
        warp: &mut PtxWarp,
        pc: usize,
        mask: u32,
    ) -> Result<(), Stop> {
        if self.fast_memory(warp, pc, mask)
            || self.fast_constant_load(warp, pc, mask)
            || self.checked_load(warp, pc, mask)?
            || self.checked_store(warp, pc, mask)?
        {
            return Ok(());
        }
        let program = self.launch.program;
        let strong = match program.insts[pc].op {
            Op::Ld { strong, .. } | Op::St { strong, .. } => strong,
            _ => Strength::Plain,
        };
        let sem = match program.insts[pc].op {
            Op::Ld { sem, .. } | Op::St { sem, .. } | Op::Atom { sem, .. } => sem,
            _ => Sem::default(),
        };
        let (space, elem, count, addr, access) = match &program.insts[pc].op {
            Op::Ld {
                space,
                ty,
                dsts,
                addr,
                ..
            } => (*space, ty.bits() / 8, dsts.len(), *addr, Access::Load(dsts)),
            Op::St {
                space,
                ty,
                srcs,
                addr,
                ..
            } => (
                *space,
                ty.bits() / 8,
                srcs.len(),
                *addr,
                Access::Store(srcs),
            ),
            Op::Atom {
                space,
                op,
                ty,
                d,
                addr,
                b,
                c,
                ..
            } => (
                *space,
                ty.bits / 8,
                1,
                *addr,
                Access::Atomic {
                    op: *op,
                    ty: *ty,
                    d: *d,
                    b: *b,
                    c: *c,
                },
            ),
            _ => return Ok(()),
        };
        let size = u64::from(elem) * count as u64;
        let mut places = [Place::Param(0); 32];
        let mut raw = [0u64; 32];
        let (mut misaligned, mut illegal) = (0u32, 0u32);
        let mut first_fault: Option<(usize, Fault)> = None;
        for l in lanes(mask) {
            let a = effective_address(program, &warp.regs, addr, l);
            raw[l] = a;
            let placed = match self.place_quick(space, a, size) {
                Some(p) => Ok(p),
                None => self.place(space, a, size, warp.index as usize * 32 + l),
            };
            match placed {
                Ok(p) => places[l] = p,
                Err(f) => {
                    match f {
                        Fault::Misaligned(..) => misaligned |= 1 << l,
                        Fault::Illegal(..) => illegal |= 1 << l,
                    }
                    let misaligned_first = matches!(f, Fault::Misaligned(..));
                    let replace = match &first_fault {
                        None => true,
                        Some((_, Fault::Illegal(..))) => misaligned_first,
                        Some(_) => false,
                    };
                    if replace {
                        first_fault = Some((l, f));
                    }
                }
            }
        }
        let first = mask.trailing_zeros() as usize;
        let c = &mut self.run.counters;
        match places.get(first) {
            Some(Place::Shared(_)) if mask != 0 => c.shared += 1,
            Some(Place::Param(_) | Place::Const(_)) if mask != 0 => c.arithmetic += 1,
            _ if space == MemSpace::Shared => c.shared += 1,
            _ if matches!(space, MemSpace::Param | MemSpace::Const) => c.arithmetic += 1,
            _ => c.global += 1,
        }
        if let Some((l, fault)) = first_fault {
            return self.memory_fault(warp, pc, l, size, fault, misaligned, illegal);
        }
        if self.run.options.stats {
            let shared: Vec<(u32, u64)> = lanes(mask)
                .filter_map(|l| match places[l] {
                    Place::Shared(a) => Some((l as u32, a)),
                    _ => None,
                })
                .collect();
            let global: Vec<(u32, u64)> = lanes(mask)
                .filter(|&l| matches!(places[l], Place::Global { .. }))
                .map(|l| (l as u32, raw[l]))
                .collect();
            let c = &mut self.run.counters;
            if !shared.is_empty() {
                let (waves, ideal) = shared_wavefronts(&shared, size as u32);
                c.shared_wavefronts += waves;
                c.bank_conflicts += waves - ideal;
            }
            if !global.is_empty() {
                c.global_bytes += size * global.len() as u64;
                c.global_sectors += global_sectors(&global, size as u32);
            }
        }
        let who = Who {
            warp: warp.index,
            step: warp.step,
        };
        for l in lanes(mask) {
            match access {
                Access::Load(dsts) => {
                    for (k, d) in dsts.iter().enumerate() {
                        let v =
                            self.read(who, pc, warp.index, l, places[l], k as u64, elem, strong)?;
                        if let Some(d) = *d {
                            let width = program.reg_bits[d as usize];
                            let signed = match &program.insts[pc].op {
                                Op::Ld { ty: Ty::Int(t), .. } => t.signed,
                                _ => false,
                            };
                            let v = if signed { sext(v, 8 * elem) } else { v };
                            warp.regs[d as usize][l] = v & ones(width);
                        }
                    }
                }
                Access::Store(srcs) => {
                    for (k, s) in srcs.iter().enumerate() {
                        let v = warp.regs[*s as usize][l] & ones(8 * elem);
                        self.write(who, pc, warp.index, l, places[l], k as u64, elem, v, strong)?;
                    }
                }
                Access::Atomic { op, ty, d, b, c } => {
                    let b = warp.regs[b as usize][l];
                    let c = c.map_or(0, |c| warp.regs[c as usize][l]);
                    let old = self.atomic(who, pc, l, places[l], op, ty, b, c)?;
                    if let (Place::Global { buffer, offset }, true) =
                        (places[l], self.run.race.is_some())
                    {
                        let at = (buffer, offset);
                        let fenced = self.run.sync.fenced;
                        let seen = self.launch.releases.atomic(at, self.run.block, fenced);
                        self.run.sync.acquire(at, seen);
                    }
                    if let Some(d) = d {
                        let width = program.reg_bits[d as usize];
                        warp.regs[d as usize][l] = old & ones(width);
                    }
                }
            }
            self.release_acquire(who, l, places[l], size, sem);
        }
        Ok(())
    }

    /// racecheck's release/acquire edges for lane `l`'s access of `size` bytes at `place`.
    fn release_acquire(&mut self, who: Who, l: usize, place: Place, size: u64, sem: Sem) {
        let Some(race) = &mut self.run.race else {
            return;
        };
        if !sem.acquire && !sem.release {
            return;
        }
        let thread = who.warp * 32 + l as u32;
        for i in 0..size {
            let at = match place {
                Place::Shared(abs) => Loc::Shared(abs + i),
                Place::Global { buffer, offset } => Loc::Global(buffer, offset + i),
                _ => return,
            };
            if sem.acquire {
                race.acquire(at, thread, who.step);
            }
            if sem.release {
                race.release(at, thread, who.step);
            }
        }
    }

    /// Reads element `k` (of `elem` bytes) of lane `l`'s access at `place`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn read(
        &mut self,
        who: Who,
        pc: usize,
        warp: u32,
        l: usize,
        place: Place,
        k: u64,
        elem: u32,
        strong: Strength,
    ) -> Result<u64, Stop> {
        let at = k * u64::from(elem);
        Ok(match place {
            Place::Global { buffer, offset } => {
                let mem = Self::global_mem(buffer);
                self.run.read(who, pc, l, mem, offset + at, elem, strong)?
            }
            Place::Shared(abs) => {
                self.pending_shared(who, pc, l, abs + at, elem, false)?;
                let (mem, rel) = self.shared_mem(abs);
                self.run.read(who, pc, l, mem, rel + at, elem, strong)?
            }
            Place::Local(off) => {
                let thread = warp as usize * 32 + l;
                read_bytes(&self.local[thread], (off + at) as usize, elem)
            }
            Place::Param(off) => read_bytes(&self.launch.params, (off + at) as usize, elem),
            Place::Const(off) => {
                read_bytes(&self.launch.program.constants, (off + at) as usize, elem)
            }
        })
    }

    /// Writes element `k` of lane `l`'s access at `place`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn write(
        &mut self,
        who: Who,
        pc: usize,
        warp: u32,
        l: usize,
        place: Place,
        k: u64,
        elem: u32,
        value: u64,
        strong: Strength,
    ) -> Result<(), Stop> {
        let at = k * u64::from(elem);
        match place {
            Place::Global { buffer, offset } => {
                self.pending_source(who, pc, l, buffer, offset + at, elem)?;
                let mem = Self::global_mem(buffer);
                self.run
                    .write(who, pc, l, mem, offset + at, elem, value, false, strong)
            }
            Place::Shared(abs) => {
                self.pending_shared(who, pc, l, abs + at, elem, true)?;
                let (mem, rel) = self.shared_mem(abs);
                self.run
                    .write(who, pc, l, mem, rel + at, elem, value, false, strong)
            }
            Place::Local(off) => {
                let at = (off + at) as usize;
                let local = &mut self.local[warp as usize * 32 + l];
                let mask = if elem >= 8 {
                    u64::MAX
                } else {
                    (1u64 << (elem * 8)) - 1
                };
                self.run.changed |= read_bytes(local, at, elem) != value & mask;
                write_bytes(local, at, elem, value);
                Ok(())
            }
            // Stores to the parameter and constant spaces are refused when decoding.
            Place::Param(_) | Place::Const(_) => Ok(()),
        }
    }

    /// An atomic read-modify-write of lane `l`; returns the old value.
    #[allow(clippy::too_many_arguments)]
    fn atomic(
        &mut self,
        who: Who,
        pc: usize,
        l: usize,
        place: Place,
        op: AtomOp,
        ty: Int,
        b: u64,
        c: u64,
    ) -> Result<u64, Stop> {
        let size = ty.bits / 8;
        match place {
            Place::Global { buffer, offset } => {
                self.pending_source(who, pc, l, buffer, offset, size)?;
                let mem = Self::global_mem(buffer);
                self.run
                    .check_race(who, pc, l, mem, offset, size, true, true, b)?;
                if self.run.race.is_some() {
                    self.run
                        .check_blocks(who, pc, l, mem, offset, size, false, true, false)?;
                }
                let g = &self.run.globals[buffer as usize];
                let old = g.read(offset, size);
                let new = rmw(op, ty, true, old, b, c);
                self.run.changed |= new != old;
                g.write(offset, size, new);
                Ok(old)
            }
            Place::Shared(abs) => {
                self.pending_shared(who, pc, l, abs, size, true)?;
                let (mem, rel) = self.shared_mem(abs);
                self.run.initcheck(who, pc, l, mem, rel, size)?;
                let old = read_bytes(&self.run.shared, abs as usize, size);
                let new = rmw(op, ty, false, old, b, c);
                self.run
                    .write(who, pc, l, mem, rel, size, new, true, Strength::Plain)?;
                Ok(old)
            }
            // Atomics on other spaces are refused when decoding; a generic address in local
            // memory performs the operation on the thread's own bytes.
            Place::Local(off) => {
                let local = &mut self.local[who.warp as usize * 32 + l];
                let old = read_bytes(local, off as usize, size);
                let new = rmw(op, ty, false, old, b, c);
                self.run.changed |= new != old;
                write_bytes(local, off as usize, size, new);
                Ok(old)
            }
            Place::Param(_) | Place::Const(_) => Ok(0),
        }
    }

    /// Bytes of thread `thread`'s local memory now (the kernel's and its calls' frames).
    fn local_len(&self, thread: usize) -> u64 {
        self.local.get(thread).map_or(0, |m| m.len() as u64)
    }
}
