//! The CUDA engine's host pipeline on the replay driver (no GPU): records equal the CPU reference's,
//! the replayed run equals the recorded one and round-trips, the packed and staged APIs agree with
//! the owned one, a replay that does not match the tape is a CPU fallback rather than wrong pages,
//! and malformed input is an error naming its page.

use std::sync::Arc;

use warpforge::archive::{PackedRecords, Record, RecordRef};
use warpforge::codec::{PageCodec, ReferenceCodec};
use warpforge::gpu::{GpuBackend, GpuBatchCompressor, GpuBatchConfig, GpuError, ReplayTape};
use warpforge::kernels::lz4::pages::{page, PageKind};
use warpforge::sample_pages;
use warpforge::PAGE_SIZE;

type Page = [u8; PAGE_SIZE];

/// Real sample pages plus every synthetic kind (raw, same-filled and LZ4 pages), 203 in all: not a
/// multiple of the batch, so the last chunk is partial.
fn test_pages() -> Vec<Page> {
    let mut pages = sample_pages().expect("the embedded sample pages decode");
    pages.truncate(180);
    for (i, kind) in PageKind::ALL.iter().cycle().take(23).enumerate() {
        pages.push(page(*kind, i as u64 + 7));
    }
    pages
}

/// Small batches and a 3-slot ring, so a call runs many chunks through the ring.
fn config() -> GpuBatchConfig {
    GpuBatchConfig {
        batch_size: 32,
        ..GpuBatchConfig::default()
    }
}

fn replaying() -> (GpuBatchCompressor, Arc<ReplayTape>) {
    let tape = ReplayTape::new(config().algorithm.lz4_level());
    let gpu = GpuBatchCompressor::replaying(config(), Arc::clone(&tape)).expect("no device needed");
    (gpu, tape)
}

#[test]
fn the_replayed_pipeline_round_trips_and_equals_the_reference() {
    let pages = test_pages();
    let expected = ReferenceCodec::default()
        .compress(&pages)
        .expect("reference");
    let kinds = crate::common::record_kinds;
    assert!(
        kinds(&expected).iter().all(|&n| n > 0),
        "every record kind is exercised: {:?}",
        kinds(&expected)
    );
    let (mut gpu, tape) = replaying();

    // Recording: the kernels' outputs computed on the CPU.
    let mut recorded = PackedRecords::new();
    gpu.compress_into(&pages, &mut recorded)
        .expect("recorded compression");
    assert_eq!(recorded.to_records(), expected);
    let mut decoded = vec![[0u8; PAGE_SIZE]; pages.len()];
    gpu.decompress_into(&recorded, &mut decoded)
        .expect("recorded decompression");
    assert_eq!(decoded, pages);
    let launches = tape.launches();
    // 7 chunks: compress + compact each, and one decode each.
    assert_eq!(launches, 7 * 3, "launches recorded");

    // Replay, twice: the same records, every output page written again.
    tape.replay();
    for _ in 0..2 {
        tape.rewind();
        let device_before = tape.device_ns();
        let mut replayed = PackedRecords::new();
        gpu.compress_into(&pages, &mut replayed)
            .expect("replayed compression");
        assert_eq!(replayed, recorded);
        decoded.iter_mut().for_each(|p| p.fill(0x5a));
        gpu.decompress_into(&replayed, &mut decoded)
            .expect("replayed decompression");
        assert_eq!(decoded, pages);
        assert!(tape.device_ns() > device_before, "device work is timed");
    }
    assert_eq!(tape.launches(), launches, "replay records nothing");
    assert_eq!(gpu.stats().cpu_fallback_pages, 0);

    // compress_batch from pages in ordinary memory replays the same launches.
    tape.rewind();
    let owned = gpu.compress_batch(&pages).expect("compress_batch");
    assert_eq!(owned.pages, expected);
    assert_eq!(gpu.stats().cpu_fallback_pages, 0);

    // decompress_batch sends every page to the kernel (its output downloads straight into the
    // compressor's pages): other launches, recorded and replayed on a tape of their own.
    let (mut owned_gpu, owned_tape) = replaying();
    let mut input = owned_gpu.host_pages(pages.len()).expect("host pages");
    input.copy_from_slice(&pages);
    let records = owned_gpu
        .compress_batch(&input)
        .expect("compress_batch")
        .pages;
    assert_eq!(records, expected);
    assert_eq!(owned_gpu.decompress_batch(&records).expect("decode"), pages);
    owned_tape.replay();
    for _ in 0..2 {
        owned_tape.rewind();
        let replayed = owned_gpu.compress_batch(&input).expect("replayed");
        assert_eq!(replayed.pages, expected);
        let back = owned_gpu
            .decompress_batch(&records)
            .expect("replayed decode");
        assert_eq!(back, pages);
    }
    assert_eq!(owned_gpu.stats().cpu_fallback_pages, 0);
}

#[test]
fn a_replay_that_does_not_match_the_tape_falls_back_to_the_cpu() {
    let pages = test_pages();
    let (mut gpu, tape) = replaying();
    let mut packed = PackedRecords::new();
    gpu.compress_into(&pages, &mut packed).expect("recorded");
    tape.replay();
    // Fewer pages than recorded: the first chunk's launch is still the recorded one, the last
    // (partial) chunk's page count is not.
    let shorter = &pages[..pages.len() - 1];
    let times = gpu
        .compress_into(shorter, &mut packed)
        .expect("redone on the CPU");
    assert!(times.cpu_fallback_pages > 0);
    let why = gpu.stats().last_failure.clone().expect("a failure");
    assert!(why.contains("replay"), "{why}");
    let expected = ReferenceCodec::default()
        .compress(shorter)
        .expect("reference");
    assert_eq!(packed.to_records(), expected, "no page is lost");
}

#[test]
fn staged_pages_compress_like_the_callers_pages() {
    let pages = test_pages();
    let (mut gpu, _tape) = replaying();
    let mut direct = PackedRecords::new();
    gpu.compress_into(&pages, &mut direct)
        .expect("compress_into");
    let staging = gpu.staging_pages(pages.len()).expect("staging pages");
    assert_eq!(staging.len(), pages.len() * PAGE_SIZE);
    staging.copy_from_slice(pages.as_flattened());
    let mut staged = PackedRecords::new();
    gpu.compress_staged(pages.len(), &mut staged)
        .expect("compress_staged");
    assert_eq!(staged, direct);
    assert!(gpu.staging_pages(0).expect("no pages").is_empty());
    gpu.compress_staged(0, &mut staged).expect("no pages");
    assert!(staged.is_empty());
    match gpu.compress_staged(pages.len() + 1, &mut staged) {
        Err(GpuError::Config(why)) => assert!(why.contains("staged"), "{why}"),
        other => panic!("more pages than staged: {other:?}"),
    }
    assert_eq!(gpu.stats().cpu_fallback_pages, 0);
}

#[test]
fn malformed_input_is_an_error_naming_its_page() {
    let pages = test_pages();
    let (mut gpu, _tape) = replaying();
    let mut packed = PackedRecords::new();
    gpu.compress_into(&pages, &mut packed)
        .expect("compress_into");
    // A block longer than any block of one page is refused on the host, never uploaded.
    let mut records = packed.to_records();
    records[40] = Record::Lz4(vec![0xf0; 6000]);
    let mut out = vec![[0u8; PAGE_SIZE]; pages.len()];
    match gpu.decompress_into(&records, &mut out) {
        Err(GpuError::Corrupt { page, detail }) => {
            assert_eq!(page, 40);
            assert!(detail.contains("longer than any block"), "{detail}");
        }
        other => panic!("a too-long block: {other:?}"),
    }
    match gpu.decompress_into(&records, &mut out[1..]) {
        Err(GpuError::Config(why)) => assert!(why.contains("records for"), "{why}"),
        other => panic!("a length mismatch: {other:?}"),
    }
}

#[test]
fn the_packed_api_on_the_simulator_matches_the_reference() {
    let pages: Vec<Page> = PageKind::ALL
        .iter()
        .enumerate()
        .map(|(i, kind)| page(*kind, i as u64))
        .collect();
    let mut gpu = GpuBatchCompressor::with_backend(config(), GpuBackend::Sim).expect("simulator");
    let mut packed = PackedRecords::new();
    gpu.compress_into(&pages, &mut packed)
        .expect("compress_into");
    let expected = ReferenceCodec::default()
        .compress(&pages)
        .expect("reference");
    assert_eq!(packed.to_records(), expected);
    gpu.staging_pages(pages.len())
        .expect("staging")
        .copy_from_slice(pages.as_flattened());
    let mut staged = PackedRecords::new();
    gpu.compress_staged(pages.len(), &mut staged)
        .expect("staged");
    assert_eq!(staged, packed);
    let mut out = vec![[0u8; PAGE_SIZE]; pages.len()];
    gpu.decompress_into(&packed, &mut out)
        .expect("decompress_into");
    assert_eq!(out, pages);
    assert!(packed.iter().any(|r| matches!(r, RecordRef::Raw(_))));
}

#[test]
fn large_batches_gather_their_blocks_in_parallel_parts() {
    // 1024-page batches of about 1 KiB blocks: each batch's gather is cut into several parts.
    let pages: Vec<Page> = test_pages().into_iter().cycle().take(2500).collect();
    let config = GpuBatchConfig {
        batch_size: 1024,
        ..GpuBatchConfig::default()
    };
    let tape = ReplayTape::new(config.algorithm.lz4_level());
    let mut gpu = GpuBatchCompressor::replaying(config, Arc::clone(&tape)).expect("no device");
    let mut packed = PackedRecords::new();
    gpu.compress_into(&pages, &mut packed)
        .expect("compress_into");
    let block_bytes: usize = packed
        .iter()
        .map(|r| match r {
            RecordRef::Lz4(b) => b.len(),
            _ => 0,
        })
        .sum();
    assert!(
        block_bytes / 3 > 2 * (256 << 10),
        "each batch holds more than two gather parts: {block_bytes} bytes of blocks"
    );
    let mut out = vec![[0u8; PAGE_SIZE]; pages.len()];
    gpu.decompress_into(&packed, &mut out)
        .expect("decompress_into");
    assert_eq!(out, pages);
    tape.replay();
    out.iter_mut().for_each(|p| p.fill(1));
    gpu.compress_into(&pages, &mut packed).expect("replayed");
    gpu.decompress_into(&packed, &mut out).expect("replayed");
    assert_eq!(out, pages);
    assert_eq!(gpu.stats().cpu_fallback_pages, 0);
}
