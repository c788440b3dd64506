//! [`Driver`] on a WebGPU device: the CUDA engine's host pipeline — the ring, meta-first compaction,
//! decompression, downloads straight into [`super::HostPages`] — with buffers that stay on the device
//! between launches (`webgpu::ResidentBuffer`). Before, a WebGPU batch created every buffer at each
//! launch, uploaded the compress kernel's output slots and scratch (zeroes) and downloaded them again
//! with the pages' 4 KiB output slots, and waited three times per launch; now each chunk uploads its
//! pages, downloads its meta words and its compacted blocks, and waits once per kernel.
//!
//! WebGPU has one queue: the three streams of a slot are that queue, whose issue order satisfies every
//! stream and event dependency. Nothing waits when it is issued: a launch is submitted and the host
//! goes on (staging the next chunk, building the last one's records) while the GPU runs it; a download
//! is queued at once and lands in its host buffer when an event recorded after it is synchronized
//! (every `synchronize` the ring makes before it reads a buffer), which also collects the kernels
//! issued before that event. A kernel's time comes from timestamp queries where the adapter has them
//! (else the host clock from its submission to the synchronize that collects it, an upper bound; after
//! one unusable reading the driver reports the host clock for every later chunk); transfers are on the
//! host clock: an upload's is the copy into wgpu's staging memory, a download's the wait for its copy
//! and the copy out at the synchronize that collects it (not queueing it: on lavapipe, which runs the
//! queue on the host's threads, queueing a copy waits for the kernel before it).

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::time::Instant;

use warpforge_ir::Verified;

use super::driver::{Arg, Driver};
use super::{GpuDeviceInfo, GpuError};
use crate::kernels::blocks_for;
use crate::runtime::webgpu::{Dispatch, Readback, ResidentBuffer, WebGpuDevice, WebGpuError};
use crate::runtime::{Backend, Clock, Launcher, Loaded};
use crate::wgsl::WarpLowering;

/// A queued download: its read-back and where its bytes go.
struct Pending {
    readback: Readback,
    /// The first destination byte, in a host buffer (a `Vec<u8>`) that the ring keeps alive and does
    /// not reference until it synchronizes an event recorded after this download.
    dst: *mut u8,
}

/// An event: the host clock when it was recorded (plus the time its synchronize spent collecting
/// downloads and kernels), and how many downloads and launches were issued before it.
#[derive(Default)]
pub struct WgpuEvent {
    at_ns: Cell<u64>,
    downloads: Cell<u64>,
    launches: Cell<u64>,
    /// The launch issued just before it was recorded: the span that ends at this event is its kernel.
    kernel: Cell<Option<u64>>,
}

/// A WebGPU device driven like a CUDA device.
pub struct WgpuDriver {
    /// `Launcher::WebGpu`.
    launcher: Launcher,
    epoch: Instant,
    /// Downloads queued and not yet collected, oldest first, with their ids (downloads queued before).
    pending: RefCell<Vec<(u64, Pending)>>,
    /// Downloads queued so far.
    queued: Cell<u64>,
    /// Host time spent queueing read-backs (see `now_ns`).
    queueing_ns: Cell<u64>,
    /// Launches submitted and not yet collected, oldest first, with their ids (launches before).
    dispatches: RefCell<Vec<(u64, Dispatch)>>,
    /// Launches issued so far.
    launched: Cell<u64>,
    /// The last launch, until the next event takes it.
    last_launch: Cell<Option<u64>>,
    /// The times of collected launches this call, by id, until `elapsed_ns` takes them.
    kernel_times: RefCell<BTreeMap<u64, u64>>,
    /// Whether kernel times come from timestamp queries: the adapter offers them and no reading has
    /// been unusable yet (from the first one that is, this driver's kernel times are host-clock).
    timestamps: Cell<bool>,
    /// Why a queued download or kernel failed: every later operation (`synchronize`, `check`, and
    /// issuing an upload, launch or download) fails until the ring drains, so no chunk reads a buffer
    /// its download never reached and the ring's next step fails into its drain.
    lost: RefCell<Option<String>>,
}

impl WgpuDriver {
    /// Drives the WebGPU device of `launcher`.
    ///
    /// # Errors
    ///
    /// [`GpuError::Config`] when `launcher` is not a WebGPU launcher.
    pub fn new(launcher: Launcher) -> Result<WgpuDriver, GpuError> {
        let Launcher::WebGpu(device) = &launcher else {
            return Err(GpuError::Config(format!(
                "the WebGPU driver needs a WebGPU launcher, not {}",
                launcher.backend()
            )));
        };
        // The device is opened with timestamp queries whenever the adapter offers them.
        let timestamps = device.adapter().timestamp_query;
        Ok(WgpuDriver {
            timestamps: Cell::new(timestamps),
            lost: RefCell::new(None),
            dispatches: RefCell::new(Vec::new()),
            launched: Cell::new(0),
            last_launch: Cell::new(None),
            kernel_times: RefCell::new(BTreeMap::new()),
            launcher,
            epoch: Instant::now(),
            pending: RefCell::new(Vec::new()),
            queued: Cell::new(0),
            queueing_ns: Cell::new(0),
        })
    }

    fn device(&self) -> &WebGpuDevice {
        match &self.launcher {
            Launcher::WebGpu(device) => device,
            _ => unreachable!("checked in WgpuDriver::new"),
        }
    }

    /// The events' clock: the host clock less the time spent queueing read-backs, which is where
    /// an adapter that runs the queue on the host's own threads (lavapipe) waits for the kernels
    /// before them; on a GPU queueing does not wait and this is the host clock.
    fn now_ns(&self) -> u64 {
        (self.epoch.elapsed().as_nanos() as u64).saturating_sub(self.queueing_ns.get())
    }

    /// Forgets every queued download (unwritten) and launch, and a lost download.
    fn forget(&self) {
        self.pending.borrow_mut().clear();
        self.dispatches.borrow_mut().clear();
        self.kernel_times.borrow_mut().clear();
        self.last_launch.set(None);
        self.lost.borrow_mut().take();
    }

    /// `Err` while a lost download is unaccounted for (until the ring drains).
    fn check_lost(&self) -> Result<(), GpuError> {
        match self.lost.borrow().as_ref() {
            Some(why) => Err(GpuError::WebGpu(WebGpuError::Map(why.clone()))),
            None => Ok(()),
        }
    }
}

/// Takes the entries of `queue` (oldest first) whose ids are below `count`: those issued before an
/// event that recorded `count`.
fn issued_before<T>(queue: &RefCell<Vec<(u64, T)>>, count: u64) -> Vec<(u64, T)> {
    let mut queue = queue.borrow_mut();
    let n = queue.iter().take_while(|(id, _)| *id < count).count();
    queue.drain(..n).collect()
}

impl Driver for WgpuDriver {
    type Stream = ();
    type Event = WgpuEvent;
    type Buffer = ResidentBuffer;
    type Host = Vec<u8>;
    type Registration = ();

    fn info(&self) -> GpuDeviceInfo {
        GpuDeviceInfo {
            index: 0,
            name: self.launcher.device_name(),
            // WebGPU reports no device memory or cache size (max_buffer_size is a per-buffer limit).
            total_memory: 0,
            l2_cache_size: 0,
            compute_capability: (0, 0),
            backend: Backend::WebGpu.into(),
        }
    }

    fn describe(&self) -> String {
        let warps = match self.device().warp_lowering() {
            WarpLowering::Emulated => "warps emulated".to_string(),
            WarpLowering::Subgroups { width } => format!("warps on {width}-lane subgroups"),
        };
        format!("{}, {warps}", self.launcher.describe())
    }

    fn backend(&self) -> Backend {
        Backend::WebGpu
    }

    fn load(&self, kernel: &Verified<'_>) -> Result<Loaded, GpuError> {
        Ok(self.launcher.load(kernel)?)
    }

    fn clock(&self) -> Clock {
        if self.timestamps.get() {
            Clock::WebGpuTimestamps
        } else {
            Clock::HostClock
        }
    }

    fn transfer_clock(&self) -> Clock {
        Clock::HostClock
    }

    fn uploads_read_when_queued(&self) -> bool {
        // `write_buffer` copies the bytes before it returns.
        true
    }

    fn stream(&self) -> Result<(), GpuError> {
        Ok(())
    }

    fn event(&self) -> Result<WgpuEvent, GpuError> {
        Ok(WgpuEvent::default())
    }

    fn alloc(&self, _: &(), bytes: usize) -> Result<ResidentBuffer, GpuError> {
        Ok(self.device().resident_buffer(bytes)?)
    }

    fn alloc_host(&self, bytes: usize, _: bool) -> Result<Vec<u8>, GpuError> {
        Ok(vec![0; bytes])
    }

    fn host<'h>(&self, host: &'h Vec<u8>) -> Result<&'h [u8], GpuError> {
        Ok(host)
    }

    fn host_mut<'h>(&self, host: &'h mut Vec<u8>) -> Result<&'h mut [u8], GpuError> {
        Ok(host)
    }

    unsafe fn register(&self, _: *mut u8, _: usize) -> Result<(), GpuError> {
        // WebGPU writes buffers from any host memory and maps its own readback buffers.
        Ok(())
    }

    fn upload_from(&self, _: &(), src: &[u8], dst: &mut ResidentBuffer) -> Result<(), GpuError> {
        self.check_lost()?;
        Ok(self.device().write_resident(dst, src)?)
    }

    fn download_into(&self, _: &(), src: &ResidentBuffer, dst: &mut [u8]) -> Result<(), GpuError> {
        self.check_lost()?;
        let len = dst.len();
        if len == 0 {
            return Ok(());
        }
        let queueing = Instant::now();
        let readback = self.device().read_resident(src, len);
        let waited = queueing.elapsed().as_nanos() as u64;
        self.queueing_ns.set(self.queueing_ns.get() + waited);
        let readback = readback?;
        // `synchronize` writes the `len` bytes at `dst` while the ring keeps them alive and holds no
        // reference into them (the contract of every driver's downloads).
        let at = dst.as_mut_ptr();
        let id = self.queued.get();
        self.queued.set(id + 1);
        self.pending
            .borrow_mut()
            .push((id, Pending { readback, dst: at }));
        Ok(())
    }

    fn launch(
        &self,
        _: &(),
        kernel: &Loaded,
        _name: &'static str,
        pages: usize,
        args: &mut [Arg<'_, ResidentBuffer>],
    ) -> Result<(), GpuError> {
        self.check_lost()?;
        let buffers: Vec<&ResidentBuffer> = args
            .iter()
            .map(|a| match a {
                Arg::In(b) => &**b,
                Arg::Out(b) | Arg::Scratch(b) => &**b,
            })
            .collect();
        let blocks = blocks_for(pages, Backend::WebGpu);
        let dispatch = self
            .launcher
            .submit_resident(kernel, blocks, &buffers, &[pages as u64])?;
        let id = self.launched.get();
        self.launched.set(id + 1);
        self.dispatches.borrow_mut().push((id, dispatch));
        self.last_launch.set(Some(id));
        Ok(())
    }

    fn record(&self, event: &WgpuEvent, _: &()) -> Result<(), GpuError> {
        event.at_ns.set(self.now_ns());
        event.downloads.set(self.queued.get());
        event.launches.set(self.launched.get());
        event.kernel.set(self.last_launch.take());
        Ok(())
    }

    fn wait(&self, _: &(), _: &WgpuEvent) -> Result<(), GpuError> {
        Ok(())
    }

    fn synchronize(&self, event: &WgpuEvent) -> Result<(), GpuError> {
        self.check_lost()?;
        // A failure marks the driver lost (see `lost`) after everything due was collected, rather
        // than leave the rest unwritten and unreported.
        let mut first_error = None;
        // First the kernels issued before the event: their times, and any error they hit. Waiting
        // for them is kernel time, so it is not added to the event.
        for (id, dispatch) in issued_before(&self.dispatches, event.launches.get()) {
            match self.device().finish_dispatch(dispatch) {
                Ok(time) => {
                    // From the first unusable reading on, every kernel time is the host clock's, as
                    // `clock()` then says.
                    if time.clock != Clock::WebGpuTimestamps {
                        self.timestamps.set(false);
                    }
                    let ns = if self.timestamps.get() {
                        time.ns
                    } else {
                        time.host_ns
                    };
                    self.kernel_times.borrow_mut().insert(id, ns);
                }
                Err(error) => {
                    first_error.get_or_insert(error);
                }
            }
        }
        // Then the downloads: the wait for their copies and the copy out count as download time.
        let start = Instant::now();
        for (_, p) in issued_before(&self.pending, event.downloads.get()) {
            let len = p.readback.len();
            // SAFETY: `download_into` took `p.dst` from a slice of the readback's `len` bytes (the
            // destination buffer's, or the caller's pages'), which the ring keeps alive, unmoved and unreferenced until an event recorded
            // after the download is synchronized (this call) or its stream drained; a previous call's
            // downloads never get here (`begin` forgets them).
            let dst = unsafe { std::slice::from_raw_parts_mut(p.dst, len) };
            if let Err(error) = self.device().finish_read(p.readback, dst) {
                first_error.get_or_insert(error);
            }
        }
        let spent = start.elapsed().as_nanos() as u64;
        event.at_ns.set(event.at_ns.get() + spent);
        match first_error {
            None => Ok(()),
            Some(error) => {
                self.lost
                    .borrow_mut()
                    .get_or_insert_with(|| format!("a download or kernel failed: {error}"));
                Err(error.into())
            }
        }
    }

    fn elapsed_ns(&self, from: &WgpuEvent, to: &WgpuEvent) -> Result<u64, GpuError> {
        if let Some(id) = to.kernel.get() {
            if !self.kernel_times.borrow().contains_key(&id) {
                // Asked before a synchronize collected it: collect it now.
                self.synchronize(to)?;
            }
            if let Some(ns) = self.kernel_times.borrow_mut().remove(&id) {
                return Ok(ns);
            }
        }
        Ok(to.at_ns.get().saturating_sub(from.at_ns.get()))
    }

    fn settle(&self) -> Result<(), GpuError> {
        Ok(self.device().wait_idle()?)
    }

    fn check(&self) -> Result<(), GpuError> {
        self.check_lost()?;
        Ok(self.device().health()?)
    }

    fn drain(&self, _: &()) {
        // After a failure: the queued downloads are abandoned (their destinations are not written).
        let _ = self.device().wait_idle();
        self.forget();
    }

    fn begin(&self) {
        self.forget();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::webgpu::skip_webgpu_test;

    fn driver(test: &str) -> Option<WgpuDriver> {
        let requirements = crate::auto::webgpu_requirements().expect("the kernels emit");
        match WebGpuDevice::new(&requirements) {
            Ok(device) => {
                Some(WgpuDriver::new(Launcher::WebGpu(device)).expect("a WebGPU launcher"))
            }
            Err(WebGpuError::NoAdapter) => {
                skip_webgpu_test(test, "no WebGPU adapter");
                None
            }
            Err(error) => panic!("{test}: opening a WebGPU device: {error}"),
        }
    }

    #[test]
    fn downloads_land_at_the_synchronize_and_a_new_call_forgets_stale_ones() {
        let test = "downloads_land_at_the_synchronize_and_a_new_call_forgets_stale_ones";
        let Some(d) = driver(test) else { return };
        let bytes: Vec<u8> = (0..64).collect();
        let mut buffer = d.alloc(&(), 64).expect("a buffer");
        d.upload(&(), &bytes, 0, 64, &mut buffer).expect("upload");
        let mut host = vec![0u8; 80];
        d.download_at(&(), &buffer, 60, &mut host, 20)
            .expect("queued");
        let event = d.event().expect("an event");
        d.record(&event, &()).expect("recorded");
        d.synchronize(&event).expect("collected");
        assert_eq!(host[20..], bytes[..60], "the bytes at their offset");
        assert!(host[..20].iter().all(|&b| b == 0), "nothing before it");
        // A download a call queued and never collected (it unwound) is forgotten, never written.
        let mut stale = vec![0xAA; 64];
        d.download_at(&(), &buffer, 64, &mut stale, 0)
            .expect("queued");
        d.begin();
        let event = d.event().expect("an event");
        d.record(&event, &()).expect("recorded");
        d.synchronize(&event).expect("nothing to collect");
        assert!(stale.iter().all(|&b| b == 0xAA), "a forgotten download");
        // Copies past either end are errors, not panics.
        assert!(d.download_at(&(), &buffer, 10, &mut host, 75).is_err());
        assert!(d.upload(&(), &host, 70, 20, &mut buffer).is_err());
        assert!(d.check().is_ok());
    }
}
