//! [`GpuBatchCompressor`]: batches through a GPU engine, failed batches redone on the CPU.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use super::driver_cuda::CudaDriver;
use super::driver_replay::{ReplayDriver, ReplayTape};
use super::driver_sim::LaunchDriver;
use super::driver_wgpu::WgpuDriver;
use super::engine::{all_failed, chunk_ranges, vec_pages, Engine, LaunchEngine};
use super::host_pages::{HostPages, HostPool};
use super::page_io::{PageInput, PageOutput};
use super::records_out::RecordsOut;
use super::registered::{RegisteredPages, Registration};
use super::ring_state::RingEngine;
use super::{
    BatchResult, BatchStats, BatchTimes, GpuBackend, GpuBatchConfig, GpuDeviceInfo, GpuError,
};
use crate::archive::{PackedRecords, Records};
use crate::kernel_io::{pages_of, reference, Lz4Kernels, Page};
use crate::runtime::webgpu::WebGpuError;
use crate::runtime::Launcher;
use crate::{CompressedPage, PAGE_SIZE};

/// Where a compress call's pages are.
#[derive(Clone, Copy)]
enum Input<'a> {
    /// The caller's pages.
    Pages(&'a [Page]),
    /// Pages the engine gave out (uploaded from directly when they are page-locked).
    Host(&'a HostPages),
    /// The first pages of the engine's staging buffer.
    Staged(usize),
    /// The caller's pages, registered (uploaded from where they are by the engine that registered
    /// them).
    Registered(&'a [Page], &'a Registration),
}

/// Where `pages` are, as a compress call's input.
fn input_of<P: PageInput + ?Sized>(pages: &P) -> Input<'_> {
    match (pages.host_pages(), pages.registration()) {
        (Some(host), _) => Input::Host(host),
        (None, Some(registration)) => Input::Registered(pages.pages(), registration),
        (None, None) => Input::Pages(pages.pages()),
    }
}

/// Compresses and decompresses batches of pages on a GPU.
pub struct GpuBatchCompressor {
    config: GpuBatchConfig,
    engine: Box<dyn Engine>,
    stats: BatchStats,
    /// Batches (by running count over this compressor's life) whose GPU outcome is replaced by an
    /// injected failure.
    faults: BTreeMap<u64, GpuError>,
    batches_seen: u64,
    /// Why the device is unusable (a sticky error): from then on every batch goes to the CPU.
    poisoned: Option<String>,
    /// Ordinary memory for `decompress_batch`'s output when the engine cannot give any.
    spare: HostPool<Vec<u8>>,
}

impl GpuBatchCompressor {
    /// A compressor on CUDA device `config.device_index`.
    pub fn new(config: GpuBatchConfig) -> Result<GpuBatchCompressor, GpuError> {
        GpuBatchCompressor::with_backend(config, GpuBackend::Cuda)
    }

    /// A compressor on the backend `--backend auto` picks ([`crate::auto`]): CUDA on a supported GPU,
    /// else a hardware WebGPU adapter that runs the kernels. [`GpuError::NotAvailable`] names why each
    /// was passed over when neither is there (the caller then uses the CPU).
    pub fn auto(config: GpuBatchConfig) -> Result<GpuBatchCompressor, GpuError> {
        config.validate()?;
        let (picked, passed_over) = crate::auto::first_gpu(|backend| {
            GpuBatchCompressor::with_backend(config.clone(), backend).map_err(|e| e.to_string())
        });
        picked
            .map(|(_, compressor)| compressor)
            .ok_or_else(|| GpuError::NotAvailable(crate::auto::reasons(&passed_over, "; ")))
    }

    /// A compressor on `backend`: `Cuda` (device `config.device_index`, the async-DMA ring), `WebGpu`
    /// (the best adapter that runs the kernels; `device_index` is ignored) or `Sim` (the CPU simulator,
    /// for checks without a GPU). `Cpu` and `Reference` are not GPU backends: [`GpuError::Config`].
    pub fn with_backend(
        config: GpuBatchConfig,
        backend: GpuBackend,
    ) -> Result<GpuBatchCompressor, GpuError> {
        config.validate()?;
        let engine: Box<dyn Engine> = match backend {
            GpuBackend::Cuda => Box::new(RingEngine::new(
                CudaDriver::new(config.device_index)?,
                &config,
            )?),
            GpuBackend::WebGpu => {
                let requirements = crate::auto::webgpu_requirements()?;
                let device = crate::runtime::webgpu::WebGpuDevice::new(&requirements)
                    .map_err(GpuError::WebGpu)?;
                return GpuBatchCompressor::webgpu_on(config, device);
            }
            GpuBackend::Sim => {
                let sim = Launcher::Sim(Default::default());
                let level = config.algorithm.lz4_level();
                Box::new(LaunchEngine::new(Lz4Kernels::new(sim, level)?))
            }
            GpuBackend::Cpu | GpuBackend::Reference => {
                return Err(GpuError::Config(format!(
                    "{backend} is not a GPU backend (use cuda, webgpu or sim)"
                )))
            }
            GpuBackend::PtxSim => {
                // The CUDA engine itself, its driver played by the PTX simulator (sm_80 PTX).
                let ptx = Launcher::PtxSim(Default::default(), crate::ptx::Sm::Sm80);
                return GpuBatchCompressor::cuda_pipeline_on(config, ptx);
            }
        };
        Ok(GpuBatchCompressor::with_engine(config, engine))
    }

    /// A compressor on an opened WebGPU `device` (for a caller that chose the adapter, or sized the
    /// batch by it): the CUDA engine's ring on buffers that stay on the device, allocated here, so a
    /// batch whose buffers the adapter cannot bind is refused now ([`GpuError::Config`], saying so).
    pub fn webgpu_on(
        config: GpuBatchConfig,
        device: crate::runtime::webgpu::WebGpuDevice,
    ) -> Result<GpuBatchCompressor, GpuError> {
        config.validate()?;
        let driver = WgpuDriver::new(Launcher::WebGpu(device))?;
        let engine = RingEngine::new(driver, &config).map_err(|e| match e {
            GpuError::WebGpu(WebGpuError::Arguments(why)) => GpuError::Config(format!(
                "batch_size {} does not fit this WebGPU adapter: {why}; use a smaller batch_size",
                config.batch_size
            )),
            other => other,
        })?;
        Ok(GpuBatchCompressor::with_engine(config, Box::new(engine)))
    }

    /// A compressor running the CUDA engine's host pipeline — the async-DMA ring, meta-first
    /// compaction, decompression, the same code that talks to the CUDA driver — with `launcher` (a
    /// CPU simulator) standing in for the driver: the CUDA host logic exercised without a GPU. Times
    /// are on the host clock.
    pub fn cuda_pipeline_on(
        config: GpuBatchConfig,
        launcher: Launcher,
    ) -> Result<GpuBatchCompressor, GpuError> {
        config.validate()?;
        let engine = RingEngine::new(LaunchDriver::new(launcher), &config)?;
        Ok(GpuBatchCompressor::with_engine(config, Box::new(engine)))
    }

    /// A compressor running the CUDA engine's host pipeline on a driver that records every kernel's
    /// output into `tape` (computed with the CPU reference) and, once the tape is switched to replay,
    /// copies the recorded outputs back instead of computing: the host side alone, without a GPU, for
    /// `warpforge host-bench`. Times are on the host clock; [`ReplayTape::device_ns`] is the part of
    /// them that stood in for the device.
    pub fn replaying(
        config: GpuBatchConfig,
        tape: Arc<ReplayTape>,
    ) -> Result<GpuBatchCompressor, GpuError> {
        config.validate()?;
        let engine = RingEngine::new(ReplayDriver::new(tape), &config)?;
        Ok(GpuBatchCompressor::with_engine(config, Box::new(engine)))
    }

    /// A compressor on any engine (the fault-injection tests use a fake one).
    pub(crate) fn with_engine(
        config: GpuBatchConfig,
        engine: Box<dyn Engine>,
    ) -> GpuBatchCompressor {
        GpuBatchCompressor {
            config,
            engine,
            stats: BatchStats::default(),
            faults: BTreeMap::new(),
            batches_seen: 0,
            poisoned: None,
            spare: HostPool::default(),
        }
    }

    /// The configuration it was built with.
    pub fn config(&self) -> &GpuBatchConfig {
        &self.config
    }

    /// The device in use.
    pub fn device(&self) -> GpuDeviceInfo {
        self.engine.info()
    }

    /// The backend and device in a line: `cuda on NVIDIA H100 …`, `webgpu on llvmpipe (…) (vulkan),
    /// warps emulated`, `webgpu on … , warps on 32-lane subgroups`.
    pub fn describe(&self) -> String {
        self.engine.describe()
    }

    /// Running totals over every `compress_batch` call.
    pub fn stats(&self) -> &BatchStats {
        &self.stats
    }

    /// Why the device is no longer used (a sticky error), if it is not.
    pub fn unusable(&self) -> Option<&str> {
        self.poisoned.as_deref()
    }

    /// Makes the GPU outcome of the given batches count as failed, to exercise the CPU fallback. Batches
    /// are counted in `batch_size` chunks from the next one to run: `inject_faults([0])` fails the first
    /// chunk of the next `compress_batch`, whatever ran before. For tests.
    #[doc(hidden)]
    pub fn inject_faults(&mut self, batches: impl IntoIterator<Item = u64>) {
        for batch in batches {
            let error = GpuError::Injected(format!("batch {}", self.batches_seen + batch));
            self.inject_error(batch, error);
        }
    }

    /// Like [`GpuBatchCompressor::inject_faults`] with a chosen error, e.g. a sticky CUDA error
    /// (`GpuError::Cuda { code: 700, .. }`) to exercise the switch to the CPU. For tests.
    #[doc(hidden)]
    pub fn inject_error(&mut self, batch: u64, error: GpuError) {
        self.faults.insert(self.batches_seen + batch, error);
    }

    /// Records a failure; a sticky one makes the device unusable from now on (said once, on stderr).
    fn note_failure(&mut self, error: &GpuError) {
        self.stats.cpu_fallbacks += 1;
        self.stats.last_failure = Some(error.to_string());
        if error.is_sticky() && self.poisoned.is_none() {
            eprintln!(
                "warpforge: the GPU is unusable after {error} (a sticky error: every later call to the \
                 device fails the same way); every further batch of this compressor runs on the CPU"
            );
            self.poisoned = Some(error.to_string());
        }
    }

    /// Compresses `pages` in chunks of `batch_size`. A chunk the GPU fails is redone on the CPU (logged
    /// to stderr and counted in [`BatchStats::cpu_fallbacks`] and [`BatchResult::cpu_fallback_pages`]);
    /// the records are the same either way. After a sticky error every chunk goes to the CPU. The
    /// records are owned, one allocation per LZ4 or raw page: [`GpuBatchCompressor::compress_into`]
    /// packs them into two reusable buffers instead.
    ///
    /// `pages` may be any slice or vector of pages, or [`HostPages`] from
    /// [`GpuBatchCompressor::host_pages`]: those are page-locked on CUDA and uploaded without the
    /// staging copy that pages in ordinary memory need there (WebGPU uploads any memory in place).
    pub fn compress_batch<P: PageInput + ?Sized>(
        &mut self,
        pages: &P,
    ) -> Result<BatchResult, GpuError> {
        let start = Instant::now();
        let mut records = Vec::new();
        // The records are built straight from the device's compacted blocks (one copy of them).
        let times = self.compress_from(input_of(pages), &mut RecordsOut::Owned(&mut records))?;
        let mut result = BatchResult::from_times(times, records);
        result.total_time_ns = start.elapsed().as_nanos().max(1) as u64;
        Ok(result)
    }

    /// Frees the host pages given back to this compressor and not taken again (pages still held
    /// come back to the pool when dropped); the next [`GpuBatchCompressor::host_pages`] or
    /// [`GpuBatchCompressor::decompress_batch`] allocates.
    pub fn release_host_pages(&mut self) {
        self.engine.release_host_pages();
        self.spare.clear();
    }

    /// [`GpuBatchCompressor::compress_batch`] into `out` (cleared first, its buffers reused): one
    /// record per page, packed, with no allocation per page. The timings are those of
    /// [`BatchResult`]. `pages` as for [`GpuBatchCompressor::compress_batch`].
    pub fn compress_into<P: PageInput + ?Sized>(
        &mut self,
        pages: &P,
        out: &mut PackedRecords,
    ) -> Result<BatchTimes, GpuError> {
        self.compress_from(input_of(pages), &mut RecordsOut::Packed(out))
    }

    /// `pages` pages of host memory for [`GpuBatchCompressor::compress_batch`]'s input (or any use):
    /// page-locked on CUDA, so the upload reads them where they are; ordinary memory on the other
    /// backends. The contents are what an earlier holder left there, or zeroes. Dropping them gives
    /// the memory back to this compressor, and the next call reuses it.
    ///
    /// The pool keeps up to four buffers that were given back (on CUDA: page-locked memory, which
    /// the whole system has less of); [`GpuBatchCompressor::release_host_pages`] frees them.
    pub fn host_pages(&mut self, pages: usize) -> Result<HostPages, GpuError> {
        match self.engine.host_pages(pages) {
            Ok(pages) => Ok(pages),
            // A device that cannot allocate any more still gets its pages from ordinary memory.
            Err(_) => vec_pages(&self.spare, pages),
        }
    }

    /// Registers the caller's `pages` with this compressor's device until the returned
    /// [`RegisteredPages`] is dropped: [`GpuBatchCompressor::compress_batch`] and
    /// [`GpuBatchCompressor::compress_into`] then upload straight from them and
    /// [`GpuBatchCompressor::decompress_into`] downloads straight into them (no staging copy, no
    /// copy out of a download buffer). On CUDA they are page-locked in place (`cuMemHostRegister`):
    /// that takes time and pins the memory, so register a buffer that is reused, once, rather than
    /// pages for one call. On the simulator backend nothing is registered
    /// ([`RegisteredPages::in_place`] says which).
    ///
    /// A driver that refuses the registration (CUDA: memory of which some is registered already, or
    /// more than the system lets a process lock) is a [`GpuError`] naming the call; the pages still
    /// work with every call as ordinary memory.
    pub fn register<'a>(&mut self, pages: &'a mut [Page]) -> Result<RegisteredPages<'a>, GpuError> {
        // SAFETY: the registration goes into the `RegisteredPages`, which borrows `pages` for as long
        // as it lives and drops the registration first.
        let registration = unsafe { self.engine.register(pages) }?;
        Ok(RegisteredPages::new(pages, registration))
    }

    /// Input pages to fill in place before [`GpuBatchCompressor::compress_staged`]: at least `pages`
    /// pages, as bytes (what an earlier call left there until written). On CUDA they are page-locked,
    /// so the upload reads them where the caller put them (a file read straight into them skips the
    /// staging copy that [`GpuBatchCompressor::compress_into`] makes). Kept and reused; asking for
    /// more pages than before allocates.
    pub fn staging_pages(&mut self, pages: usize) -> Result<&mut [u8], GpuError> {
        self.engine.staging(pages)
    }

    /// [`GpuBatchCompressor::compress_into`] on the first `pages` pages written into
    /// [`GpuBatchCompressor::staging_pages`]; [`GpuError::Config`] when fewer were staged.
    pub fn compress_staged(
        &mut self,
        pages: usize,
        out: &mut PackedRecords,
    ) -> Result<BatchTimes, GpuError> {
        let staged = self.engine.staged()?.len() / PAGE_SIZE;
        if pages > staged {
            return Err(super::engine::unstaged(pages, staged));
        }
        self.compress_from(Input::Staged(pages), &mut RecordsOut::Packed(out))
    }

    fn compress_from(
        &mut self,
        input: Input<'_>,
        out: &mut RecordsOut<'_>,
    ) -> Result<BatchTimes, GpuError> {
        let start = Instant::now();
        let batch = self.config.batch_size;
        let n = match input {
            Input::Pages(pages) | Input::Registered(pages, _) => pages.len(),
            Input::Host(pages) => pages.len(),
            Input::Staged(n) => n,
        };
        out.reset(n);
        let outcomes = match (&self.poisoned, input) {
            (None, Input::Pages(pages)) => self.engine.compress_chunks(pages, batch, out),
            (None, Input::Host(pages)) => self.engine.compress_host(pages, batch, out),
            (None, Input::Staged(n)) => self.engine.compress_staged(n, batch, out),
            (None, Input::Registered(pages, registration)) => {
                self.engine
                    .compress_registered(pages, registration, batch, out)
            }
            (Some(why), _) => {
                let why = GpuError::NotAvailable(format!("the GPU is unusable after {why}"));
                all_failed(n, batch, why)
            }
        };
        let mut times = BatchTimes::default();
        for (k, (range, outcome)) in chunk_ranges(n, batch).into_iter().zip(outcomes).enumerate() {
            let global = self.batches_seen + k as u64;
            let outcome = match self.faults.remove(&global) {
                Some(injected) => Err(injected),
                None => outcome,
            };
            match outcome {
                Ok(t) => {
                    times.h2d_time_ns += t.upload_ns;
                    times.kernel_time_ns += t.kernel_ns;
                    times.d2h_time_ns += t.download_ns;
                    times.kernel_clock = t.kernel_clock;
                    times.transfer_clock = t.transfer_clock;
                }
                Err(error) => {
                    if self.poisoned.is_none() {
                        eprintln!(
                            "warpforge: GPU batch {global} (pages {}..{}) failed: {error}; compressing it on the CPU",
                            range.start, range.end
                        );
                    }
                    let level = self.config.algorithm.lz4_level();
                    let records = match input {
                        Input::Pages(pages) | Input::Registered(pages, _) => {
                            reference::compress(&pages[range.clone()], level)
                        }
                        Input::Host(pages) => reference::compress(&pages[range.clone()], level),
                        Input::Staged(_) => reference::compress(
                            &pages_of(self.engine.staged()?)[range.clone()],
                            level,
                        ),
                    };
                    for (i, record) in range.clone().zip(records) {
                        out.set_owned(i, record);
                    }
                    times.cpu_fallback_pages += range.len();
                    self.stats.cpu_fallback_pages += range.len() as u64;
                    self.note_failure(&error);
                }
            }
        }
        self.batches_seen += n.div_ceil(batch) as u64;
        times.total_time_ns = start.elapsed().as_nanos().max(1) as u64;
        self.stats.pages_compressed += n as u64;
        self.stats.total_bytes_in += (n * PAGE_SIZE) as u64;
        self.stats.total_bytes_out += out.encoded_len() as u64;
        self.stats.total_time_ns += times.total_time_ns;
        Ok(times)
    }

    /// Decompresses `pages` in chunks of `batch_size`. A chunk the GPU fails is redone on the CPU; a
    /// malformed page is [`GpuError::Corrupt`] with its index in `pages`. The output is [`HostPages`]
    /// from this compressor's pool (page-locked on CUDA; `Deref` to a slice of pages,
    /// [`HostPages::to_vec`] for a vector): memory a dropped result gave back is reused, so a
    /// streaming caller pays no page faults for fresh memory. [`GpuBatchCompressor::decompress_into`]
    /// writes into the caller's pages instead.
    pub fn decompress_batch(&mut self, pages: &[CompressedPage]) -> Result<HostPages, GpuError> {
        let mut out = self.host_pages(pages.len())?;
        self.decompress_into(&pages, &mut out)?;
        Ok(out)
    }

    /// Decodes `records` (owned [`CompressedPage`]s or [`PackedRecords`]) into `out`, one page per
    /// record; every page of `out` is written. A chunk the GPU fails is redone on the CPU; a malformed
    /// page is [`GpuError::Corrupt`] with its index in `records`, and a length mismatch is
    /// [`GpuError::Config`]. `out` may be any slice or vector of pages, or [`HostPages`] from
    /// [`GpuBatchCompressor::host_pages`], which the CUDA engine downloads into directly.
    pub fn decompress_into<O: PageOutput + ?Sized>(
        &mut self,
        records: &dyn Records,
        out: &mut O,
    ) -> Result<(), GpuError> {
        let pages = out.pages_mut().len();
        if records.count() != pages {
            return Err(GpuError::Config(format!(
                "decompress_into: {} records for {pages} output pages",
                records.count(),
            )));
        }
        let batch = self.config.batch_size;
        let outcomes = if let Some(why) = &self.poisoned {
            let why = GpuError::NotAvailable(format!("the GPU is unusable after {why}"));
            chunk_ranges(pages, batch)
                .iter()
                .map(|_| Err(why.clone()))
                .collect()
        } else if let Some(host) = out.host_pages_mut() {
            self.engine.decompress_host(records, batch, host)
        } else if let Some((registration, registered)) = out.registered_mut() {
            if registered.len() != pages {
                return Err(GpuError::Config(format!(
                    "decompress_into: {} registered pages for {pages} output pages",
                    registered.len()
                )));
            }
            self.engine
                .decompress_registered(records, batch, registered, registration)
        } else {
            self.engine
                .decompress_chunks(records, batch, out.pages_mut())
        };
        for (k, (dst, outcome)) in out.pages_mut().chunks_mut(batch).zip(outcomes).enumerate() {
            let first = k * batch;
            let decoded = match outcome {
                Ok(decoded) => decoded,
                Err(e) => {
                    if self.poisoned.is_none() {
                        eprintln!(
                            "warpforge: GPU decompression of pages {first}..{} failed: {e}; decoding them on the CPU",
                            first + dst.len()
                        );
                    }
                    self.stats.cpu_fallback_pages += dst.len() as u64;
                    self.note_failure(&e);
                    reference::decompress_records(records, first, dst)
                }
            };
            decoded.map_err(|e| GpuError::Corrupt {
                page: first + e.index,
                detail: e.detail,
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "compressor_tests.rs"]
mod tests;
