//! [`BatchResult`] and the running totals of [`BatchStats`].

use super::policy::meets_pcie_rule;
use crate::runtime::Clock;
use crate::CompressedPage;

/// The outcome of one `compress_batch`: the pages and measured timings, each saying which clock measured
/// it. On CUDA the stage times come from CUDA events; on WebGPU the kernel time comes from GPU timestamp
/// queries where the adapter offers them (else the host clock around a synchronized dispatch) and the
/// transfer times from the host clock. The stage times cover the chunks the GPU compressed; pages redone
/// on the CPU after a GPU failure ([`BatchResult::cpu_fallback_pages`]) add to `total_time_ns` only —
/// CPU time is never reported as kernel time.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchResult {
    /// One compressed page per input page, in order.
    pub pages: Vec<CompressedPage>,
    /// Host-to-device transfer time (ns), summed over the GPU's chunks; clock: `transfer_clock`.
    pub h2d_time_ns: u64,
    /// Kernel execution time (ns), summed over the GPU's chunks; clock: `kernel_clock`. 0 when every
    /// page was redone on the CPU.
    pub kernel_time_ns: u64,
    /// Device-to-host transfer time (ns), summed; clock: `transfer_clock`.
    pub d2h_time_ns: u64,
    /// Wall-clock time of the whole call (ns, host clock), CPU fallbacks included; below the sum of the
    /// stages when they overlapped.
    pub total_time_ns: u64,
    /// The clock of `kernel_time_ns`.
    pub kernel_clock: Clock,
    /// The clock of `h2d_time_ns` and `d2h_time_ns`.
    pub transfer_clock: Clock,
    /// Pages of this call compressed on the CPU because the GPU failed their chunk (or the device was
    /// unusable after a sticky error).
    pub cpu_fallback_pages: usize,
}

impl BatchResult {
    /// Input bytes per second over the whole call (host clock), CPU fallbacks included: with
    /// [`BatchResult::cpu_fallback_pages`] > 0 this is not the GPU's throughput ([`BatchResult::summary`]
    /// says so).
    pub fn throughput_bytes_per_sec(&self, input_bytes: usize) -> f64 {
        input_bytes as f64 / (self.total_time_ns.max(1) as f64 / 1e9)
    }

    /// Pages the GPU compressed.
    pub fn gpu_pages(&self) -> usize {
        self.pages.len() - self.cpu_fallback_pages.min(self.pages.len())
    }

    /// Bytes per second of the kernels alone over the pages the GPU compressed (clock: `kernel_clock`);
    /// `None` when the GPU compressed nothing.
    pub fn kernel_bytes_per_sec(&self) -> Option<f64> {
        let pages = self.gpu_pages();
        (pages > 0 && self.kernel_time_ns > 0)
            .then(|| (pages * crate::PAGE_SIZE) as f64 / (self.kernel_time_ns as f64 / 1e9))
    }

    /// One line for a log or a report: every figure with its clock, and the pages redone on the CPU.
    pub fn summary(&self) -> String {
        let bytes = self.pages.len() * crate::PAGE_SIZE;
        let mut s = format!(
            "{} pages, ratio {:.3}x, {:.3} GB/s over the whole call (host clock{})",
            self.pages.len(),
            self.compression_ratio(),
            self.throughput_bytes_per_sec(bytes) / 1e9,
            match self.cpu_fallback_pages {
                0 => String::new(),
                n => format!(", {n} of them compressed on the CPU after a GPU failure"),
            }
        );
        s += &format!(
            "; H2D {:.3} ms, D2H {:.3} ms ({}), kernels {:.3} ms ({})",
            self.h2d_time_ns as f64 / 1e6,
            self.d2h_time_ns as f64 / 1e6,
            self.transfer_clock,
            self.kernel_time_ns as f64 / 1e6,
            self.kernel_clock
        );
        if let Some(rate) = self.kernel_bytes_per_sec() {
            s += &format!(
                " = {:.3} GB/s over the {} GPU pages",
                rate / 1e9,
                self.gpu_pages()
            );
        }
        s
    }

    /// Input bytes per stored byte.
    pub fn compression_ratio(&self) -> f64 {
        let stored: usize = self.pages.iter().map(CompressedPage::encoded_len).sum();
        (self.pages.len() * crate::PAGE_SIZE) as f64 / stored.max(1) as f64
    }

    /// [`meets_pcie_rule`] with this batch's measured transfer and kernel rates.
    /// Only the pages the GPU compressed count: CPU fallbacks moved no data over the link.
    pub fn pcie_rule_satisfied(&self) -> bool {
        let bytes = (self.gpu_pages() * crate::PAGE_SIZE) as f64;
        let transfer_s = (self.h2d_time_ns + self.d2h_time_ns) as f64 / 1e9;
        let kernel_s = self.kernel_time_ns as f64 / 1e9;
        if transfer_s <= 0.0 || kernel_s <= 0.0 {
            return false;
        }
        meets_pcie_rule(
            self.gpu_pages(),
            bytes / transfer_s / 1e9,
            bytes / kernel_s / 1e9,
        )
    }
}

/// What one [`super::GpuBatchCompressor::compress_into`] call measured: a [`BatchResult`] without
/// the records (they went into the caller's [`crate::archive::PackedRecords`]). Same fields, same
/// clocks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BatchTimes {
    /// Host-to-device transfer time (ns), summed over the GPU's chunks; clock: `transfer_clock`.
    pub h2d_time_ns: u64,
    /// Kernel execution time (ns), summed over the GPU's chunks; clock: `kernel_clock`.
    pub kernel_time_ns: u64,
    /// Device-to-host transfer time (ns), summed; clock: `transfer_clock`.
    pub d2h_time_ns: u64,
    /// Wall-clock time of the whole call (ns, host clock), CPU fallbacks included.
    pub total_time_ns: u64,
    /// The clock of `kernel_time_ns`.
    pub kernel_clock: Clock,
    /// The clock of `h2d_time_ns` and `d2h_time_ns`.
    pub transfer_clock: Clock,
    /// Pages of this call compressed on the CPU because the GPU failed their chunk.
    pub cpu_fallback_pages: usize,
}

impl BatchResult {
    /// The result of a call that measured `times` and produced `pages`.
    pub fn from_times(times: BatchTimes, pages: Vec<CompressedPage>) -> BatchResult {
        BatchResult {
            pages,
            h2d_time_ns: times.h2d_time_ns,
            kernel_time_ns: times.kernel_time_ns,
            d2h_time_ns: times.d2h_time_ns,
            total_time_ns: times.total_time_ns,
            kernel_clock: times.kernel_clock,
            transfer_clock: times.transfer_clock,
            cpu_fallback_pages: times.cpu_fallback_pages,
        }
    }
}

/// Running totals of a compressor (times on the host clock).
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
    /// Batches (chunks) redone on the CPU after a GPU failure (or sent there because the device was
    /// unusable).
    pub cpu_fallbacks: u64,
    /// Pages redone on the CPU, over every call.
    pub cpu_fallback_pages: u64,
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
