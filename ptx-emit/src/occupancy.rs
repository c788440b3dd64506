//! Theoretical occupancy by the CUDA occupancy rules: how many blocks of a kernel fit on one SM given
//! its registers per thread (from `ptxas -v`), its shared memory per block and its block size, and which
//! resource sets the limit. The per-SM limits are those of NVIDIA's "Technical Specifications per
//! Compute Capability" table (CUDA C++ Programming Guide) and its occupancy calculator; shared memory is
//! counted with the SM's largest shared-memory carveout, as the driver chooses for a kernel that needs
//! it.

use std::fmt;

use crate::ptxas::ResourceReport;
use crate::Sm;

/// One SM's resources for blocks, per compute capability.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmLimits {
    /// Resident blocks per SM.
    pub max_blocks: u32,
    /// Resident warps per SM.
    pub max_warps: u32,
    /// 32-bit registers per SM.
    pub registers: u32,
    /// Registers are allocated per warp in units of this many.
    pub register_unit: u32,
    /// Shared memory per SM at the largest carveout, bytes.
    pub shared_bytes: u32,
    /// Shared memory is allocated per block in units of this many bytes.
    pub shared_unit: u32,
    /// Shared memory the system reserves per resident block, bytes.
    pub shared_reserved: u32,
}

impl SmLimits {
    /// The limits of `sm` (7.0: V100; 8.0: A100; 9.0: H100/H200).
    pub const fn of(sm: Sm) -> SmLimits {
        match sm {
            Sm::Sm70 => SmLimits {
                max_blocks: 32,
                max_warps: 64,
                registers: 65_536,
                register_unit: 256,
                shared_bytes: 96 * 1024,
                shared_unit: 256,
                shared_reserved: 0,
            },
            Sm::Sm80 => SmLimits {
                max_blocks: 32,
                max_warps: 64,
                registers: 65_536,
                register_unit: 256,
                shared_bytes: 164 * 1024,
                shared_unit: 128,
                shared_reserved: 1024,
            },
            Sm::Sm90 => SmLimits {
                max_blocks: 32,
                max_warps: 64,
                registers: 65_536,
                register_unit: 256,
                shared_bytes: 228 * 1024,
                shared_unit: 128,
                shared_reserved: 1024,
            },
        }
    }
}

/// The resource that sets how many blocks fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Resident blocks per SM.
    Blocks,
    /// Resident warps per SM.
    Warps,
    /// Registers.
    Registers,
    /// Shared memory.
    SharedMemory,
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Limit::Blocks => "blocks per SM",
            Limit::Warps => "warps per SM",
            Limit::Registers => "registers",
            Limit::SharedMemory => "shared memory",
        })
    }
}

/// How many blocks and warps of a kernel one SM holds at once (a model from the resources, not a
/// measurement).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occupancy {
    /// The target.
    pub sm: Sm,
    /// Threads per block.
    pub block_threads: u32,
    /// Registers per thread.
    pub registers: u32,
    /// Shared memory per block as allocated (rounded up, plus the reserved part), bytes.
    pub shared_per_block: u32,
    /// Resident blocks per SM.
    pub blocks: u32,
    /// Resident warps per SM (`blocks` × warps per block).
    pub warps: u32,
    /// What sets `blocks` (the first of blocks, warps, registers, shared memory that does).
    pub limit: Limit,
}

impl Occupancy {
    /// Occupancy of blocks of `block_threads` threads using `registers` per thread and
    /// `shared_bytes` of shared memory per block on `sm`. `None` when a block cannot fit at all.
    pub fn compute(sm: Sm, block_threads: u32, registers: u32, shared_bytes: u32) -> Option<Self> {
        let l = SmLimits::of(sm);
        let warps_per_block = block_threads.div_ceil(32).max(1);
        let per_warp = (registers.max(1) * 32).next_multiple_of(l.register_unit);
        let by_registers = (l.registers / per_warp) / warps_per_block;
        let shared_per_block = shared_bytes.next_multiple_of(l.shared_unit) + l.shared_reserved;
        let by_shared = match shared_per_block {
            0 => u32::MAX,
            n => l.shared_bytes / n,
        };
        let candidates = [
            (l.max_blocks, Limit::Blocks),
            (l.max_warps / warps_per_block, Limit::Warps),
            (by_registers, Limit::Registers),
            (by_shared, Limit::SharedMemory),
        ];
        let (blocks, limit) = candidates
            .into_iter()
            .min_by_key(|&(n, _)| n)
            .expect("four candidates");
        (blocks > 0).then_some(Occupancy {
            sm,
            block_threads,
            registers,
            shared_per_block,
            blocks,
            warps: blocks * warps_per_block,
            limit,
        })
    }

    /// Occupancy from `ptxas -v`'s report of an entry launched with `block_threads` threads and
    /// `dynamic_shared` bytes of dynamic shared memory per block.
    pub fn from_report(
        sm: Sm,
        report: &ResourceReport,
        block_threads: u32,
        dynamic_shared: u32,
    ) -> Option<Self> {
        Occupancy::compute(
            sm,
            block_threads,
            report.registers,
            report.shared_bytes + dynamic_shared,
        )
    }

    /// Resident warps as a share of the SM's maximum.
    pub fn fraction(&self) -> f64 {
        f64::from(self.warps) / f64::from(SmLimits::of(self.sm).max_warps)
    }
}

impl fmt::Display for Occupancy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let l = SmLimits::of(self.sm);
        write!(
            f,
            "occupancy on {} (CUDA occupancy rules, a model): {} blocks x {} threads = {} warps per SM \
             ({:.0}% of {}), limited by {}; {} registers per thread, {} bytes of shared memory per block \
             as allocated (of {} per SM)",
            self.sm.name(),
            self.blocks,
            self.block_threads,
            self.warps,
            100.0 * self.fraction(),
            l.max_warps,
            self.limit,
            self.registers,
            self.shared_per_block,
            l.shared_bytes
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_memory_limits_the_staged_decompress_kernel_on_hopper() {
        // 4 warps, 39 registers, 32,960 bytes: 33,024 allocated + 1 KiB reserved = 34,048 per block;
        // 233,472 / 34,048 = 6 blocks (registers would allow 65,536 / 1,280 / 4 = 12).
        let o = Occupancy::compute(Sm::Sm90, 128, 39, 32_960).expect("fits");
        assert_eq!((o.blocks, o.warps, o.limit), (6, 24, Limit::SharedMemory));
        assert_eq!(o.shared_per_block, 34_048);
    }

    #[test]
    fn registers_and_warps_limit_when_shared_memory_does_not() {
        // 256 threads at 32 registers: 1,024 registers per warp, 64 warps, 8 blocks by every limit
        // but blocks; the warp limit is reached first in the order of the table.
        let o = Occupancy::compute(Sm::Sm80, 256, 32, 0).expect("fits");
        assert_eq!((o.blocks, o.warps, o.limit), (8, 64, Limit::Warps));
        // 128 registers: 4,096 per warp, 16 warps, 2 blocks of 8 warps.
        let o = Occupancy::compute(Sm::Sm80, 256, 128, 0).expect("fits");
        assert_eq!((o.blocks, o.warps, o.limit), (2, 16, Limit::Registers));
        // Volta rounds shared memory to 256 bytes and reserves none.
        let o = Occupancy::compute(Sm::Sm70, 32, 16, 20_481).expect("fits");
        assert_eq!((o.shared_per_block, o.blocks), (20_736, 4));
    }

    #[test]
    fn a_block_that_cannot_fit_has_no_occupancy() {
        assert_eq!(Occupancy::compute(Sm::Sm90, 128, 32, 300 * 1024), None);
        assert_eq!(Occupancy::compute(Sm::Sm70, 1024, 255, 0), None);
    }
}
