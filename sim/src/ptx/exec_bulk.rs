//! `cp.async.bulk` from global to shared memory with an mbarrier's complete-tx (`decode_async.rs`):
//! the copy is performed when it is issued — a schedule the ISA allows, since a bulk copy may
//! complete at any time before the mbarrier phase it completes — as the issuing thread's reads
//! and writes (so racecheck orders them, through the thread's arrival on the mbarrier, before what
//! the waiting threads read), and then the mbarrier's tx-count falls by the copy's bytes. A size
//! that is not a multiple of 16, an address that is not 16-aligned, or memory outside the
//! buffers or the block's shared memory is the access's fault (700 or 716) with the line.

use super::block::{PtxBlock, PtxWarp};
use super::exec_mem::Fault;
use super::inst::{Addr, MemSpace, R};
use crate::block::{Stop, Who};
use crate::race::Strength;

impl PtxBlock<'_> {
    /// Lane `l`'s bulk copy of `size` bytes from `src` to `dst`, completing on `mbar`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn bulk_copy(
        &mut self,
        warp: &PtxWarp,
        pc: usize,
        l: usize,
        dst: Addr,
        src: Addr,
        size: R,
        mbar: Addr,
    ) -> Result<(), Stop> {
        let thread = warp.index as usize * 32 + l;
        let who = Who {
            warp: warp.index,
            step: warp.step,
        };
        let n = warp.regs[size as usize][l] as u32;
        let (d, s) = (Self::lane_addr(warp, dst, l), Self::lane_addr(warp, src, l));
        if n % 16 != 0 {
            let f = Fault::Misaligned(
                format!("a bulk copy of {n} bytes (a multiple of 16 is required)"),
                None,
            );
            return self.lane_fault(warp, pc, l, 16, f);
        }
        for chunk in 0..u64::from(n / 16) {
            let at = 16 * chunk;
            let from = self.place(MemSpace::Global, s.wrapping_add(at), 16, thread);
            let to = self.place(MemSpace::Shared, d.wrapping_add(at), 16, thread);
            let (from, to) = match (from, to) {
                (Ok(f), Ok(t)) => (f, t),
                (Err(f), _) | (_, Err(f)) => return self.lane_fault(warp, pc, l, 16, f),
            };
            for k in 0..4 {
                let v = self.read(who, pc, warp.index, l, from, k, 4, Strength::Plain)?;
                self.write(who, pc, warp.index, l, to, k, 4, v, Strength::Plain)?;
            }
        }
        self.tx(warp, pc, l, (mbar, MemSpace::Shared), -i64::from(n))
    }
}
