//! The CUDA backend on cudarc: warpforge's PTX loaded as a module, launched from its launch metadata,
//! timed with CUDA events, fed through pinned host buffers. Each ring slot has its own three streams
//! (H2D, kernels, D2H), so the upload of batch k+1, the kernels of batch k and the download of batch
//! k−1 overlap and no slot's work queues behind another's.
//!
//! Pinned memory is handed to cudarc as plain slices (still async copies: the driver sees pinned
//! pages), so cudarc tracks none of it; the slot's own events order it: `pin_meta` is read after
//! event 5, `pin_out` after event 11, and `pin_in` / `pin_off` are rewritten only after the slot was
//! finished (event 11, which follows events 9, 7 and 1) or after every stream was synchronized.
//!
//! Per batch: upload the pages; compress (each page into its 4 KiB slot, plus 4 meta words); download
//! the meta words only; compute each LZ4 page's offset on the host; upload the offsets; compact the
//! blocks into one contiguous buffer; download exactly the compressed bytes.

use std::sync::Arc;

use warpforge_ir::verify;

use super::engine::{ChunkOutcome, Engine};
use super::ring::{run_pipeline, Stages};
use super::{GpuDeviceInfo, GpuError};
use crate::archive::Record;
use crate::kernel_io::{decompress_through, record_from_meta, DecodeError, Page, PageMeta};
use crate::kernels::Lz4WarpDecompressKernel;
use crate::kernels::{blocks_for, Kernel, Lz4CompactKernel, Lz4WarpCompressKernel};
use crate::runtime::cuda::{CudaDevice, CudaKernel};
use crate::runtime::cudarc::driver::{
    sys, CudaContext, CudaEvent, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice,
    PushKernelArg,
};
use crate::runtime::{Backend, Clock, Launcher, Loaded, Timings};
use crate::PAGE_SIZE;

/// Maps a cudarc driver error to [`GpuError::Cuda`] naming `call`.
fn err(call: &'static str) -> impl Fn(DriverError) -> GpuError {
    move |e| GpuError::cuda(call, e.0 as u32)
}

/// The launch configuration of a page kernel for `pages` pages.
fn config(kernel: &CudaKernel, pages: usize) -> Result<LaunchConfig, GpuError> {
    Ok(kernel.config(u64::from(blocks_for(pages, Backend::Cuda)))?)
}

/// Events of one slot, recorded around each stage.
const EVENTS: usize = 12;

/// One ring slot: pinned host and device buffers for a batch, and its timing events.
struct Slot {
    pin_in: PinnedHostSlice<u8>,
    d_in: CudaSlice<u8>,
    d_slots: CudaSlice<u8>,
    d_meta: CudaSlice<u32>,
    pin_meta: PinnedHostSlice<u32>,
    pin_off: PinnedHostSlice<u32>,
    d_off: CudaSlice<u32>,
    d_compact: CudaSlice<u8>,
    pin_out: PinnedHostSlice<u8>,
    ev: Vec<CudaEvent>,
    /// The slot's own H2D, kernel and D2H streams, so that its compaction and download never queue
    /// behind the next slot's upload or kernel.
    h2d: Arc<CudaStream>,
    compute: Arc<CudaStream>,
    d2h: Arc<CudaStream>,
    /// Index (in the whole call) of the first page it holds, and how many it holds.
    first: usize,
    pages: usize,
    /// Byte offset of each page's block in the compacted output (LZ4 pages only).
    offsets: Vec<u32>,
}

impl Slot {
    fn new(ctx: &Arc<CudaContext>, batch: usize) -> Result<Slot, GpuError> {
        let new_stream = || ctx.new_stream().map_err(err("cuStreamCreate"));
        let (h2d, compute, d2h) = (new_stream()?, new_stream()?, new_stream()?);
        let stream = &compute;
        let bytes = batch * PAGE_SIZE;
        let ev = (0..EVENTS)
            // Blocking sync: the host sleeps rather than spins while it waits (timing stays enabled).
            .map(|_| ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(err("cuEventCreate"))?;
        // SAFETY: pinned buffers are written by the host (or by a copy) before they are read, and only
        // the written prefix is read.
        let (pin_in, pin_meta, pin_off, pin_out) = unsafe {
            (
                ctx.alloc_pinned::<u8>(bytes),
                ctx.alloc_pinned_with_flags::<u32>(batch * 4, 0),
                ctx.alloc_pinned::<u32>(batch),
                ctx.alloc_pinned_with_flags::<u8>(bytes, 0),
            )
        };
        let a = err("cuMemAlloc");
        Ok(Slot {
            pin_in: pin_in.map_err(err("cuMemHostAlloc"))?,
            d_in: stream.alloc_zeros::<u8>(bytes).map_err(&a)?,
            d_slots: stream.alloc_zeros::<u8>(bytes).map_err(&a)?,
            d_meta: stream.alloc_zeros::<u32>(batch * 4).map_err(&a)?,
            pin_meta: pin_meta.map_err(err("cuMemHostAlloc"))?,
            pin_off: pin_off.map_err(err("cuMemHostAlloc"))?,
            d_off: stream.alloc_zeros::<u32>(batch).map_err(&a)?,
            d_compact: stream.alloc_zeros::<u8>(bytes).map_err(&a)?,
            pin_out: pin_out.map_err(err("cuMemHostAlloc"))?,
            ev,
            h2d: h2d.clone(),
            compute: compute.clone(),
            d2h: d2h.clone(),
            first: 0,
            pages: 0,
            offsets: Vec::new(),
        })
    }

    fn ms(&self, a: usize) -> Result<u64, GpuError> {
        let ms = self.ev[a]
            .elapsed_ms(&self.ev[a + 1])
            .map_err(err("cuEventElapsedTime"))?;
        Ok((f64::from(ms) * 1e6) as u64)
    }
}

/// The engine seen as the ring's three stages.
struct CudaStages<'a, 'p> {
    engine: &'a mut CudaEngine,
    chunks: &'a [&'p [Page]],
}

impl Stages for CudaStages<'_, '_> {
    type Output = (Vec<Record>, Timings);

    fn start(&mut self, slot: usize, chunk: usize) -> Result<(), GpuError> {
        // Every chunk but the last has the first one's length.
        self.engine.slots[slot].first = chunk * self.chunks[0].len();
        self.engine.issue_compress(slot, self.chunks[chunk])
    }

    fn compact(&mut self, slot: usize) -> Result<(), GpuError> {
        self.engine.issue_compact(slot)
    }

    fn finish(&mut self, slot: usize, chunk: usize) -> Result<Self::Output, GpuError> {
        self.engine.collect(slot, self.chunks[chunk])
    }

    fn quiesce(&mut self) {
        self.engine.quiesce();
    }
}

/// The CUDA backend.
pub struct CudaEngine {
    /// The CUDA device (its own stream runs `decompress_chunk` through the runtime's launch API).
    launcher: Launcher,
    ctx: Arc<CudaContext>,
    compress: CudaKernel,
    compact: CudaKernel,
    decompress: Loaded,
    slots: Vec<Slot>,
    batch: usize,
    async_dma: bool,
    info: GpuDeviceInfo,
}

impl CudaEngine {
    /// Opens device `index` with `slots` ring slots of `batch` pages each.
    pub fn new(
        index: u32,
        batch: usize,
        slots: usize,
        async_dma: bool,
    ) -> Result<CudaEngine, GpuError> {
        let device = CudaDevice::new(index)?;
        let ctx = device.context().clone();
        let info = GpuDeviceInfo::from(device.info());
        let ir = |kernel: &dyn Kernel| kernel.ir_for(Backend::Cuda);
        let (compress, compact, decompress) = (
            ir(&Lz4WarpCompressKernel::new(0)),
            ir(&Lz4CompactKernel::new(0)),
            ir(&Lz4WarpDecompressKernel::new(0)),
        );
        let verified = |k| verify(k).expect("the repository's kernels verify");
        let compress = device.load(&verified(&compress))?;
        let compact = device.load(&verified(&compact))?;
        let launcher = Launcher::Cuda(device);
        let decompress = launcher.load(&verified(&decompress))?;
        // Without async DMA the ring has one slot: allocate only that one.
        let depth = if async_dma { slots.max(1) } else { 1 };
        let slots = (0..depth)
            .map(|_| Slot::new(&ctx, batch))
            .collect::<Result<Vec<_>, _>>()?;
        ctx.synchronize().map_err(err("cuCtxSynchronize"))?;
        Ok(CudaEngine {
            launcher,
            ctx,
            compress,
            compact,
            decompress,
            slots,
            batch,
            async_dma,
            info,
        })
    }

    /// Stage A: upload the pages, compress, download the meta words.
    fn issue_compress(&mut self, s: usize, pages: &[Page]) -> Result<(), GpuError> {
        let slot = &self.slots[s];
        let (h2d, compute, d2h) = (slot.h2d.clone(), slot.compute.clone(), slot.d2h.clone());
        let cfg = config(&self.compress, pages.len())?;
        let slot = &mut self.slots[s];
        let n = pages.len();
        slot.pages = n;
        let host = slot
            .pin_in
            .as_mut_slice()
            .map_err(err("cuEventSynchronize"))?;
        host[..n * PAGE_SIZE].copy_from_slice(pages.as_flattened());
        slot.ev[0].record(&h2d).map_err(err("cuEventRecord"))?;
        h2d.memcpy_htod(&host[..n * PAGE_SIZE], &mut slot.d_in)
            .map_err(err("cuMemcpyHtoDAsync"))?;
        slot.ev[1].record(&h2d).map_err(err("cuEventRecord"))?;
        compute
            .wait(&slot.ev[1])
            .map_err(err("cuStreamWaitEvent"))?;
        slot.ev[2].record(&compute).map_err(err("cuEventRecord"))?;
        let count = n as u32;
        let mut launch = compute.launch_builder(&self.compress.function);
        launch
            .arg(&slot.d_in)
            .arg(&mut slot.d_slots)
            .arg(&mut slot.d_meta)
            .arg(&count);
        // SAFETY: the arguments match the kernel's parameters (input, output slots, meta, pages), and
        // every buffer holds `batch` pages, of which the kernel touches the first `count`.
        unsafe { launch.launch(cfg) }.map_err(err("cuLaunchKernel(lz4_compress)"))?;
        slot.ev[3].record(&compute).map_err(err("cuEventRecord"))?;
        d2h.wait(&slot.ev[3]).map_err(err("cuStreamWaitEvent"))?;
        slot.ev[4].record(&d2h).map_err(err("cuEventRecord"))?;
        let meta = slot
            .pin_meta
            .as_mut_slice()
            .map_err(err("cuEventSynchronize"))?;
        d2h.memcpy_dtoh(&slot.d_meta.slice(..n * 4), &mut meta[..n * 4])
            .map_err(err("cuMemcpyDtoHAsync"))?;
        slot.ev[5].record(&d2h).map_err(err("cuEventRecord"))?;
        Ok(())
    }

    /// Stage B: wait for the meta words, upload the offsets, compact, download the compressed bytes.
    fn issue_compact(&mut self, s: usize) -> Result<(), GpuError> {
        let slot = &self.slots[s];
        let (h2d, compute, d2h) = (slot.h2d.clone(), slot.compute.clone(), slot.d2h.clone());
        let slot = &mut self.slots[s];
        let n = slot.pages;
        let cfg = config(&self.compact, n)?;
        slot.ev[5]
            .synchronize()
            .map_err(err("cuEventSynchronize"))?;
        let meta = slot
            .pin_meta
            .as_slice()
            .map_err(err("cuEventSynchronize"))?;
        slot.offsets.clear();
        let mut total = 0usize;
        for i in 0..n {
            slot.offsets.push(total as u32);
            let words = [0, 1, 2, 3].map(|k| meta[4 * i + k]);
            total += PageMeta::decode(words)
                .map_err(|detail| GpuError::Corrupt {
                    page: slot.first + i,
                    detail,
                })?
                .block_len();
        }
        let off = slot
            .pin_off
            .as_mut_slice()
            .map_err(err("cuEventSynchronize"))?;
        off[..n].copy_from_slice(&slot.offsets);
        slot.ev[6].record(&h2d).map_err(err("cuEventRecord"))?;
        h2d.memcpy_htod(&off[..n], &mut slot.d_off)
            .map_err(err("cuMemcpyHtoDAsync"))?;
        slot.ev[7].record(&h2d).map_err(err("cuEventRecord"))?;
        compute
            .wait(&slot.ev[7])
            .map_err(err("cuStreamWaitEvent"))?;
        slot.ev[8].record(&compute).map_err(err("cuEventRecord"))?;
        let count = n as u32;
        let mut launch = compute.launch_builder(&self.compact.function);
        launch
            .arg(&slot.d_slots)
            .arg(&slot.d_meta)
            .arg(&slot.d_off)
            .arg(&mut slot.d_compact)
            .arg(&count);
        // SAFETY: the arguments match the compaction kernel's parameters (slots, meta, offsets, compact,
        // pages); the offsets come from the meta words, so every block lands inside `d_compact`.
        unsafe { launch.launch(cfg) }.map_err(err("cuLaunchKernel(lz4_compact)"))?;
        slot.ev[9].record(&compute).map_err(err("cuEventRecord"))?;
        d2h.wait(&slot.ev[9]).map_err(err("cuStreamWaitEvent"))?;
        slot.ev[10].record(&d2h).map_err(err("cuEventRecord"))?;
        if total > 0 {
            let out = slot
                .pin_out
                .as_mut_slice()
                .map_err(err("cuEventSynchronize"))?;
            d2h.memcpy_dtoh(&slot.d_compact.slice(..total), &mut out[..total])
                .map_err(err("cuMemcpyDtoHAsync"))?;
        }
        slot.ev[11].record(&d2h).map_err(err("cuEventRecord"))?;
        Ok(())
    }

    /// Stage C: wait for the bytes and build the records.
    fn collect(&mut self, s: usize, pages: &[Page]) -> ChunkOutcome {
        let slot = &self.slots[s];
        slot.ev[11]
            .synchronize()
            .map_err(err("cuEventSynchronize"))?;
        // cudarc records some failures (in its automatic cross-stream waits) instead of returning them.
        self.ctx
            .check_err()
            .map_err(err("a queued CUDA operation"))?;
        let meta = slot
            .pin_meta
            .as_slice()
            .map_err(err("cuEventSynchronize"))?;
        let out = slot.pin_out.as_slice().map_err(err("cuEventSynchronize"))?;
        let records = pages
            .iter()
            .enumerate()
            .map(|(i, page)| {
                let words = [0, 1, 2, 3].map(|k| meta[4 * i + k]);
                record_from_meta(words, page, |len| {
                    let at = slot.offsets[i] as usize;
                    out[at..at + len].to_vec()
                })
                .map_err(|detail| GpuError::Corrupt {
                    page: slot.first + i,
                    detail,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let timings = Timings {
            upload_ns: slot.ms(0)? + slot.ms(6)?,
            kernel_ns: slot.ms(2)? + slot.ms(8)?,
            download_ns: slot.ms(4)? + slot.ms(10)?,
            kernel_clock: Clock::CudaEvents,
            transfer_clock: Clock::CudaEvents,
        };
        Ok((records, timings))
    }

    /// After a failure: let the streams drain (errors ignored) so the slots can be reused.
    fn quiesce(&self) {
        // A stale error cudarc recorded earlier makes the syncs below return early without waiting:
        // take it first (it belongs to this failure).
        let _ = self.ctx.check_err();
        for slot in &self.slots {
            for stream in [&slot.h2d, &slot.compute, &slot.d2h] {
                let _ = stream.synchronize();
            }
        }
        // Errors cudarc recorded on the way (in its automatic waits and drops) belong to this failure.
        let _ = self.ctx.check_err();
    }
}

impl Engine for CudaEngine {
    fn info(&self) -> GpuDeviceInfo {
        self.info.clone()
    }

    fn compress_chunks(&mut self, pages: &[Page], batch: usize) -> Vec<ChunkOutcome> {
        let chunks: Vec<&[Page]> = pages.chunks(batch.clamp(1, self.batch)).collect();
        let depth = if self.async_dma { self.slots.len() } else { 1 };
        let mut stages = CudaStages {
            engine: self,
            chunks: &chunks,
        };
        run_pipeline(chunks.len(), depth, &mut stages)
    }

    fn decompress_chunk(
        &mut self,
        records: &[Record],
        out: &mut [Page],
    ) -> Result<Result<(), DecodeError>, GpuError> {
        let (result, _) = decompress_through(records, out, |buffers, n| {
            let blocks = blocks_for(n as usize, Backend::Cuda);
            Ok(self
                .launcher
                .launch(&self.decompress, blocks, buffers, &[u64::from(n)])?)
        })
        .map_err(|e| GpuError::from_launch(Backend::Cuda, e))?;
        Ok(result)
    }
}
