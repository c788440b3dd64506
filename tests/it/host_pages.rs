//! `HostPages`: the compressor's own (on CUDA page-locked) pages. `decompress_batch` writes into them
//! and, on the CUDA engine, sends every page to the decode kernel (raw and same-filled pages as LZ4
//! blocks) so the decoded batch downloads straight into them: that path decodes every record kind on
//! the simulator and the PTX simulator (sm_70/80/90) without a CPU fallback, reports malformed pages
//! by index, and reuses the memory a dropped result gave back; `compress_batch` of them equals
//! `compress_batch` of the same pages in a `Vec`, from this compressor or another; a chunk that fails
//! mid-ring on either path is redone on the CPU with the chunks in flight.

use std::sync::Arc;

use crate::common::{self, record_kinds as kinds};

use warpforge::archive::Record;
use warpforge::codec::{PageCodec, ReferenceCodec};
use warpforge::gpu::{GpuBatchCompressor, GpuBatchConfig, GpuError, ReplayTape};
use warpforge::runtime::sim::SimOptions;
use warpforge::runtime::Launcher;
use warpforge::PAGE_SIZE;

type Page = [u8; PAGE_SIZE];

fn pages(n: usize) -> Vec<Page> {
    common::mixed_pages(n, 7, 3)
}

fn config(batch_size: usize) -> GpuBatchConfig {
    common::batch_config(batch_size)
}

#[test]
fn decompress_batch_sends_every_page_kind_through_the_kernel_on_sim_and_ptx_sim() {
    let pages = pages(60);
    let records = ReferenceCodec::default()
        .compress(&pages)
        .expect("reference");
    assert!(
        kinds(&records).iter().all(|&n| n > 0),
        "{:?}",
        kinds(&records)
    );
    for launcher in common::cpu_launchers() {
        let name = format!("{:?}", launcher.backend());
        let mut gpu =
            GpuBatchCompressor::cuda_pipeline_on(config(16), launcher).expect("no device needed");
        let back = gpu.decompress_batch(&records).expect("decodes");
        assert_eq!(back, pages, "{name}");
        assert_eq!(
            gpu.stats().cpu_fallback_pages,
            0,
            "{name}: every chunk decoded by the kernel ({:?})",
            gpu.stats().last_failure
        );
    }
}

#[test]
fn decompress_batch_names_the_malformed_page() {
    let pages = pages(40);
    let mut records = ReferenceCodec::default()
        .compress(&pages)
        .expect("reference");
    let lz4 = records
        .iter()
        .position(|r| matches!(r, Record::Lz4(_)))
        .expect("an LZ4 record");
    let launcher = Launcher::Sim(SimOptions::default());
    let mut gpu = GpuBatchCompressor::cuda_pipeline_on(config(16), launcher).expect("opens");
    // Too long for any page: refused on the host (its place in the batch still holds a block).
    let mut too_long = records.clone();
    too_long[21] = Record::Lz4(vec![0xf0; 6000]);
    match gpu.decompress_batch(&too_long) {
        Err(GpuError::Corrupt { page, detail }) => {
            assert_eq!(page, 21);
            assert!(detail.contains("longer than any block"), "{detail}");
        }
        other => panic!("a too-long block: {other:?}"),
    }
    // A block the kernel rejects (a match before the start of the page).
    records[lz4] = Record::Lz4(vec![0x04, 0x00, 0x05, 0x00]);
    match gpu.decompress_batch(&records) {
        Err(GpuError::Corrupt { page, .. }) => assert_eq!(page, lz4),
        other => panic!("a malformed block: {other:?}"),
    }
    assert_eq!(gpu.stats().cpu_fallback_pages, 0);
}

#[test]
fn host_pages_are_reused_and_compress_like_a_vec() {
    let pages = pages(100);
    let tape = ReplayTape::new(config(32).algorithm.lz4_level());
    let mut gpu = GpuBatchCompressor::replaying(config(32), Arc::clone(&tape)).expect("no device");
    let from_vec = gpu.compress_batch(&pages).expect("compress_batch").pages;
    let mut input = gpu.host_pages(pages.len()).expect("host pages");
    input.copy_from_slice(&pages);
    assert_eq!(
        gpu.compress_batch(&input).expect("compress_batch").pages,
        from_vec
    );
    let back = gpu.decompress_batch(&from_vec).expect("decodes");
    assert_eq!(back, pages);
    let addr = back.as_ptr();
    drop(back);
    let again = gpu.decompress_batch(&from_vec).expect("decodes");
    assert_eq!(
        again.as_ptr(),
        addr,
        "the dropped result's memory is reused"
    );
    assert_eq!(again.to_vec(), pages);
    drop(again);
    gpu.release_host_pages(); // the pool emptied: the next call allocates, and still decodes
    assert_eq!(gpu.decompress_batch(&from_vec).expect("decodes"), pages);
    // Another compressor's pages are ordinary memory to this one: staged by a copy, same records.
    let level = config(32).algorithm.lz4_level();
    let mut other =
        GpuBatchCompressor::replaying(config(32), ReplayTape::new(level)).expect("no device");
    let mut foreign = other.host_pages(pages.len()).expect("host pages");
    foreign.copy_from_slice(&pages);
    assert_eq!(
        gpu.compress_batch(&foreign).expect("compress_batch").pages,
        from_vec
    );
    assert_eq!(gpu.stats().cpu_fallback_pages, 0);
    assert!(gpu.host_pages(0).expect("no pages").is_empty());
}

#[test]
fn latency_round_trips_go_through_host_pages_on_the_cuda_host_pipeline() {
    use warpforge::gpu::latency::round_trips;
    let pages = pages(16);
    let want = ReferenceCodec::default()
        .compress(&pages)
        .expect("reference");
    let launcher = Launcher::Sim(SimOptions::default());
    let mut gpu = GpuBatchCompressor::cuda_pipeline_on(config(8), launcher).expect("opens");
    let trips = round_trips(&mut gpu, &pages, &want, 2).expect("two checked round trips");
    assert_eq!(trips.pages, 16);
    assert_eq!((trips.compress_ms.len(), trips.decompress_ms.len()), (2, 2));
    assert_eq!(trips.cpu_fallbacks, 0);
    // A wrong reference is caught, not timed past.
    let mut wrong = want.clone();
    wrong[3] = Record::SameFilled(7);
    assert!(round_trips(&mut gpu, &pages, &wrong, 1).is_err());
}

/// A chunk the device fails mid-ring on the host-pages paths (here the replay driver refuses a launch
/// that does not match its tape: the last, shorter chunk) is redone on the CPU, with the chunks still
/// in flight, after the ring drains: `compress_batch` of host pages gives the reference's records and
/// `decompress_batch` the pages, the earlier chunks still from the device.
#[test]
fn a_failed_chunk_on_the_host_pages_paths_is_redone_on_the_cpu() {
    let pages = pages(80); // ten chunks of 8 pages
    let n = pages.len() - 1; // the replayed calls' last chunk has 7 pages: not the recorded launch
    let batch = 8;
    let slots = config(batch).ring_buffer_slots;
    let level = config(batch).algorithm.lz4_level();
    let want = ReferenceCodec::default()
        .compress(&pages)
        .expect("reference");
    // At most the ring's chunks in flight fall back, and not all of them.
    let fell_back = |pages: usize| pages > 0 && pages <= slots * batch && pages < n;

    let tape = ReplayTape::new(level);
    let mut gpu =
        GpuBatchCompressor::replaying(config(batch), Arc::clone(&tape)).expect("no device");
    let mut input = gpu.host_pages(pages.len()).expect("host pages");
    input.copy_from_slice(&pages);
    assert_eq!(gpu.compress_batch(&input).expect("recorded").pages, want);
    tape.replay();
    tape.rewind();
    let mut shorter = gpu.host_pages(n).expect("host pages");
    shorter.copy_from_slice(&pages[..n]);
    let result = gpu.compress_batch(&shorter).expect("redone on the CPU");
    assert_eq!(result.pages, want[..n], "no record is lost or changed");
    assert!(
        fell_back(result.cpu_fallback_pages),
        "{}",
        result.cpu_fallback_pages
    );
    let why = gpu.stats().last_failure.clone().expect("a failure");
    assert!(why.contains("replay"), "{why}");

    // The decode path: its own tape, recorded on all pages, replayed on one page fewer.
    let tape = ReplayTape::new(level);
    let mut gpu =
        GpuBatchCompressor::replaying(config(batch), Arc::clone(&tape)).expect("no device");
    assert_eq!(gpu.decompress_batch(&want).expect("recorded"), pages);
    tape.replay();
    tape.rewind();
    let back = gpu.decompress_batch(&want[..n]).expect("redone on the CPU");
    assert_eq!(back, pages[..n]);
    let redone = gpu.stats().cpu_fallback_pages as usize;
    assert!(fell_back(redone), "{redone}");
    drop(back);
    // The pool still serves the next call, and a matching replay needs no CPU.
    tape.rewind();
    assert_eq!(gpu.decompress_batch(&want).expect("replayed"), pages);
    assert_eq!(gpu.stats().cpu_fallback_pages as usize, redone);
}
