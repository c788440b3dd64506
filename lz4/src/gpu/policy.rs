//! When GPU offload pays: one definition, used by [`meets_pcie_rule`], [`select_backend`] and
//! [`super::BatchResult::pcie_rule_satisfied`].
//!
//! **The rule.** Offload pays when (1) the GPU compresses at least 5× faster than PCIe moves the data
//! (`gpu_gbps ≥ 5 · pcie_gbps`), so the kernel hides under the transfers and the transfer is the whole
//! cost, and (2) the batch is large enough that the transfer takes at least 20× the fixed per-batch cost
//! of a launch and its synchronization (about 20 µs), so that cost stays under 5%. (Pages at 4 KiB each;
//! GB/s are 10⁹ bytes per second.)

/// Per-batch fixed cost assumed by the rule: launch plus synchronization, in seconds.
pub const BATCH_OVERHEAD_S: f64 = 20e-6;
/// PCIe bandwidth assumed by [`select_backend`] when nothing is measured: PCIe 4.0 x16, GB/s.
pub const NOMINAL_PCIE_GBPS: f64 = 25.0;
/// GPU compression throughput assumed by [`select_backend`]: the kernels' design target, GB/s.
pub const NOMINAL_GPU_GBPS: f64 = 50.0 * 2.5;
/// Below this many pages the CPU's scalar path wins over its vectorized batch path.
pub const SIMD_MIN_PAGES: usize = 8;

/// Whether offloading `pages` pages pays, for a link of `pcie_gbps` and a kernel of `gpu_gbps`.
pub fn meets_pcie_rule(pages: usize, pcie_gbps: f64, gpu_gbps: f64) -> bool {
    if !(pcie_gbps > 0.0 && gpu_gbps > 0.0) {
        return false;
    }
    let transfer_s = pages as f64 * crate::PAGE_SIZE as f64 / (pcie_gbps * 1e9);
    gpu_gbps >= 5.0 * pcie_gbps && transfer_s >= 20.0 * BATCH_OVERHEAD_S
}

/// Where a batch should run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendSelection {
    /// Offload to the GPU.
    Gpu,
    /// The CPU over all cores (lz4_flex, vectorized by the compiler).
    Simd,
    /// The CPU, one page at a time.
    Scalar,
}

/// The backend for a batch of `batch_size` pages: the GPU when there is one and [`meets_pcie_rule`]
/// holds at the nominal PCIe and kernel rates, else the CPU.
pub fn select_backend(batch_size: usize, has_gpu: bool) -> BackendSelection {
    if has_gpu && meets_pcie_rule(batch_size, NOMINAL_PCIE_GBPS, NOMINAL_GPU_GBPS) {
        BackendSelection::Gpu
    } else if batch_size >= SIMD_MIN_PAGES {
        BackendSelection::Simd
    } else {
        BackendSelection::Scalar
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_needs_a_fast_kernel_and_a_large_batch() {
        assert!(
            meets_pcie_rule(10_000, 64.0, 500.0),
            "the API docs' example"
        );
        assert!(
            !meets_pcie_rule(10_000, 64.0, 300.0),
            "kernel under 5x the link"
        );
        assert!(
            !meets_pcie_rule(100, 25.0, 500.0),
            "100 pages move in 16 us, below 20x the overhead"
        );
        assert!(!meets_pcie_rule(10_000, 0.0, 500.0) && !meets_pcie_rule(10_000, f64::NAN, 500.0));
        // The smallest batch that pays at the nominal rates: 400 us of PCIe 4.0 x16.
        let min = (20.0 * BATCH_OVERHEAD_S * NOMINAL_PCIE_GBPS * 1e9 / crate::PAGE_SIZE as f64)
            .ceil() as usize;
        assert!(!meets_pcie_rule(
            min - 1,
            NOMINAL_PCIE_GBPS,
            NOMINAL_GPU_GBPS
        ));
        assert!(meets_pcie_rule(min, NOMINAL_PCIE_GBPS, NOMINAL_GPU_GBPS));
    }

    #[test]
    fn selection_follows_the_rule() {
        assert_eq!(select_backend(5000, true), BackendSelection::Gpu);
        assert_eq!(select_backend(5000, false), BackendSelection::Simd);
        assert_eq!(select_backend(100, true), BackendSelection::Simd);
        assert_eq!(
            select_backend(SIMD_MIN_PAGES - 1, true),
            BackendSelection::Scalar
        );
    }
}
