//! `RegisteredPages`: the caller's own pages registered with a compressor's device. Compressing from
//! them and decoding into them gives the reference's records and the pages, every record kind, on
//! the CUDA host pipeline over the simulator and the PTX simulator, on the replay driver, on the
//! simulator backend (which registers nothing), on WebGPU (lavapipe in CI) and on CUDA (on a GPU
//! machine); another compressor takes them as ordinary memory; a malformed record is named by index;
//! a chunk that fails mid-ring is redone on the CPU into the same pages. (That no download lands in
//! them after a call failed or unwound is checked in `lz4/src/gpu/registered_tests.rs`, on a driver
//! whose downloads land late.)

use std::sync::Arc;

use crate::common::{self, record_kinds as kinds};

use warpforge::archive::{PackedRecords, Record};
use warpforge::codec::{PageCodec, ReferenceCodec};
use warpforge::gpu::{
    gpu_available, GpuBackend, GpuBatchCompressor, GpuBatchConfig, GpuError, PageOutput,
    RegisteredPages, Registration, ReplayTape,
};
use warpforge::kernels::lz4::pages::{page, PageKind};
use warpforge::runtime::sim::SimOptions;
use warpforge::runtime::Launcher;
use warpforge::PAGE_SIZE;

type Page = [u8; PAGE_SIZE];

fn pages(n: usize) -> Vec<Page> {
    common::mixed_pages(n, 5, 11)
}

fn config(batch_size: usize) -> GpuBatchConfig {
    common::batch_config(batch_size)
}

/// Compresses `pages` from registered memory three ways and decodes the records into registered
/// memory, checking each against the reference; `in_place` is what the registration must say.
fn round_trip(gpu: &mut GpuBatchCompressor, pages: &[Page], in_place: bool, name: &str) {
    let want = ReferenceCodec::default()
        .compress(pages)
        .expect("reference");
    assert!(kinds(&want).iter().all(|&n| n > 0), "{:?}", kinds(&want));
    let mut input = pages.to_vec();
    let registered = gpu.register(&mut input).expect("registers");
    assert_eq!(registered.in_place(), in_place, "{name}: {registered:?}");
    assert_eq!(
        gpu.compress_batch(&registered)
            .expect("compress_batch")
            .pages,
        want,
        "{name}: compress_batch of registered pages"
    );
    let mut packed = PackedRecords::default();
    gpu.compress_into(&registered, &mut packed)
        .expect("compress_into");
    assert_eq!(packed.to_records(), want, "{name}: compress_into");
    drop(registered);

    // Decoded into registered pages that start out as something else: every page is written.
    let mut output = vec![[0xa5u8; PAGE_SIZE]; pages.len()];
    let mut out = gpu.register(&mut output).expect("registers");
    gpu.decompress_into(&want, &mut out)
        .expect("decodes into registered pages");
    assert!(*out == *pages, "{name}: decoded from owned records");
    out.iter_mut().for_each(|p| p.fill(0x5a));
    gpu.decompress_into(&packed, &mut out)
        .expect("decodes packed records");
    assert!(*out == *pages, "{name}: decoded from packed records");
    // The caller writes its registered pages between calls, and the next call sees what it wrote.
    out[3] = page(PageKind::Zero, 0);
    let again = gpu.compress_batch(&out).expect("compress_batch").pages;
    assert_eq!(again[..3], want[..3], "{name}");
    assert_eq!(again[3], Record::SameFilled(0), "{name}");
    assert_eq!(again[4..], want[4..], "{name}");
    drop(out);
    assert_eq!(output, pages, "{name}: the pages stay the caller's");
    assert_eq!(
        gpu.stats().cpu_fallback_pages,
        0,
        "{name}: {:?}",
        gpu.stats().last_failure
    );
}

#[test]
fn registered_pages_round_trip_in_place_on_the_cuda_host_pipeline() {
    let pages = pages(70);
    for launcher in common::cpu_launchers() {
        let name = format!("{:?}", launcher.backend());
        let mut gpu =
            GpuBatchCompressor::cuda_pipeline_on(config(16), launcher).expect("no device needed");
        round_trip(&mut gpu, &pages, true, &name);
    }
    let level = config(16).algorithm.lz4_level();
    let mut replay =
        GpuBatchCompressor::replaying(config(16), ReplayTape::new(level)).expect("no device");
    round_trip(&mut replay, &pages, true, "replay driver (recording)");
}

#[test]
fn the_simulator_backend_and_other_compressors_take_registered_pages_as_ordinary_memory() {
    let pages = pages(40);
    let mut sim = GpuBatchCompressor::with_backend(config(16), GpuBackend::Sim).expect("sim");
    round_trip(&mut sim, &pages, false, "simulator backend");

    let want = ReferenceCodec::default()
        .compress(&pages)
        .expect("reference");
    let launcher = || Launcher::Sim(SimOptions::default());
    let mut owner = GpuBatchCompressor::cuda_pipeline_on(config(16), launcher()).expect("opens");
    let mut other = GpuBatchCompressor::cuda_pipeline_on(config(16), launcher()).expect("opens");
    let mut input = pages.clone();
    let registered = owner.register(&mut input).expect("registers");
    assert_eq!(
        other.compress_batch(&registered).expect("compress").pages,
        want
    );
    drop(registered);
    let mut output = vec![[0u8; PAGE_SIZE]; pages.len()];
    let mut out = owner.register(&mut output).expect("registers");
    other.decompress_into(&want, &mut out).expect("decodes");
    assert!(*out == *pages);
    // No pages: nothing registered, and the calls still work.
    let mut none: Vec<Page> = Vec::new();
    let empty = owner.register(&mut none).expect("nothing to register");
    assert!(!empty.in_place());
    assert!(owner
        .compress_batch(&empty)
        .expect("empty")
        .pages
        .is_empty());
}

#[test]
fn a_malformed_record_decoded_into_registered_pages_is_named() {
    let pages = pages(40);
    let mut records = ReferenceCodec::default()
        .compress(&pages)
        .expect("reference");
    let lz4 = records
        .iter()
        .rposition(|r| matches!(r, Record::Lz4(_)))
        .expect("an LZ4 record");
    records[lz4] = Record::Lz4(vec![0x04, 0x00, 0x05, 0x00]); // a match before the page's start
    let launcher = Launcher::Sim(SimOptions::default());
    let mut gpu = GpuBatchCompressor::cuda_pipeline_on(config(16), launcher).expect("opens");
    let mut output = vec![[0u8; PAGE_SIZE]; pages.len()];
    let mut out = gpu.register(&mut output).expect("registers");
    match gpu.decompress_into(&records, &mut out) {
        Err(GpuError::Corrupt { page, .. }) => assert_eq!(page, lz4),
        other => panic!("a malformed block: {other:?}"),
    }
    // A length mismatch is a configuration error, not a partial write.
    match gpu.decompress_into(&&records[1..], &mut out) {
        Err(GpuError::Config(why)) => assert!(why.contains("39 records for 40"), "{why}"),
        other => panic!("a length mismatch: {other:?}"),
    }
}

/// The replay driver refuses a launch that is not the recorded one (here the last, shorter chunk of a
/// call on one page fewer): that chunk and at most the ring's chunks in flight are redone on the CPU,
/// from and into the registered pages, after the ring drains.
#[test]
fn a_failed_chunk_in_place_is_redone_on_the_cpu() {
    let batch = 8;
    let pages = pages(80);
    let n = pages.len() - 1;
    let slots = config(batch).ring_buffer_slots;
    let level = config(batch).algorithm.lz4_level();
    let want = ReferenceCodec::default()
        .compress(&pages)
        .expect("reference");
    let fell_back = |p: u64| p > 0 && p as usize <= slots * batch && (p as usize) < n;
    let fell_back_pages = |p: usize| fell_back(p as u64);

    let tape = ReplayTape::new(level);
    let mut gpu =
        GpuBatchCompressor::replaying(config(batch), Arc::clone(&tape)).expect("no device");
    let mut input = pages.clone();
    let registered = gpu.register(&mut input).expect("registers");
    assert_eq!(
        gpu.compress_batch(&registered).expect("recorded").pages,
        want
    );
    drop(registered);
    tape.replay();
    tape.rewind();
    let registered = gpu.register(&mut input[..n]).expect("registers");
    let result = gpu.compress_batch(&registered).expect("redone on the CPU");
    assert_eq!(result.pages, want[..n], "no record is lost or changed");
    assert!(fell_back_pages(result.cpu_fallback_pages), "{result:?}");
    drop(registered);

    let tape = ReplayTape::new(level);
    let mut gpu =
        GpuBatchCompressor::replaying(config(batch), Arc::clone(&tape)).expect("no device");
    let mut output = vec![[0u8; PAGE_SIZE]; pages.len()];
    let mut out = gpu.register(&mut output).expect("registers");
    gpu.decompress_into(&want, &mut out).expect("recorded");
    assert!(*out == *pages);
    drop(out);
    tape.replay();
    tape.rewind();
    output.iter_mut().for_each(|p| p.fill(0xee));
    let mut out = gpu.register(&mut output[..n]).expect("registers");
    gpu.decompress_into(&&want[..n], &mut out)
        .expect("redone on the CPU");
    assert!(*out == pages[..n]);
    assert!(
        fell_back(gpu.stats().cpu_fallback_pages),
        "{:?}",
        gpu.stats()
    );
}

#[test]
fn registered_pages_round_trip_on_webgpu() {
    if !common::adapter_or_skip("registered_pages_round_trip_on_webgpu") {
        return;
    }
    let mut gpu =
        GpuBatchCompressor::with_backend(config(32), GpuBackend::WebGpu).expect("WebGPU opens");
    round_trip(&mut gpu, &pages(90), true, "WebGPU");
}

/// On a GPU machine: the pages are page-locked in place (`cuMemHostRegister`) and the copies read and
/// write them there. Skips loudly elsewhere.
#[test]
fn registered_pages_round_trip_on_cuda() {
    if warpforge::runtime::cuda::cuda_or_skip("registered_pages_round_trip_on_cuda").is_none() {
        return;
    }
    assert!(gpu_available());
    let mut gpu = GpuBatchCompressor::new(config(64)).expect("CUDA opens");
    round_trip(&mut gpu, &pages(300), true, "CUDA");
    // Dropping a registration unregisters the memory: the same pages register again.
    let mut mine = pages(64);
    for _ in 0..2 {
        let registered = gpu.register(&mut mine).expect("registers (again)");
        assert!(registered.in_place());
        drop(registered);
    }
}

/// An output whose registered pages are not the pages it writes (a `PageOutput` written by a
/// caller): refused before anything is queued.
struct Mismatched<'a> {
    registered: RegisteredPages<'a>,
    pages: Vec<Page>,
}

impl PageOutput for Mismatched<'_> {
    fn pages_mut(&mut self) -> &mut [Page] {
        &mut self.pages
    }

    fn registered_mut(&mut self) -> Option<(&Registration, &mut [Page])> {
        self.registered.registered_mut()
    }
}

#[test]
fn an_output_whose_registered_pages_are_not_its_pages_is_refused() {
    let pages = pages(48);
    let want = ReferenceCodec::default()
        .compress(&pages)
        .expect("reference");
    let launcher = Launcher::Sim(SimOptions::default());
    let mut gpu = GpuBatchCompressor::cuda_pipeline_on(config(8), launcher).expect("opens");
    let mut ten = vec![[0u8; PAGE_SIZE]; 10];
    let mut output = Mismatched {
        registered: gpu.register(&mut ten).expect("registers"),
        pages: vec![[0u8; PAGE_SIZE]; pages.len()],
    };
    match gpu.decompress_into(&want, &mut output) {
        Err(GpuError::Config(why)) => {
            assert!(why.contains("10 registered pages for 48"), "{why}")
        }
        other => panic!("a mismatched output: {other:?}"),
    }
    drop(output);
    // The compressor and its registrations still work.
    let mut out = vec![[0u8; PAGE_SIZE]; pages.len()];
    let mut registered = gpu.register(&mut out).expect("registers");
    gpu.decompress_into(&want, &mut registered)
        .expect("decodes");
    assert!(*registered == *pages);
    assert_eq!(gpu.stats().cpu_fallback_pages, 0);
}
