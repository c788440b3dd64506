//! [`Driver`] that replays recorded kernel outputs, so the CUDA engine's host pipeline can be timed on
//! its own, without a GPU ([`ReplayTape`], `warpforge host-bench`).
//!
//! A [`ReplayTape`] starts recording: every launch computes what the kernel computes with the CPU
//! reference (the kernels' algorithm, byte-identical to them at the same level) and keeps the bytes it
//! wrote. After [`ReplayTape::replay`] each launch instead checks that it is the launch the tape holds
//! next (same kernel, same page count) and copies the recorded bytes into its output buffers. Uploads
//! and downloads are host copies. The time spent in those stand-ins for device work (copies and
//! replayed launches, never the host pipeline's own work) is summed in [`ReplayTape::device_ns`], so a
//! caller can subtract it from a call's wall time and keep the host work alone.
//!
//! Streams are one queue and run in issue order (as in the simulator driver); device and page-locked
//! memory are host vectors, touched once when allocated (page-locked memory is resident from the
//! start, so first-touch faults do not land in a timed call).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use warpforge_ir::Verified;

use super::driver::{Arg, Driver};
use super::driver_sim::copy;
use super::{GpuDeviceInfo, GpuError};
use crate::kernel_io::reference::parallel_map;
use crate::kernels::lz4::{
    decode_status, encode_page_level, lz4_decompress_block, Lz4Level, PageEncoding,
};
use crate::runtime::{Clock, Launcher, Loaded};
use crate::PAGE_SIZE;

/// Bytes a recorded launch wrote into one output buffer: `(offset in the buffer, range of data)`.
struct Patch {
    data: Vec<u8>,
    pieces: Vec<(usize, std::ops::Range<usize>)>,
}

impl Patch {
    /// `data` written at the start of the buffer.
    fn whole(data: Vec<u8>) -> Patch {
        let pieces = vec![(0, 0..data.len())];
        Patch { data, pieces }
    }
}

/// One recorded launch.
struct Recorded {
    name: &'static str,
    pages: usize,
    /// One per output buffer, in argument order.
    outputs: Vec<Patch>,
}

#[derive(Default)]
struct TapeState {
    replaying: bool,
    launches: Vec<Recorded>,
    cursor: usize,
}

/// The launches of a host pipeline run, recorded once and then replayed (see the module docs). Shared
/// between the driver inside a compressor ([`super::GpuBatchCompressor::replaying`]) and the caller,
/// which switches it to replay, rewinds it before each replayed run and reads the device time.
pub struct ReplayTape {
    level: Lz4Level,
    state: Mutex<TapeState>,
    device_ns: AtomicU64,
}

impl ReplayTape {
    /// An empty tape, recording; compress launches encode at `level`.
    pub fn new(level: Lz4Level) -> Arc<ReplayTape> {
        Arc::new(ReplayTape {
            level,
            state: Mutex::new(TapeState::default()),
            device_ns: AtomicU64::new(0),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, TapeState> {
        // A panic while the lock was held leaves the tape as it was: keep using it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stops recording: from now on launches replay the tape from its first launch.
    pub fn replay(&self) {
        let mut state = self.state();
        state.replaying = true;
        state.cursor = 0;
    }

    /// Replays from the first launch again (the next run must issue the same launches).
    pub fn rewind(&self) {
        self.state().cursor = 0;
    }

    /// Whether launches replay (rather than record).
    pub fn is_replaying(&self) -> bool {
        self.state().replaying
    }

    /// Launches recorded.
    pub fn launches(&self) -> usize {
        self.state().launches.len()
    }

    /// Nanoseconds spent so far standing in for the device: uploads, downloads and launches (recorded
    /// or replayed) — work a GPU's copy engines and SMs would do, not the host.
    pub fn device_ns(&self) -> u64 {
        self.device_ns.load(Ordering::Relaxed)
    }

    /// Runs `f` as device work (its time goes to [`ReplayTape::device_ns`]).
    fn device<T>(&self, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = f();
        let ns = start.elapsed().as_nanos() as u64;
        self.device_ns.fetch_add(ns, Ordering::Relaxed);
        out
    }

    /// One launch of kernel `name` over `pages` pages: recorded (computed on the CPU) or replayed.
    fn launch(
        &self,
        name: &'static str,
        pages: usize,
        ins: &[&[u8]],
        outs: &mut [&mut [u8]],
    ) -> Result<(), GpuError> {
        let mut state = self.state();
        if !state.replaying {
            let outputs = self.compute(name, pages, ins, outs)?;
            apply(name, &outputs, outs)?;
            state.launches.push(Recorded {
                name,
                pages,
                outputs,
            });
            return Ok(());
        }
        let at = state.cursor;
        let Some(recorded) = state.launches.get(at) else {
            return Err(GpuError::Sim(format!(
                "replay: launch {at} ({name}, {pages} pages) is past the end of the tape ({} \
                 launches recorded)",
                state.launches.len()
            )));
        };
        if recorded.name != name || recorded.pages != pages {
            return Err(GpuError::Sim(format!(
                "replay: launch {at} is {name} over {pages} pages, the tape recorded {} over {} \
                 pages (the replayed run must issue the recorded run's launches)",
                recorded.name, recorded.pages
            )));
        }
        apply(name, &recorded.outputs, outs)?;
        state.cursor += 1;
        Ok(())
    }

    /// What kernel `name` writes for these inputs, computed with the CPU reference.
    fn compute(
        &self,
        name: &'static str,
        pages: usize,
        ins: &[&[u8]],
        outs: &[&mut [u8]],
    ) -> Result<Vec<Patch>, GpuError> {
        let short = |what: &str| {
            GpuError::Sim(format!(
                "replay: {name} over {pages} pages: {what} is too short"
            ))
        };
        match (name, ins, outs.len()) {
            ("lz4_compress", [input], 2) => {
                let input = input
                    .get(..pages * PAGE_SIZE)
                    .ok_or_else(|| short("input"))?;
                let pages: Vec<&[u8]> = input.chunks_exact(PAGE_SIZE).collect();
                let level = self.level;
                let encoded = parallel_map(&pages, |p: &&[u8]| {
                    encode_page_level((*p).try_into().expect("a page"), level)
                });
                let (mut slots, mut meta) = (Patch::whole(Vec::new()), Vec::new());
                slots.pieces.clear();
                for (i, encoding) in encoded.into_iter().enumerate() {
                    let words = match encoding {
                        PageEncoding::Lz4(block) => {
                            let at = slots.data.len();
                            slots.data.extend_from_slice(&block);
                            slots.pieces.push((i * PAGE_SIZE, at..at + block.len()));
                            [0, block.len() as u32, 0, 0]
                        }
                        PageEncoding::Raw => [1, 0, 0, 0],
                        PageEncoding::SameFilled(p) => [2, 0, p as u32, (p >> 32) as u32],
                    };
                    meta.extend(words.iter().flat_map(|w| w.to_le_bytes()));
                }
                Ok(vec![slots, Patch::whole(meta)])
            }
            ("lz4_compact", [slots, meta, offsets], 1) => {
                let word = |b: &[u8], i: usize| -> Result<u32, GpuError> {
                    let w = b
                        .get(4 * i..4 * i + 4)
                        .ok_or_else(|| short("meta or offsets"))?;
                    Ok(u32::from_le_bytes(w.try_into().expect("4 bytes")))
                };
                let mut out = Vec::new();
                for i in 0..pages {
                    let (kind, len) = (word(meta, 4 * i)?, word(meta, 4 * i + 1)? as usize);
                    if kind != 0 {
                        continue;
                    }
                    let at = word(offsets, i)? as usize;
                    let block = slots
                        .get(i * PAGE_SIZE..i * PAGE_SIZE + len)
                        .ok_or_else(|| short("slots"))?;
                    if out.len() < at + len {
                        out.resize(at + len, 0);
                    }
                    out[at..at + len].copy_from_slice(block);
                }
                Ok(vec![Patch::whole(out)])
            }
            ("lz4_decompress", [blocks, spans], 2) => {
                let mut decoded = vec![0u8; pages * PAGE_SIZE];
                let mut status = Vec::with_capacity(pages * 4);
                for (k, page) in decoded.chunks_exact_mut(PAGE_SIZE).enumerate() {
                    let span = |j: usize| -> Result<usize, GpuError> {
                        let w = spans.get(8 * k + 4 * j..8 * k + 4 * j + 4);
                        let w = w.ok_or_else(|| short("spans"))?;
                        Ok(u32::from_le_bytes(w.try_into().expect("4 bytes")) as usize)
                    };
                    let (at, len) = (span(0)?, span(1)?);
                    let block = blocks.get(at..at + len).ok_or_else(|| short("blocks"))?;
                    match lz4_decompress_block(block, page) {
                        Ok(PAGE_SIZE) => status.extend(decode_status::OK.to_le_bytes()),
                        outcome => {
                            return Err(GpuError::Sim(format!(
                                "replay: the recorder decodes only well-formed blocks; block {k} \
                                 of {name} gave {outcome:?}"
                            )))
                        }
                    }
                }
                Ok(vec![Patch::whole(decoded), Patch::whole(status)])
            }
            _ => Err(GpuError::Sim(format!(
                "replay: no recorder for kernel {name} with {} inputs and {} outputs",
                ins.len(),
                outs.len()
            ))),
        }
    }
}

/// Writes a launch's recorded bytes into its output buffers.
fn apply(name: &str, outputs: &[Patch], outs: &mut [&mut [u8]]) -> Result<(), GpuError> {
    if outputs.len() != outs.len() {
        return Err(GpuError::Sim(format!(
            "replay: {name} has {} output buffers, the tape {}",
            outs.len(),
            outputs.len()
        )));
    }
    for (patch, out) in outputs.iter().zip(outs.iter_mut()) {
        for (at, range) in &patch.pieces {
            let size = out.len();
            let dst = out.get_mut(*at..at + range.len()).ok_or_else(|| {
                GpuError::Sim(format!(
                    "replay: {name} writes {} bytes at {at} into a {size}-byte buffer",
                    range.len()
                ))
            })?;
            dst.copy_from_slice(&patch.data[range.clone()]);
        }
    }
    Ok(())
}

/// A driver whose launches record into, or replay from, a [`ReplayTape`].
pub struct ReplayDriver {
    tape: Arc<ReplayTape>,
    /// Loads kernels (the simulator: loading verifies, nothing is emitted).
    launcher: Launcher,
    epoch: Instant,
}

impl ReplayDriver {
    /// A driver on `tape`.
    pub fn new(tape: Arc<ReplayTape>) -> ReplayDriver {
        ReplayDriver {
            tape,
            launcher: Launcher::Sim(Default::default()),
            epoch: Instant::now(),
        }
    }
}

/// A zeroed vector whose pages are resident (each written once, through a pointer the optimizer
/// cannot see into, so the write is not dropped as redundant).
fn resident(bytes: usize) -> Vec<u8> {
    let mut v = vec![0u8; bytes];
    for page in v.chunks_mut(4096) {
        std::hint::black_box(page)[0] = 0;
    }
    v
}

impl Driver for ReplayDriver {
    type Stream = ();
    type Event = std::cell::Cell<u64>;
    type Buffer = Vec<u8>;
    type Host = Vec<u8>;
    type Registration = ();

    fn info(&self) -> GpuDeviceInfo {
        GpuDeviceInfo {
            index: 0,
            name: "replay driver (recorded kernel outputs, no GPU)".into(),
            total_memory: 0,
            l2_cache_size: 0,
            compute_capability: (0, 0),
            backend: crate::Backend::Sim,
        }
    }

    fn load(&self, kernel: &Verified<'_>) -> Result<Loaded, GpuError> {
        Ok(self.launcher.load(kernel)?)
    }

    fn clock(&self) -> Clock {
        Clock::HostClock
    }

    fn stream(&self) -> Result<(), GpuError> {
        Ok(())
    }

    fn event(&self) -> Result<Self::Event, GpuError> {
        Ok(std::cell::Cell::new(0))
    }

    fn alloc(&self, _: &(), bytes: usize) -> Result<Vec<u8>, GpuError> {
        Ok(resident(bytes))
    }

    fn alloc_host(&self, bytes: usize, _: bool) -> Result<Vec<u8>, GpuError> {
        Ok(resident(bytes))
    }

    fn host<'h>(&self, host: &'h Vec<u8>) -> Result<&'h [u8], GpuError> {
        Ok(host)
    }

    fn host_mut<'h>(&self, host: &'h mut Vec<u8>) -> Result<&'h mut [u8], GpuError> {
        Ok(host)
    }

    unsafe fn register(&self, _: *mut u8, _: usize) -> Result<(), GpuError> {
        // Copies here are host copies: they read and write any memory.
        Ok(())
    }

    fn upload_from(&self, _: &(), src: &[u8], dst: &mut Vec<u8>) -> Result<(), GpuError> {
        self.tape
            .device(|| copy(src, src.len(), dst, "replay: upload"))
    }

    fn download_into(&self, _: &(), src: &Vec<u8>, dst: &mut [u8]) -> Result<(), GpuError> {
        self.tape
            .device(|| copy(src, dst.len(), dst, "replay: download"))
    }

    fn launch(
        &self,
        _: &(),
        _: &Loaded,
        name: &'static str,
        pages: usize,
        args: &mut [Arg<'_, Vec<u8>>],
    ) -> Result<(), GpuError> {
        let (mut ins, mut outs) = (Vec::new(), Vec::new());
        for arg in args.iter_mut() {
            match arg {
                Arg::In(b) => ins.push(b.as_slice()),
                Arg::Out(b) => outs.push(b.as_mut_slice()),
                // The recorded outputs stand for the kernel: its working memory plays no part.
                Arg::Scratch(_) => {}
            }
        }
        self.tape
            .device(|| self.tape.launch(name, pages, &ins, &mut outs))
    }

    fn record(&self, event: &Self::Event, _: &()) -> Result<(), GpuError> {
        event.set(self.epoch.elapsed().as_nanos() as u64);
        Ok(())
    }

    fn wait(&self, _: &(), _: &Self::Event) -> Result<(), GpuError> {
        Ok(())
    }

    fn synchronize(&self, _: &Self::Event) -> Result<(), GpuError> {
        Ok(())
    }

    fn elapsed_ns(&self, from: &Self::Event, to: &Self::Event) -> Result<u64, GpuError> {
        Ok(to.get().saturating_sub(from.get()))
    }

    fn settle(&self) -> Result<(), GpuError> {
        Ok(())
    }

    fn check(&self) -> Result<(), GpuError> {
        Ok(())
    }

    fn drain(&self, _: &()) {}
}
