//! The `sim` backend: the LZ4 warp kernels (one warp per block, as on WebGPU) on the CPU simulator,
//! through the same buffers and record decoding as the WebGPU codec, so its archives can be compared
//! byte for byte with every other backend's. A sanitizer finding in a batch is an error naming it.

use std::sync::OnceLock;

use super::{compress_through, decompress_through, Backend, DecodeError, Page, PageCodec};
use crate::archive::Record;
use crate::kernels::lz4::{lz4_compress_kernel, lz4_decompress_kernel};
use crate::runtime::sim::{self, SimOptions, SimReport};
use crate::runtime::BufferArg;

/// The two kernels, built and verified once per process.
fn kernels() -> &'static (warpforge_ir::Kernel, warpforge_ir::Kernel) {
    static KERNELS: OnceLock<(warpforge_ir::Kernel, warpforge_ir::Kernel)> = OnceLock::new();
    KERNELS.get_or_init(|| (lz4_compress_kernel(1), lz4_decompress_kernel(1)))
}

/// The LZ4 kernels on the simulator.
pub struct SimCodec {
    options: SimOptions,
    /// The report of the last compress launch and of the last decompress launch.
    reports: (Option<SimReport>, Option<SimReport>),
}

impl SimCodec {
    /// A codec with the simulator's default options (sanitizer on, counters off).
    pub fn new() -> Self {
        Self::with_options(SimOptions::default())
    }

    /// A codec whose launches run with `options` (e.g. `stats: true` for per-page counters).
    pub fn with_options(options: SimOptions) -> Self {
        SimCodec {
            options,
            reports: (None, None),
        }
    }

    /// The simulator's report of the last compress launch (per-block counters are per page).
    pub fn last_compress_report(&self) -> Option<&SimReport> {
        self.reports.0.as_ref()
    }

    /// The simulator's report of the last decompress launch.
    pub fn last_decompress_report(&self) -> Option<&SimReport> {
        self.reports.1.as_ref()
    }

    fn launch(
        &self,
        kernel: &warpforge_ir::Kernel,
        buffers: &mut [BufferArg<'_>],
        n: u32,
    ) -> anyhow::Result<SimReport> {
        let verified = warpforge_ir::verify(kernel)?;
        let report = sim::run(&verified, n, buffers, &[u64::from(n)], &self.options)?;
        if let Some(f) = report.errors().next() {
            anyhow::bail!(
                "the simulator stopped kernel `{}` ({} of {n} blocks stopped): {f}",
                kernel.name,
                report.stopped_blocks
            );
        }
        Ok(report)
    }
}

impl Default for SimCodec {
    fn default() -> Self {
        Self::new()
    }
}

impl PageCodec for SimCodec {
    fn backend(&self) -> Backend {
        Backend::Sim
    }

    fn describe(&self) -> String {
        let sanitizer = if self.options.sanitize {
            "sanitizer on"
        } else {
            "sanitizer off"
        };
        format!("sim (CPU simulator, {sanitizer})")
    }

    fn compress(&mut self, pages: &[Page]) -> anyhow::Result<Vec<Record>> {
        let (records, report) = compress_through(pages, |buffers, n| {
            self.launch(&kernels().0, buffers, n).map(Some)
        })?;
        self.reports.0 = report;
        Ok(records)
    }

    fn decompress(
        &mut self,
        records: &[Record],
        out: &mut [Page],
    ) -> anyhow::Result<Result<(), DecodeError>> {
        let (result, report) = decompress_through(records, out, |buffers, n| {
            self.launch(&kernels().1, buffers, n).map(Some)
        })?;
        self.reports.1 = report;
        Ok(result)
    }
}
