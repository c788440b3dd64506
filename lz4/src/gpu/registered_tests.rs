//! Unit tests of the in-place paths: they skip the ring's host buffers, and, on a driver whose
//! downloads land late as a GPU's DMA may (`LateDownloads`), no download into the caller's or the
//! engine's pages lands after a call returned or unwound, and the ring waits for every buffer it
//! reads.

use std::cell::RefCell;
use std::sync::Arc;

use warpforge_ir::Verified;

use super::super::driver::{Arg, Driver};
use super::super::driver_replay::{ReplayDriver, ReplayTape};
use super::super::driver_sim::LaunchDriver;
use super::super::engine::Engine;
use super::super::records_out::RecordsOut;
use super::super::ring_state::RingEngine;
use super::super::{GpuBatchConfig, GpuDeviceInfo, GpuError};
use crate::archive::Record;
use crate::archive::{RecordRef, Records};
use crate::kernel_io::reference;
use crate::kernels::lz4::pages::{page, PageKind};
use crate::runtime::{Clock, Launcher, Loaded};
use crate::PAGE_SIZE;

fn new_engine() -> RingEngine<LaunchDriver> {
    let config = GpuBatchConfig {
        batch_size: 8,
        ..GpuBatchConfig::default()
    };
    let launcher = Launcher::Sim(Default::default());
    RingEngine::new(LaunchDriver::new(launcher), &config).expect("no device needed")
}

/// Whether any slot's `buffer` holds a nonzero byte (every host buffer starts zeroed).
fn touched(
    engine: &RingEngine<LaunchDriver>,
    buffer: fn(&super::super::ring_state::Slot<LaunchDriver>) -> &Vec<u8>,
) -> bool {
    engine
        .slots
        .iter()
        .any(|s| buffer(s).iter().any(|&b| b != 0))
}

/// The in-place paths really skip the ring's host buffers: registered pages are uploaded from
/// where they are (no slot's input buffer is written) and decoded straight into (no slot's output
/// buffer is written), while the same calls on unregistered pages go through both.
#[test]
fn registered_pages_bypass_the_rings_host_buffers() {
    let mut pages: Vec<[u8; PAGE_SIZE]> = PageKind::ALL
        .iter()
        .cycle()
        .take(20)
        .enumerate()
        .map(|(i, k)| page(*k, i as u64 + 1))
        .collect();
    let want = reference::compress(&pages, crate::kernels::lz4::Lz4Level::DEFAULT);
    let mut engine = new_engine();
    // SAFETY: `pages` outlives the registration (dropped at the end of the test, after it).
    let registration = unsafe { engine.register(&mut pages) }.expect("registers");
    let mut records: Vec<Record> = vec![Record::SameFilled(1); pages.len()];
    let outcomes = engine.compress_registered(
        &pages,
        &registration,
        8,
        &mut RecordsOut::Owned(&mut records),
    );
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    assert_eq!(records, want);
    assert!(
        !touched(&engine, |s| &s.input),
        "registered pages were staged"
    );
    engine.compress_chunks(&pages, 8, &mut RecordsOut::Owned(&mut records));
    assert_eq!(records, want);
    assert!(touched(&engine, |s| &s.input), "ordinary pages are staged");
    // Pages another engine registered are ordinary memory here: staged by a copy.
    let mut other = new_engine();
    other.compress_registered(
        &pages,
        &registration,
        8,
        &mut RecordsOut::Owned(&mut records),
    );
    assert_eq!(records, want);
    assert!(
        touched(&other, |s| &s.input),
        "another engine's registration was used"
    );

    let mut engine = new_engine();
    let mut out = vec![[0u8; PAGE_SIZE]; pages.len()];
    // SAFETY: `out` outlives the registration (declared before it).
    let registration = unsafe { engine.register(&mut out) }.expect("registers");
    let outcomes = engine.decompress_registered(&&want[..], 8, &mut out, &registration);
    assert!(
        outcomes.iter().all(|o| matches!(o, Ok(Ok(())))),
        "{outcomes:?}"
    );
    assert_eq!(out, pages);
    assert!(
        !touched(&engine, |s| &s.out),
        "decoded pages went through the slots"
    );
    out.iter_mut().for_each(|p| p.fill(0));
    engine.decompress_chunks(&&want[..], 8, &mut out);
    assert_eq!(out, pages);
    assert!(
        touched(&engine, |s| &s.out),
        "ordinary pages are copied out of the slots"
    );
    drop(registration);
}

/// `D`, except that every download (into the ring's buffers, the engine's host pages or the
/// caller's registered pages) lands only when the driver is next synchronized, drained or settled,
/// not when it is queued: what a GPU's DMA may do. Stage C reading a buffer before waiting for it
/// reads stale bytes, and a download still pending when a call has returned lands in whatever the
/// caller put there since.
struct LateDownloads<D: Driver> {
    inner: D,
    pending: RefCell<Vec<(Vec<u8>, *mut u8)>>,
}

impl<D: Driver> LateDownloads<D> {
    fn new(inner: D) -> LateDownloads<D> {
        LateDownloads {
            inner,
            pending: RefCell::default(),
        }
    }

    /// Lands every pending download.
    fn land(&self) {
        for (bytes, dst) in self.pending.borrow_mut().drain(..) {
            // SAFETY: `dst` addresses `bytes.len()` bytes of pages the test keeps alive until after
            // its last call into the driver (the pages outlive the engine's calls and this landing).
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len()) };
        }
    }
}

impl<D: Driver> Driver for LateDownloads<D> {
    type Stream = D::Stream;
    type Event = D::Event;
    type Buffer = D::Buffer;
    type Host = D::Host;
    type Registration = D::Registration;

    fn info(&self) -> GpuDeviceInfo {
        self.inner.info()
    }
    fn load(&self, kernel: &Verified<'_>) -> Result<Loaded, GpuError> {
        self.inner.load(kernel)
    }
    fn clock(&self) -> Clock {
        self.inner.clock()
    }
    fn stream(&self) -> Result<D::Stream, GpuError> {
        self.inner.stream()
    }
    fn event(&self) -> Result<D::Event, GpuError> {
        self.inner.event()
    }
    fn alloc(&self, stream: &D::Stream, bytes: usize) -> Result<D::Buffer, GpuError> {
        self.inner.alloc(stream, bytes)
    }
    fn alloc_host(&self, bytes: usize, host_reads: bool) -> Result<D::Host, GpuError> {
        self.inner.alloc_host(bytes, host_reads)
    }
    fn host<'h>(&self, host: &'h D::Host) -> Result<&'h [u8], GpuError> {
        self.inner.host(host)
    }
    fn host_mut<'h>(&self, host: &'h mut D::Host) -> Result<&'h mut [u8], GpuError> {
        self.inner.host_mut(host)
    }
    fn upload(
        &self,
        stream: &D::Stream,
        src: &D::Host,
        offset: usize,
        len: usize,
        dst: &mut D::Buffer,
    ) -> Result<(), GpuError> {
        self.inner.upload(stream, src, offset, len, dst)
    }
    unsafe fn register(&self, base: *mut u8, bytes: usize) -> Result<D::Registration, GpuError> {
        // SAFETY: the caller's contract, passed on.
        unsafe { self.inner.register(base, bytes) }
    }
    fn upload_from(
        &self,
        stream: &D::Stream,
        src: &[u8],
        dst: &mut D::Buffer,
    ) -> Result<(), GpuError> {
        self.inner.upload_from(stream, src, dst)
    }
    fn download_into(
        &self,
        stream: &D::Stream,
        src: &D::Buffer,
        dst: &mut [u8],
    ) -> Result<(), GpuError> {
        let mut bytes = vec![0u8; dst.len()];
        self.inner.download_into(stream, src, &mut bytes)?;
        self.pending.borrow_mut().push((bytes, dst.as_mut_ptr()));
        Ok(())
    }
    fn download_at(
        &self,
        stream: &D::Stream,
        src: &D::Buffer,
        len: usize,
        dst: &mut D::Host,
        offset: usize,
    ) -> Result<(), GpuError> {
        let host = self.inner.host_mut(dst)?;
        let size = host.len();
        let Some(dst) = offset
            .checked_add(len)
            .and_then(|end| host.get_mut(offset..end))
        else {
            return Err(GpuError::Config(format!(
                "a download of {len} bytes to byte {offset} of a {size}-byte host buffer"
            )));
        };
        self.download_into(stream, src, dst)
    }
    fn launch(
        &self,
        stream: &D::Stream,
        kernel: &Loaded,
        name: &'static str,
        pages: usize,
        args: &mut [Arg<'_, D::Buffer>],
    ) -> Result<(), GpuError> {
        self.inner.launch(stream, kernel, name, pages, args)
    }
    fn record(&self, event: &D::Event, stream: &D::Stream) -> Result<(), GpuError> {
        self.inner.record(event, stream)
    }
    fn wait(&self, stream: &D::Stream, event: &D::Event) -> Result<(), GpuError> {
        self.inner.wait(stream, event)
    }
    fn synchronize(&self, event: &D::Event) -> Result<(), GpuError> {
        self.land();
        self.inner.synchronize(event)
    }
    fn elapsed_ns(&self, from: &D::Event, to: &D::Event) -> Result<u64, GpuError> {
        self.inner.elapsed_ns(from, to)
    }
    fn settle(&self) -> Result<(), GpuError> {
        self.land();
        self.inner.settle()
    }
    fn check(&self) -> Result<(), GpuError> {
        self.inner.check()
    }
    fn drain(&self, stream: &D::Stream) {
        self.land();
        self.inner.drain(stream)
    }
}

fn late_engine<D: Driver>(driver: D) -> RingEngine<LateDownloads<D>> {
    let config = GpuBatchConfig {
        batch_size: 8,
        ..GpuBatchConfig::default()
    };
    RingEngine::new(LateDownloads::new(driver), &config).expect("no device needed")
}

fn mixed_pages(n: usize) -> Vec<[u8; PAGE_SIZE]> {
    PageKind::ALL
        .iter()
        .cycle()
        .take(n)
        .enumerate()
        .map(|(i, k)| page(*k, i as u64 + 5))
        .collect()
}

/// Records that panic from record `from` on (a caller's `Records` with a bug).
struct PanicsAt<'a> {
    records: &'a [Record],
    from: usize,
}

impl Records for PanicsAt<'_> {
    fn count(&self) -> usize {
        self.records.len()
    }

    fn record(&self, i: usize) -> RecordRef<'_> {
        assert!(i < self.from, "record {i}: a bug in the caller's Records");
        self.records.record(i)
    }
}

/// A panic mid-ring (in the third batch's gathering, the first two batches' downloads queued) unwinds
/// out of `decompress_registered` only after those downloads have landed: what the caller writes into
/// its pages afterwards stays there.
#[test]
fn no_download_lands_in_registered_pages_after_a_call_unwound() {
    let pages = mixed_pages(40);
    let want = reference::compress(&pages, crate::kernels::lz4::Lz4Level::DEFAULT);
    let mut engine = late_engine(LaunchDriver::new(Launcher::Sim(Default::default())));
    let mut out = vec![[0u8; PAGE_SIZE]; pages.len()];
    // SAFETY: `out` outlives the registration (dropped at the end of the test, after it).
    let registration = unsafe { engine.register(&mut out) }.expect("registers");
    let bad = PanicsAt {
        records: &want,
        from: 20,
    };
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        engine.decompress_registered(&bad, 8, &mut out, &registration)
    }));
    assert!(caught.is_err(), "the panic propagates");
    // The caller's pages are its own again: it writes them, and a later call's waits land nothing.
    out.iter_mut().for_each(|p| p.fill(0x77));
    engine.driver.settle().expect("settles");
    assert!(
        out.iter().all(|p| p.iter().all(|&b| b == 0x77)),
        "a download queued before the panic landed after the call unwound"
    );
    // The engine decodes the next call in full.
    let outcomes = engine.decompress_registered(&&want[..], 8, &mut out, &registration);
    assert!(
        outcomes.iter().all(|o| matches!(o, Ok(Ok(())))),
        "{outcomes:?}"
    );
    assert_eq!(out, pages);
    drop(registration);
}

/// A chunk the device fails mid-ring (the replay driver refuses the last, shorter chunk of a call on
/// one page fewer than it recorded): the call returns only after the other chunks' downloads have
/// landed, so the caller's CPU redo, and anything else it writes, is not overwritten later.
#[test]
fn no_download_lands_in_registered_pages_after_a_failed_call_returned() {
    let pages = mixed_pages(80);
    let want = reference::compress(&pages, crate::kernels::lz4::Lz4Level::DEFAULT);
    let tape = ReplayTape::new(crate::kernels::lz4::Lz4Level::DEFAULT);
    let mut engine = late_engine(ReplayDriver::new(Arc::clone(&tape)));
    let mut out = vec![[0u8; PAGE_SIZE]; pages.len()];
    // SAFETY: `out` outlives the registration (dropped at the end of the test, after it).
    let registration = unsafe { engine.register(&mut out) }.expect("registers");
    let outcomes = engine.decompress_registered(&&want[..], 8, &mut out, &registration);
    assert!(
        outcomes.iter().all(|o| matches!(o, Ok(Ok(())))),
        "recorded: {outcomes:?}"
    );
    assert_eq!(out, pages);
    tape.replay();
    tape.rewind();
    let n = pages.len() - 1;
    out.iter_mut().for_each(|p| p.fill(0));
    let outcomes = engine.decompress_registered(&&want[..n], 8, &mut out[..n], &registration);
    assert!(
        outcomes.iter().any(Result::is_err),
        "the shorter chunk fails"
    );
    out.iter_mut().for_each(|p| p.fill(0x77));
    engine.driver.settle().expect("settles");
    assert!(
        out.iter().all(|p| p.iter().all(|&b| b == 0x77)),
        "a download queued before the failure landed after the call returned"
    );
    drop(registration);
}

/// With every download landing only when waited for, each path still gives the reference's records
/// and the pages: the ring waits for every buffer before it reads it.
#[test]
fn the_ring_waits_for_every_download_it_reads() {
    let mut pages = mixed_pages(44);
    let want = reference::compress(&pages, crate::kernels::lz4::Lz4Level::DEFAULT);
    let mut engine = late_engine(LaunchDriver::new(Launcher::Sim(Default::default())));
    let mut records: Vec<Record> = vec![Record::SameFilled(1); pages.len()];
    let ok = |outcomes: &[Result<crate::runtime::Timings, GpuError>]| {
        assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}")
    };
    ok(&engine.compress_chunks(&pages, 8, &mut RecordsOut::Owned(&mut records)));
    assert_eq!(records, want, "compress_chunks");
    // SAFETY: `pages` outlives the registration (dropped below, before the pages).
    let registration = unsafe { engine.register(&mut pages) }.expect("registers");
    records.iter_mut().for_each(|r| *r = Record::SameFilled(1));
    ok(&engine.compress_registered(
        &pages,
        &registration,
        8,
        &mut RecordsOut::Owned(&mut records),
    ));
    drop(registration);
    assert_eq!(records, want, "compress_registered");
    let decoded = |outcomes: &[crate::gpu::engine::DecodeOutcome]| {
        assert!(
            outcomes.iter().all(|o| matches!(o, Ok(Ok(())))),
            "{outcomes:?}"
        )
    };
    let mut out = vec![[0u8; PAGE_SIZE]; pages.len()];
    decoded(&engine.decompress_chunks(&&want[..], 8, &mut out));
    assert_eq!(out, pages, "decompress_chunks");
    let mut host = engine.host_pages(pages.len()).expect("host pages");
    decoded(&engine.decompress_host(&&want[..], 8, &mut host));
    assert_eq!(*host, *pages, "decompress_host");
    // A panic mid-ring into the engine's own pages: nothing lands after the call unwound either.
    let bad = PanicsAt {
        records: &want,
        from: 20,
    };
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        engine.decompress_host(&bad, 8, &mut host)
    }));
    assert!(caught.is_err(), "the panic propagates");
    host.iter_mut().for_each(|p| p.fill(0x77));
    engine.driver.settle().expect("settles");
    assert!(
        host.iter().all(|p| p.iter().all(|&b| b == 0x77)),
        "a download into host pages landed after the call unwound"
    );
}
