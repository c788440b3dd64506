//! The finding of an access that faults (`exec_mem.rs`'s `place` says why): a misaligned address
//! (716) or an illegal one (700), with the lanes, the line and the array.

use super::block::{PtxBlock, PtxWarp};
use super::exec_mem::Fault;
use crate::block::Stop;
use crate::finding::FindingKind;

impl PtxBlock<'_> {
    /// [`Self::memory_fault`] for lane `l` alone.
    pub(super) fn lane_fault(
        &mut self,
        warp: &PtxWarp,
        pc: usize,
        l: usize,
        size: u64,
        fault: Fault,
    ) -> Result<(), Stop> {
        let (m, i) = match fault {
            Fault::Misaligned(..) => (1 << l, 0),
            Fault::Illegal(..) => (0, 1 << l),
        };
        self.memory_fault(warp, pc, l, size, fault, m, i)
    }

    /// Reports a faulting access (`misaligned`, `illegal`: the lanes of each kind); the block
    /// stops.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn memory_fault(
        &mut self,
        warp: &PtxWarp,
        pc: usize,
        l: usize,
        size: u64,
        fault: Fault,
        misaligned: u32,
        illegal: u32,
    ) -> Result<(), Stop> {
        let (kind, lanes_bad, detail, address) = match fault {
            Fault::Misaligned(at, address) => (
                FindingKind::Misaligned,
                misaligned,
                format!(
                    "misaligned address (CUDA_ERROR_MISALIGNED_ADDRESS, 716): lane {l}'s \
                     {size}-byte access at {at} does not start at a multiple of {size}"
                ),
                address,
            ),
            Fault::Illegal(at, address) => (
                FindingKind::OutOfBounds,
                illegal,
                format!(
                    "illegal address (CUDA_ERROR_ILLEGAL_ADDRESS, 700): lane {l}'s {size}-byte \
                     access at {at}"
                ),
                address,
            ),
        };
        let f = self
            .run
            .finding(kind, pc as u32, warp.index, lanes_bad, address, detail);
        self.run.report(kind, pc as u32, 0, f)
    }
}
