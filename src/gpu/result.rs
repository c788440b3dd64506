//! [`BatchResult`] and the running totals of [`BatchStats`].

use super::policy::meets_pcie_rule;
use crate::CompressedPage;

/// The outcome of one `compress_batch`: the pages and measured timings. On CUDA the stage times come
/// from CUDA events; on WebGPU from host clocks around synchronized submissions. Pages redone on the
/// CPU after a GPU failure add to `total_time_ns` only.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchResult {
    /// One compressed page per input page, in order.
    pub pages: Vec<CompressedPage>,
    /// Host-to-device transfer time (ns), summed over the batch's chunks.
    pub h2d_time_ns: u64,
    /// Kernel execution time (ns), summed.
    pub kernel_time_ns: u64,
    /// Device-to-host transfer time (ns), summed.
    pub d2h_time_ns: u64,
    /// Wall-clock time of the whole call (ns); below the sum of the stages when they overlapped.
    pub total_time_ns: u64,
}

impl BatchResult {
    /// Input bytes per second over the whole call.
    pub fn throughput_bytes_per_sec(&self, input_bytes: usize) -> f64 {
        input_bytes as f64 / (self.total_time_ns.max(1) as f64 / 1e9)
    }

    /// Input bytes per stored byte.
    pub fn compression_ratio(&self) -> f64 {
        let stored: usize = self.pages.iter().map(CompressedPage::encoded_len).sum();
        (self.pages.len() * crate::PAGE_SIZE) as f64 / stored.max(1) as f64
    }

    /// [`meets_pcie_rule`] with this batch's measured transfer and kernel rates.
    pub fn pcie_rule_satisfied(&self) -> bool {
        let bytes = (self.pages.len() * crate::PAGE_SIZE) as f64;
        let transfer_s = (self.h2d_time_ns + self.d2h_time_ns) as f64 / 1e9;
        let kernel_s = self.kernel_time_ns as f64 / 1e9;
        if transfer_s <= 0.0 || kernel_s <= 0.0 {
            return false;
        }
        meets_pcie_rule(
            self.pages.len(),
            bytes / transfer_s / 1e9,
            bytes / kernel_s / 1e9,
        )
    }
}

/// Running totals of a compressor.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BatchStats {
    /// Pages compressed.
    pub pages_compressed: u64,
    /// Page bytes in.
    pub total_bytes_in: u64,
    /// Stored bytes out.
    pub total_bytes_out: u64,
    /// Wall time of all compress calls (ns).
    pub total_time_ns: u64,
    /// Batches (chunks) redone on the CPU after a GPU failure.
    pub cpu_fallbacks: u64,
    /// The last GPU failure, for logs.
    pub last_failure: Option<String>,
}

impl BatchStats {
    /// Bytes in per byte out.
    pub fn compression_ratio(&self) -> f64 {
        self.total_bytes_in as f64 / self.total_bytes_out.max(1) as f64
    }

    /// Bytes in per second, in GB/s.
    pub fn throughput_gbps(&self) -> f64 {
        self.total_bytes_in as f64 / self.total_time_ns.max(1) as f64
    }
}
