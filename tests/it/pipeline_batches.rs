//! The file pipeline's batches (`pipeline::compress_file` / `decompress_file`): each codec fed its
//! batch size, the read a batch ahead and the CRCs beside the work, packed and owned records giving
//! the same archive, and failures in a later batch (a corrupted page, a page file that shrinks
//! mid-run) named by their page with no output left behind.

use std::path::PathBuf;

use indicatif::ProgressBar;
use warpforge::codec::{Backend, BatchCodec, PageCodec, ReferenceCodec};
use warpforge::gpu::{GpuBackend, GpuBatchCompressor, GpuBatchConfig};
use warpforge::kernels::lz4::pages::{page, PageKind};
use warpforge::pipeline::{compress_file, decompress_file};

use crate::archive::{page_file, round_trip, TempDir};

/// The reference codec in batches of `batch` pages, recording each call's page count in `calls`.
/// With `truncate`, its first compress call cuts that file to that many pages, as another process
/// shrinking the input mid-run would.
struct SmallBatches {
    batch: usize,
    calls: Vec<usize>,
    truncate: Option<(PathBuf, u64)>,
}

impl SmallBatches {
    fn of(batch: usize) -> SmallBatches {
        SmallBatches {
            batch,
            calls: Vec::new(),
            truncate: None,
        }
    }
}

impl PageCodec for SmallBatches {
    fn backend(&self) -> Backend {
        Backend::Reference
    }
    fn batch_pages(&self) -> usize {
        self.batch
    }
    fn compress(
        &mut self,
        pages: &[warpforge::codec::Page],
    ) -> anyhow::Result<Vec<warpforge::archive::Record>> {
        self.calls.push(pages.len());
        if let Some((path, to)) = self.truncate.take() {
            let file = std::fs::OpenOptions::new().write(true).open(path)?;
            file.set_len(to * warpforge::PAGE_SIZE as u64)?;
        }
        ReferenceCodec::default().compress(pages)
    }
    fn decompress(
        &mut self,
        records: &[warpforge::archive::Record],
        out: &mut [warpforge::codec::Page],
    ) -> anyhow::Result<Result<(), warpforge::codec::DecodeError>> {
        self.calls.push(records.len());
        ReferenceCodec::default().decompress(records, out)
    }
}

/// Each record's page index and byte offset in `archive` (header 20 bytes; kinds 0 LZ4, 1 raw, 2
/// same-filled).
fn record_offsets(archive: &[u8], pages: usize) -> Vec<usize> {
    let mut at = 20;
    (0..pages)
        .map(|_| {
            let start = at;
            at += match archive[at] {
                0 => 5 + u32::from_le_bytes(archive[at + 1..at + 5].try_into().unwrap()) as usize,
                1 => 1 + warpforge::PAGE_SIZE,
                2 => 9,
                kind => panic!("record kind {kind} at byte {at}"),
            };
            start
        })
        .collect()
}

/// The pages' checksums are checked beside the writes (on another thread): a page that decodes
/// but does not match its checksum, in a later batch than the first, still fails the run with its
/// own index and leaves no output.
#[test]
fn a_checksum_failure_in_a_later_batch_names_its_page_and_leaves_no_output() {
    let dir = TempDir::new("crc-batches");
    let pages = dir.path("in.pages");
    let original = page_file(&pages, 3);
    let count = original.len() / warpforge::PAGE_SIZE;
    let archive_path = dir.path("a.wfpa");
    compress_file(
        &pages,
        &archive_path,
        &mut SmallBatches::of(7),
        &ProgressBar::hidden(),
    )
    .expect("compresses");
    let archive = std::fs::read(&archive_path).expect("read");
    // The last LZ4 record whose block starts with 1–14 literals (no length byte), past the first
    // batch.
    let offsets = record_offsets(&archive, count);
    let (index, at) = offsets
        .iter()
        .enumerate()
        .rev()
        .find(|&(i, &at)| i >= 7 && archive[at] == 0 && (1..15).contains(&(archive[at + 5] >> 4)))
        .map(|(i, &at)| (i, at))
        .expect("an LZ4 record with literals after page 7");
    let mut bad = archive.clone();
    bad[at + 6] ^= 0x5a; // its first literal: the block still decodes, to another page
    let path = dir.path("bad.wfpa");
    std::fs::write(&path, &bad).expect("write");
    let out = dir.path("bad.pages");
    let err = decompress_file(
        &path,
        &out,
        &mut SmallBatches::of(7),
        &ProgressBar::hidden(),
    )
    .expect_err("a page that fails its checksum fails the run")
    .to_string();
    assert!(
        err.contains(&format!("page {index}:")) && err.contains("checksum"),
        "page {index} of {count}: {err}"
    );
    assert!(!out.exists() && !dir.path("bad.pages.partial").exists());
    // The untouched archive still decodes to the pages, across the same batches.
    decompress_file(
        &archive_path,
        &out,
        &mut SmallBatches::of(7),
        &ProgressBar::hidden(),
    )
    .expect("decompresses");
    assert_eq!(std::fs::read(&out).expect("read"), original);
}

/// A page file that shrinks while it is compressed (another process truncates it) fails the run
/// with the first page that could not be read, though the pages are read a batch ahead on another
/// thread, and leaves no archive behind.
#[test]
fn a_page_file_that_shrinks_during_the_run_names_the_first_unread_page() {
    let dir = TempDir::new("shrinking");
    let pages = dir.path("in.pages");
    // 600 pages (2.4 MiB): more than the reader's 1 MiB buffer holds, so pages past 256 are read
    // from the file after the first batch has truncated it.
    let bytes: Vec<u8> = (0..600u64).flat_map(|s| page(PageKind::Text, s)).collect();
    std::fs::write(&pages, &bytes).expect("write pages");
    let archive = dir.path("a.wfpa");
    let mut codec = SmallBatches {
        truncate: Some((pages.clone(), 450)),
        ..SmallBatches::of(100)
    };
    let err = compress_file(&pages, &archive, &mut codec, &ProgressBar::hidden())
        .expect_err("a file cut short fails the run")
        .to_string();
    assert!(err.contains("read failed at page 450"), "{err}");
    assert!(!archive.exists() && !dir.path("a.wfpa.partial").exists());
}

/// Page files of 0 pages, 1 page, exactly one and two batches, and two batches and one page round
/// trip through the pipeline (which reads a batch ahead), each batch handed over whole and in order.
#[test]
fn empty_single_page_and_whole_batch_page_files_round_trip() {
    let dir = TempDir::new("batch-edges");
    for count in [0usize, 1, 7, 14, 15] {
        let pages = dir.path("in.pages");
        let original: Vec<u8> = (0..count as u64)
            .flat_map(|s| page(PageKind::Text, s))
            .collect();
        std::fs::write(&pages, &original).expect("write pages");
        let (archive, back) = (dir.path("a.wfpa"), dir.path("back.pages"));
        let mut codec = SmallBatches::of(7);
        let summary = compress_file(&pages, &archive, &mut codec, &ProgressBar::hidden())
            .unwrap_or_else(|e| panic!("{count} pages: {e:#}"));
        assert_eq!(summary.pages, count as u64);
        decompress_file(&archive, &back, &mut codec, &ProgressBar::hidden())
            .unwrap_or_else(|e| panic!("{count} pages: {e:#}"));
        assert_eq!(
            std::fs::read(&back).expect("read"),
            original,
            "{count} pages"
        );
        let batches: Vec<usize> = (0..count).step_by(7).map(|i| 7.min(count - i)).collect();
        assert_eq!(
            codec.calls,
            [&batches[..], &batches[..]].concat(),
            "{count} pages"
        );
    }
}

/// A codec that gives out host pages but has no packed path of its own goes through
/// `PageCodec::compress_host_packed`'s default (its owned records, packed), and writes the same
/// archive as the batch codec's packed path and the reference.
#[test]
fn a_codec_with_host_pages_and_no_packed_path_writes_the_same_archive() {
    /// The batch codec without its `compress_host_packed`.
    struct Forwarding(BatchCodec);
    impl PageCodec for Forwarding {
        fn backend(&self) -> Backend {
            self.0.backend()
        }
        fn batch_pages(&self) -> usize {
            self.0.batch_pages()
        }
        fn compress(
            &mut self,
            pages: &[warpforge::codec::Page],
        ) -> anyhow::Result<Vec<warpforge::archive::Record>> {
            self.0.compress(pages)
        }
        fn decompress(
            &mut self,
            records: &[warpforge::archive::Record],
            out: &mut [warpforge::codec::Page],
        ) -> anyhow::Result<Result<(), warpforge::codec::DecodeError>> {
            self.0.decompress(records, out)
        }
        fn host_pages(&mut self, pages: usize) -> Option<warpforge::gpu::HostPages> {
            self.0.host_pages(pages)
        }
        fn compress_host(
            &mut self,
            pages: &warpforge::gpu::HostPages,
        ) -> anyhow::Result<Vec<warpforge::archive::Record>> {
            self.0.compress_host(pages)
        }
    }
    let dir = TempDir::new("packed-default");
    let pages = dir.path("in.pages");
    let original = page_file(&pages, 1);
    let reference = round_trip(&mut ReferenceCodec::default(), &dir, &pages, &original);
    let sim = || {
        let config = GpuBatchConfig {
            batch_size: 4,
            ..GpuBatchConfig::default()
        };
        BatchCodec::with_compressor(
            GpuBatchCompressor::with_backend(config, GpuBackend::Sim).expect("a sim compressor"),
        )
    };
    for (name, codec) in [
        ("the batch codec", &mut sim() as &mut dyn PageCodec),
        ("the default packed path", &mut Forwarding(sim())),
    ] {
        let archive = dir.path("packed.wfpa");
        compress_file(&pages, &archive, codec, &ProgressBar::hidden()).expect("compresses");
        assert_eq!(std::fs::read(&archive).expect("read"), reference, "{name}");
        assert_eq!(codec.cpu_fallback_pages(), 0, "{name}");
    }
}

/// The streaming pipeline hands a codec as many pages per call as it asks for (a CUDA ring needs
/// `slots × batch_size` to overlap), in order, and both directions still round-trip.
#[test]
fn the_pipeline_feeds_each_codec_its_batch_size() {
    let dir = TempDir::new("batching");
    let pages = dir.path("in.pages");
    let original = page_file(&pages, 3);
    let count = original.len() / warpforge::PAGE_SIZE;
    let mut codec = SmallBatches::of(7);
    let archive = round_trip(&mut codec, &dir, &pages, &original);
    let mut expected: Vec<usize> = (0..count).step_by(7).map(|i| 7.min(count - i)).collect();
    assert!(expected.len() > 1, "{count} pages make several calls");
    expected.extend(expected.clone());
    assert_eq!(codec.calls, expected, "compress, then decompress");
    assert_eq!(
        archive,
        round_trip(&mut ReferenceCodec::default(), &dir, &pages, &original)
    );
}
