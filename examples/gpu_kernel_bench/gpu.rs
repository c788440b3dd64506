//! The device side shared by every device-resident figure: one context and one stream, the pages
//! uploaded once into rotation sets, launches timed with CUDA events, pinned-copy bandwidth, and the
//! parallel CPU checks run after the timing.

use std::ops::Range;
use std::sync::Arc;

use anyhow::{anyhow, Context, Result};
use warpforge::runtime::cuda::{open_context, CudaDeviceInfo};
use warpforge::runtime::cudarc::driver::{
    sys, CudaContext, CudaEvent, CudaSlice, CudaStream, DevicePtr,
};
use warpforge::PAGE_SIZE;

pub type Page = [u8; PAGE_SIZE];

/// CUDA device 0 with one stream: every launch and copy of the bench is ordered on it.
pub struct Gpu {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub info: CudaDeviceInfo,
    start: CudaEvent,
    end: CudaEvent,
}

impl Gpu {
    pub fn open() -> Result<Gpu> {
        let (ctx, info) = open_context(0).context("opening CUDA device 0")?;
        // SAFETY: every launch and copy of this bench goes to the one stream below, in program order,
        // so cudarc's cross-stream event tracking has nothing to order; disabling it keeps its extra
        // event records out of the timed regions and lets raw pointers go to nvCOMP.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream().context("cuStreamCreate")?;
        let event = || {
            ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
                .context("cuEventCreate")
        };
        let (start, end) = (event()?, event()?);
        Ok(Gpu {
            ctx,
            stream,
            info,
            start,
            end,
        })
    }

    /// Seconds the work `issue` puts on the stream takes, between two CUDA events; the stream is
    /// synchronized and checked for errors afterwards.
    pub fn time(&self, issue: impl FnOnce() -> Result<()>) -> Result<f64> {
        self.start.record(&self.stream).context("cuEventRecord")?;
        issue()?;
        self.end.record(&self.stream).context("cuEventRecord")?;
        self.end.synchronize().context("cuEventSynchronize")?;
        self.ctx.check_err().context("a queued CUDA operation")?;
        let ms = self
            .start
            .elapsed_ms(&self.end)
            .context("cuEventElapsedTime")?;
        Ok(f64::from(ms) / 1e3)
    }

    pub fn sync(&self) -> Result<()> {
        self.stream.synchronize().context("cuStreamSynchronize")?;
        self.ctx.check_err().context("a queued CUDA operation")
    }

    pub fn zeros(&self, bytes: usize) -> Result<CudaSlice<u8>> {
        self.stream
            .alloc_zeros::<u8>(bytes.max(16))
            .with_context(|| format!("cuMemAlloc of {bytes} bytes"))
    }

    pub fn upload<T: warpforge::runtime::cudarc::driver::DeviceRepr>(
        &self,
        host: &[T],
    ) -> Result<CudaSlice<T>> {
        self.stream.clone_htod(host).context("cuMemcpyHtoD")
    }

    pub fn download<T: warpforge::runtime::cudarc::driver::DeviceRepr + Default + Clone>(
        &self,
        dev: &CudaSlice<T>,
        len: usize,
    ) -> Result<Vec<T>> {
        let mut host = vec![T::default(); len];
        if len > 0 {
            self.stream
                .memcpy_dtoh(&dev.slice(..len), &mut host[..])
                .context("cuMemcpyDtoH")?;
        }
        self.sync()?;
        Ok(host)
    }

    /// The device address of `slice` (for nvCOMP's pointer arrays).
    pub fn address<T>(&self, slice: &CudaSlice<T>) -> u64 {
        let (ptr, _sync) = slice.device_ptr(&self.stream);
        ptr
    }

    /// Pinned host-to-device and device-to-host bandwidth: `bytes` per copy, `runs` copies each
    /// direction, timed with events. Returns (H2D seconds, D2H seconds).
    pub fn pinned_copies(&self, bytes: usize, runs: usize) -> Result<(Vec<f64>, Vec<f64>)> {
        // SAFETY: the buffer is filled below before any copy reads it.
        let mut host = unsafe { self.ctx.alloc_pinned::<u8>(bytes) }.context("cuMemHostAlloc")?;
        for (i, b) in host
            .as_mut_slice()
            .context("pinned buffer")?
            .iter_mut()
            .enumerate()
        {
            *b = (i * 131 % 251) as u8;
        }
        let mut dev = self.zeros(bytes)?;
        let (mut h2d, mut d2h) = (Vec::new(), Vec::new());
        for run in 0..runs + 1 {
            let t = self.time(|| {
                self.stream
                    .memcpy_htod(&host, &mut dev)
                    .context("cuMemcpyHtoDAsync")
            })?;
            let u = self.time(|| {
                self.stream
                    .memcpy_dtoh(&dev, &mut host)
                    .context("cuMemcpyDtoHAsync")
            })?;
            if run > 0 {
                h2d.push(t);
                d2h.push(u);
            }
        }
        let back = host.as_slice().context("pinned buffer")?;
        if let Some(i) = (0..bytes).find(|&i| back[i] != (i * 131 % 251) as u8) {
            return Err(anyhow!("pinned round trip changed byte {i}"));
        }
        Ok((h2d, d2h))
    }
}

/// The pages split into `sets` equal rotation sets, each in its own device buffer: consecutive timed
/// runs use different sets, so no run finds its input in L2.
pub struct Sets {
    pub pages_per_set: usize,
    pub inputs: Vec<CudaSlice<u8>>,
}

impl Sets {
    pub fn upload(gpu: &Gpu, pages: &[Page], sets: usize) -> Result<Sets> {
        let pages_per_set = pages.len() / sets;
        let inputs = (0..sets)
            .map(|s| gpu.upload(pages[s * pages_per_set..(s + 1) * pages_per_set].as_flattened()))
            .collect::<Result<Vec<_>>>()?;
        gpu.sync()?;
        Ok(Sets {
            pages_per_set,
            inputs,
        })
    }

    pub fn len(&self) -> usize {
        self.inputs.len()
    }

    /// The pages of set `s` in the host copy.
    pub fn range(&self, s: usize) -> Range<usize> {
        s * self.pages_per_set..(s + 1) * self.pages_per_set
    }
}

/// Runs `check(range)` over `0..n` split across every core (rayon); sums what the parts return, or
/// the first error.
pub fn par_check<T: Send + Default + std::ops::AddAssign>(
    n: usize,
    check: impl Fn(Range<usize>) -> Result<T> + Sync,
) -> Result<T> {
    use rayon::prelude::*;
    let chunk = n.div_ceil(rayon::current_num_threads()).max(1);
    let parts: Vec<Result<T>> = (0..n)
        .into_par_iter()
        .step_by(chunk)
        .map(|start| check(start..(start + chunk).min(n)))
        .collect();
    let mut total = T::default();
    for part in parts {
        total += part?;
    }
    Ok(total)
}
