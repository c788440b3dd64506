//! [`KernelCodec`]: the `sim` backend, and the kernels one launch per call on any launcher (a WebGPU
//! device, for tests of that path: `--backend webgpu` runs the batch API's ring, [`super::BatchCodec`])
//! — through the same buffers and record decoding as every backend, so their archives can be compared
//! byte for byte. On the simulator a sanitizer finding fails the batch, naming it.

use super::page_codec::PageCodec;
use crate::archive::Record;
use crate::kernel_io::Lz4Kernels;
use crate::kernel_io::{DecodeError, Page};
use crate::kernels::lz4::Lz4Level;
use crate::runtime::sim::{SimOptions, SimReport};
use crate::runtime::webgpu::WebGpuDevice;
use crate::runtime::{Launched, Launcher, Timings};
use crate::Backend;

/// The LZ4 kernels on a launcher, with what the last launches reported.
pub struct KernelCodec {
    kernels: Lz4Kernels,
    /// The last compress launch and the last decompress launch.
    last: (Option<Launched>, Option<Launched>),
}

impl KernelCodec {
    /// The kernels on `launcher`, compressing at the default level.
    pub fn new(launcher: Launcher) -> anyhow::Result<KernelCodec> {
        KernelCodec::at_level(launcher, Lz4Level::DEFAULT)
    }

    /// The kernels on `launcher`, compressing at `level`.
    pub fn at_level(launcher: Launcher, level: Lz4Level) -> anyhow::Result<KernelCodec> {
        Ok(KernelCodec {
            kernels: Lz4Kernels::new(launcher, level)?,
            last: (None, None),
        })
    }

    /// The kernels on the simulator with its default options (sanitizer on, counters off).
    pub fn sim() -> KernelCodec {
        KernelCodec::sim_with(SimOptions::default())
    }

    /// The kernels on the simulator with `options` (e.g. `stats: true` for per-page counters: one block
    /// is one page).
    pub fn sim_with(options: SimOptions) -> KernelCodec {
        KernelCodec::new(Launcher::Sim(options))
            .expect("loading a kernel on the simulator cannot fail")
    }

    /// The kernels on the first WebGPU adapter that can run them (hardware before software).
    pub fn webgpu() -> anyhow::Result<KernelCodec> {
        KernelCodec::webgpu_at(Lz4Level::DEFAULT)
    }

    /// [`KernelCodec::webgpu`] compressing at `level`.
    pub fn webgpu_at(level: Lz4Level) -> anyhow::Result<KernelCodec> {
        let device = WebGpuDevice::new(&crate::auto::webgpu_requirements()?)
            .map_err(|e| anyhow::anyhow!("no WebGPU adapter can run the LZ4 kernels: {e}"))?;
        KernelCodec::at_level(Launcher::WebGpu(device), level)
    }

    /// The kernels and their launcher.
    pub fn kernels(&self) -> &Lz4Kernels {
        &self.kernels
    }

    /// The simulator's report of the last compress launch (per-block counters are per page).
    pub fn last_compress_report(&self) -> Option<&SimReport> {
        self.last.0.as_ref().and_then(|l| l.sim.as_ref())
    }

    /// The simulator's report of the last decompress launch.
    pub fn last_decompress_report(&self) -> Option<&SimReport> {
        self.last.1.as_ref().and_then(|l| l.sim.as_ref())
    }

    /// [`PageCodec::compress`] with the launch's stage timings (zero for an empty batch).
    pub fn compress_timed(&mut self, pages: &[Page]) -> anyhow::Result<(Vec<Record>, Timings)> {
        let (records, launched) = self.kernels.compress(pages)?;
        let timings = launched.as_ref().map(|l| l.timings).unwrap_or_default();
        self.last.0 = launched;
        Ok((records, timings))
    }

    /// [`PageCodec::decompress`] with the launch's stage timings (zero when no page needed a kernel).
    pub fn decompress_timed(
        &mut self,
        records: &[Record],
        out: &mut [Page],
    ) -> anyhow::Result<(Result<(), DecodeError>, Timings)> {
        let (result, launched) = self.kernels.decompress(records, out)?;
        let timings = launched.as_ref().map(|l| l.timings).unwrap_or_default();
        self.last.1 = launched;
        Ok((result, timings))
    }
}

impl PageCodec for KernelCodec {
    fn backend(&self) -> Backend {
        self.kernels.launcher().backend().into()
    }

    fn describe(&self) -> String {
        self.kernels.launcher().describe()
    }

    fn compress(&mut self, pages: &[Page]) -> anyhow::Result<Vec<Record>> {
        Ok(self.compress_timed(pages)?.0)
    }

    fn decompress(
        &mut self,
        records: &[Record],
        out: &mut [Page],
    ) -> anyhow::Result<Result<(), DecodeError>> {
        Ok(self.decompress_timed(records, out)?.0)
    }
}
