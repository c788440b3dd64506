//! Unit tests of the in-place paths: they skip the ring's host buffers, and, on a driver that runs
//! every copy and launch as late as a GPU may (`Lazy`), no download into the caller's or the
//! engine's pages lands after a call returned or unwound, and the ring waits for every buffer it
//! reads.

use std::sync::Arc;

use super::super::driver::Driver;
use super::super::driver_replay::{ReplayDriver, ReplayTape};
use super::super::driver_sim::LaunchDriver;
use super::super::engine::Engine;
use super::super::lazy_driver::Lazy;
use super::super::records_out::RecordsOut;
use super::super::ring_state::RingEngine;
use super::super::{GpuBatchConfig, GpuError};
use crate::archive::Record;
use crate::archive::{RecordRef, Records};
use crate::kernel_io::reference;
use crate::kernels::lz4::pages::{page, PageKind};
use crate::runtime::Launcher;
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

/// `compress_registered` of `pages` (batches of 8) into fresh owned records; every chunk must
/// succeed.
fn compress_registered_ok<D: Driver>(
    engine: &mut RingEngine<D>,
    pages: &[crate::kernel_io::Page],
    registration: &super::super::Registration,
) -> Vec<Record> {
    let mut records: Vec<Record> = vec![Record::SameFilled(1); pages.len()];
    let outcomes =
        engine.compress_registered(pages, registration, 8, &mut RecordsOut::Owned(&mut records));
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    records
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
    let mut records = compress_registered_ok(&mut engine, &pages, &registration);
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

/// Where the driver's uploads read their source before returning (WebGPU's `write_buffer`),
/// ordinary pages are uploaded from where they are too, with no copy into the ring's host buffers;
/// where they do not (CUDA, and the drivers that stand in for it), they are staged first.
#[test]
fn ordinary_pages_are_uploaded_in_place_where_uploads_read_when_queued() {
    let pages = mixed_pages(20);
    let want = reference::compress(&pages, crate::kernels::lz4::Lz4Level::DEFAULT);
    let config = GpuBatchConfig {
        batch_size: 8,
        ..GpuBatchConfig::default()
    };
    let driver = LaunchDriver::new(Launcher::Sim(Default::default())).reading_uploads_when_queued();
    let mut engine = RingEngine::new(driver, &config).expect("no device needed");
    let mut records: Vec<Record> = vec![Record::SameFilled(1); pages.len()];
    let outcomes = engine.compress_chunks(&pages, 8, &mut RecordsOut::Owned(&mut records));
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    assert_eq!(records, want);
    assert!(
        !touched(&engine, |s| &s.input),
        "ordinary pages were staged"
    );
    // Another engine's host pages are ordinary memory here: in place as well.
    let mut other = new_engine();
    let mut host = other.host_pages(pages.len()).expect("host pages");
    host.copy_from_slice(&pages);
    records.iter_mut().for_each(|r| *r = Record::SameFilled(1));
    let outcomes = engine.compress_host(&host, 8, &mut RecordsOut::Owned(&mut records));
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    assert_eq!(records, want);
    assert!(
        !touched(&engine, |s| &s.input),
        "another engine's pages were staged"
    );
    // CUDA's answer: staged.
    let mut cuda_like = new_engine();
    records.iter_mut().for_each(|r| *r = Record::SameFilled(1));
    cuda_like.compress_chunks(&pages, 8, &mut RecordsOut::Owned(&mut records));
    assert_eq!(records, want);
    assert!(
        touched(&cuda_like, |s| &s.input),
        "ordinary pages are staged"
    );
}

fn late_engine<D: Driver>(driver: D) -> RingEngine<Lazy<D>> {
    // Three slots: a batch's download is still pending when a later batch starts (and fails).
    let config = GpuBatchConfig {
        batch_size: 8,
        ring_buffer_slots: 3,
        ..GpuBatchConfig::default()
    };
    RingEngine::new(Lazy::new(driver), &config).expect("no device needed")
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

/// A launch refused mid-ring (the last chunk's decode, refused when queued, as `cuLaunchKernel` may
/// refuse one, while the two chunks before it still wait to run and download): the call returns
/// only after their downloads have landed, so the caller's CPU redo, and anything else it writes, is
/// not overwritten later.
#[test]
fn no_download_lands_in_registered_pages_after_a_failed_call_returned() {
    let pages = mixed_pages(80);
    let want = reference::compress(&pages, crate::kernels::lz4::Lz4Level::DEFAULT);
    let mut engine = late_engine(LaunchDriver::new(Launcher::Sim(Default::default())));
    let mut out = vec![[0u8; PAGE_SIZE]; pages.len()];
    // SAFETY: `out` outlives the registration (dropped at the end of the test, after it).
    let registration = unsafe { engine.register(&mut out) }.expect("registers");
    // Ten chunks of 8 pages, one decode launch each (every page goes to the kernel).
    engine.driver.refuse_launch(9);
    let outcomes = engine.decompress_registered(&&want[..], 8, &mut out, &registration);
    assert!(
        outcomes[9].is_err(),
        "the refused chunk fails: {outcomes:?}"
    );
    assert!(
        outcomes[..7].iter().all(|o| matches!(o, Ok(Ok(())))),
        "{outcomes:?}"
    );
    assert_eq!(
        engine.driver.pending(),
        0,
        "work queued before the failure is still queued after the call returned"
    );
    out.iter_mut().for_each(|p| p.fill(0x77));
    engine.driver.settle().expect("settles");
    assert!(
        out.iter().all(|p| p.iter().all(|&b| b == 0x77)),
        "a download queued before the failure landed after the call returned"
    );
    drop(registration);
}

/// With every copy and launch running only when something the host waits for depends on it, each
/// path still gives the reference's records and the pages, and leaves nothing queued: the ring waits
/// for every buffer before it reads or rewrites it, and each stream waits for what it consumes.
#[test]
fn the_ring_waits_for_every_copy_and_launch_it_depends_on() {
    let mut pages = mixed_pages(44);
    let want = reference::compress(&pages, crate::kernels::lz4::Lz4Level::DEFAULT);
    let mut engine = late_engine(LaunchDriver::new(Launcher::Sim(Default::default())));
    let mut records: Vec<Record> = vec![Record::SameFilled(1); pages.len()];
    let idle = |engine: &RingEngine<Lazy<LaunchDriver>>, path: &str| {
        assert_eq!(engine.driver.pending(), 0, "{path} left work queued");
    };
    let ok = |outcomes: &[Result<crate::runtime::Timings, GpuError>]| {
        assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}")
    };
    ok(&engine.compress_chunks(&pages, 8, &mut RecordsOut::Owned(&mut records)));
    assert_eq!(records, want, "compress_chunks");
    idle(&engine, "compress_chunks");
    engine
        .staging(pages.len())
        .expect("staging")
        .copy_from_slice(pages.as_flattened());
    records.iter_mut().for_each(|r| *r = Record::SameFilled(1));
    ok(&engine.compress_staged(pages.len(), 8, &mut RecordsOut::Owned(&mut records)));
    assert_eq!(records, want, "compress_staged");
    idle(&engine, "compress_staged");
    // SAFETY: `pages` outlives the registration (dropped below, before the pages).
    let registration = unsafe { engine.register(&mut pages) }.expect("registers");
    let registered = compress_registered_ok(&mut engine, &pages, &registration);
    drop(registration);
    assert_eq!(registered, want, "compress_registered");
    idle(&engine, "compress_registered");
    let mut host = engine.host_pages(pages.len()).expect("host pages");
    host.copy_from_slice(&pages);
    records.iter_mut().for_each(|r| *r = Record::SameFilled(1));
    ok(&engine.compress_host(&host, 8, &mut RecordsOut::Owned(&mut records)));
    assert_eq!(records, want, "compress_host");
    idle(&engine, "compress_host");
    let decoded = |outcomes: &[crate::gpu::engine::DecodeOutcome]| {
        assert!(
            outcomes.iter().all(|o| matches!(o, Ok(Ok(())))),
            "{outcomes:?}"
        )
    };
    let mut out = vec![[0u8; PAGE_SIZE]; pages.len()];
    decoded(&engine.decompress_chunks(&&want[..], 8, &mut out));
    assert_eq!(out, pages, "decompress_chunks");
    idle(&engine, "decompress_chunks");
    out.iter_mut().for_each(|p| p.fill(0));
    // SAFETY: `out` outlives the registration (dropped below, before it).
    let registration = unsafe { engine.register(&mut out) }.expect("registers");
    decoded(&engine.decompress_registered(&&want[..], 8, &mut out, &registration));
    drop(registration);
    assert_eq!(out, pages, "decompress_registered");
    idle(&engine, "decompress_registered");
    host.iter_mut().for_each(|p| p.fill(0));
    decoded(&engine.decompress_host(&&want[..], 8, &mut host));
    assert_eq!(*host, *pages, "decompress_host");
    idle(&engine, "decompress_host");
    // A panic mid-ring into the engine's own pages: nothing lands after the call unwound either.
    let bad = PanicsAt {
        records: &want,
        from: 20,
    };
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        engine.decompress_host(&bad, 8, &mut host)
    }));
    assert!(caught.is_err(), "the panic propagates");
    idle(&engine, "an unwound decompress_host");
    host.iter_mut().for_each(|p| p.fill(0x77));
    engine.driver.settle().expect("settles");
    assert!(
        host.iter().all(|p| p.iter().all(|&b| b == 0x77)),
        "a download into host pages landed after the call unwound"
    );
}

/// A compress chunk the device fails mid-ring (the replay driver refuses the last, shorter chunk):
/// the call returns with no upload from the caller's registered pages still queued, so the caller
/// may write or free them.
#[test]
fn no_upload_from_registered_pages_is_queued_after_a_failed_compress_returned() {
    let mut pages = mixed_pages(80);
    let want = reference::compress(&pages, crate::kernels::lz4::Lz4Level::DEFAULT);
    let tape = ReplayTape::new(crate::kernels::lz4::Lz4Level::DEFAULT);
    let mut engine = late_engine(ReplayDriver::new(Arc::clone(&tape)));
    // SAFETY: `pages` outlives the registration (dropped at the end of the test, after it).
    let registration = unsafe { engine.register(&mut pages) }.expect("registers");
    let mut records = compress_registered_ok(&mut engine, &pages, &registration);
    assert_eq!(records, want, "recorded");
    tape.replay();
    tape.rewind();
    let n = pages.len() - 1;
    let outcomes = engine.compress_registered(
        &pages[..n],
        &registration,
        8,
        &mut RecordsOut::Owned(&mut records),
    );
    assert!(
        outcomes.iter().any(Result::is_err),
        "the shorter chunk fails"
    );
    assert_eq!(
        engine.driver.pending(),
        0,
        "work queued before the failure is still queued after the call returned"
    );
    drop(registration);
}
