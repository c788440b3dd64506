//! Unit tests of the in-place paths: they skip the ring's host buffers, and, on a driver whose
//! downloads land late as a GPU's DMA may (`LateDownloads`), no download into the caller's or the
//! engine's pages lands after a call returned or unwound, and the ring waits for every buffer it
//! reads.

use std::cell::{Cell, RefCell};
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

/// `D`, except that a download lands only when an event recorded after it on its stream is
/// synchronized, or its stream drained, or the device settled; not when it is queued: what a GPU's
/// DMA may do. Stage C reading a buffer before waiting for the right event reads stale bytes, and a
/// download still pending when a call has returned lands in whatever the caller put there since.
/// (Uploads and launches still run when queued: a late upload is not modelled.)
struct LateDownloads<D: Driver> {
    inner: D,
    /// Streams made so far (each stream's id).
    streams: Cell<usize>,
    /// Downloads queued so far (each download's sequence number).
    queued: Cell<usize>,
    /// Pending downloads.
    pending: RefCell<Vec<Pending>>,
}

/// A download not landed yet: its stream, its sequence number, its bytes and where they go.
type Pending = (usize, usize, Vec<u8>, *mut u8);

/// A stream of [`LateDownloads`]: `D`'s, and an id.
#[derive(Clone)]
struct LateStream<S> {
    inner: S,
    id: usize,
}

/// An event of [`LateDownloads`]: `D`'s, and where it was last recorded (stream id, downloads
/// queued by then).
struct LateEvent<E> {
    inner: E,
    at: Cell<Option<(usize, usize)>>,
}

impl<D: Driver> LateDownloads<D> {
    fn new(inner: D) -> LateDownloads<D> {
        LateDownloads {
            inner,
            streams: Cell::new(0),
            queued: Cell::new(0),
            pending: RefCell::default(),
        }
    }

    /// Lands the pending downloads `which` selects (by stream and sequence number).
    fn land(&self, which: impl Fn(usize, usize) -> bool) {
        let mut pending = self.pending.borrow_mut();
        let (due, keep): (Vec<_>, Vec<_>) = pending.drain(..).partition(|d| which(d.0, d.1));
        *pending = keep;
        for (_, _, bytes, dst) in due {
            // SAFETY: `dst` addresses `bytes.len()` bytes of pages the test keeps alive until after
            // its last call into the driver (the pages outlive the engine's calls and this landing).
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len()) };
        }
    }

    /// Queues a download of `len` bytes of `src` to `dst` on `stream`.
    fn queue(
        &self,
        stream: &LateStream<D::Stream>,
        src: &D::Buffer,
        len: usize,
        dst: *mut u8,
    ) -> Result<(), GpuError> {
        let mut bytes = vec![0u8; len];
        self.inner.download_into(&stream.inner, src, &mut bytes)?;
        let seq = self.queued.get();
        self.queued.set(seq + 1);
        self.pending.borrow_mut().push((stream.id, seq, bytes, dst));
        Ok(())
    }
}

impl<D: Driver> Driver for LateDownloads<D> {
    type Stream = LateStream<D::Stream>;
    type Event = LateEvent<D::Event>;
    type Buffer = D::Buffer;
    type Host = D::Host;
    type Registration = D::Registration;

    fn info(&self) -> GpuDeviceInfo {
        self.inner.info()
    }
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn backend(&self) -> crate::runtime::Backend {
        self.inner.backend()
    }
    fn load(&self, kernel: &Verified<'_>) -> Result<Loaded, GpuError> {
        self.inner.load(kernel)
    }
    fn clock(&self) -> Clock {
        self.inner.clock()
    }
    fn transfer_clock(&self) -> Clock {
        self.inner.transfer_clock()
    }
    fn stream(&self) -> Result<Self::Stream, GpuError> {
        let id = self.streams.get();
        self.streams.set(id + 1);
        Ok(LateStream {
            inner: self.inner.stream()?,
            id,
        })
    }
    fn event(&self) -> Result<Self::Event, GpuError> {
        Ok(LateEvent {
            inner: self.inner.event()?,
            at: Cell::new(None),
        })
    }
    fn alloc(&self, stream: &Self::Stream, bytes: usize) -> Result<D::Buffer, GpuError> {
        self.inner.alloc(&stream.inner, bytes)
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
    unsafe fn register(&self, base: *mut u8, bytes: usize) -> Result<D::Registration, GpuError> {
        // SAFETY: the caller's contract, passed on.
        unsafe { self.inner.register(base, bytes) }
    }
    fn upload_from(
        &self,
        stream: &Self::Stream,
        src: &[u8],
        dst: &mut D::Buffer,
    ) -> Result<(), GpuError> {
        self.inner.upload_from(&stream.inner, src, dst)
    }
    fn download_into(
        &self,
        stream: &Self::Stream,
        src: &D::Buffer,
        dst: &mut [u8],
    ) -> Result<(), GpuError> {
        self.queue(stream, src, dst.len(), dst.as_mut_ptr())
    }
    fn launch(
        &self,
        stream: &Self::Stream,
        kernel: &Loaded,
        name: &'static str,
        pages: usize,
        args: &mut [Arg<'_, D::Buffer>],
    ) -> Result<(), GpuError> {
        self.inner.launch(&stream.inner, kernel, name, pages, args)
    }
    fn record(&self, event: &Self::Event, stream: &Self::Stream) -> Result<(), GpuError> {
        event.at.set(Some((stream.id, self.queued.get())));
        self.inner.record(&event.inner, &stream.inner)
    }
    fn wait(&self, stream: &Self::Stream, event: &Self::Event) -> Result<(), GpuError> {
        // Downloads go on the download streams, which no other stream waits for.
        self.inner.wait(&stream.inner, &event.inner)
    }
    fn synchronize(&self, event: &Self::Event) -> Result<(), GpuError> {
        if let Some((stream, by)) = event.at.get() {
            self.land(|s, seq| s == stream && seq < by);
        }
        self.inner.synchronize(&event.inner)
    }
    fn elapsed_ns(&self, from: &Self::Event, to: &Self::Event) -> Result<u64, GpuError> {
        self.inner.elapsed_ns(&from.inner, &to.inner)
    }
    fn settle(&self) -> Result<(), GpuError> {
        self.land(|_, _| true);
        self.inner.settle()
    }
    fn check(&self) -> Result<(), GpuError> {
        self.inner.check()
    }
    fn drain(&self, stream: &Self::Stream) {
        self.land(|s, _| s == stream.id);
        self.inner.drain(&stream.inner)
    }
    fn begin(&self) {
        self.inner.begin()
    }
}

fn late_engine<D: Driver>(driver: D) -> RingEngine<LateDownloads<D>> {
    // Three slots: a batch's download is still pending when a later batch starts (and fails).
    let config = GpuBatchConfig {
        batch_size: 8,
        ring_buffer_slots: 3,
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
