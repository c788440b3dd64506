//! `warpforge compress` / `decompress` and the page archive: round trips on every backend, identical
//! archives from `reference` and `webgpu`, and hostile archives (truncated, corrupted) rejected with the
//! page named and no output left behind.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use indicatif::ProgressBar;
use warpforge::codec::{
    open, Backend, BatchCodec, CpuCodec, KernelCodec, PageCodec, ReferenceCodec,
};
use warpforge::gpu::{GpuBackend, GpuBatchCompressor, GpuBatchConfig};
use warpforge::kernels::lz4::pages::{page, PageKind};
use warpforge::pipeline::{compress_file, decompress_file};

pub(crate) struct TempDir(PathBuf);

impl TempDir {
    pub(crate) fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("warpforge-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempDir(dir)
    }
    pub(crate) fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Every page kind, several seeds: a small page file with all record kinds.
pub(crate) fn page_file(path: &Path, per_kind: u64) -> Vec<u8> {
    let bytes: Vec<u8> = PageKind::ALL
        .iter()
        .flat_map(|&k| (0..per_kind).flat_map(move |s| page(k, s)))
        .collect();
    std::fs::write(path, &bytes).expect("write pages");
    bytes
}

pub(crate) fn round_trip(
    codec: &mut dyn PageCodec,
    dir: &TempDir,
    pages: &Path,
    original: &[u8],
) -> Vec<u8> {
    let name = codec.backend().to_string();
    let archive = dir.path(&format!("{name}.wfpa"));
    let summary =
        compress_file(pages, &archive, codec, &ProgressBar::hidden()).expect("compresses");
    assert_eq!(summary.page_bytes, original.len() as u64);
    assert!(
        summary.kinds.iter().all(|&k| k > 0),
        "{name}: every record kind appears: {:?}",
        summary.kinds
    );
    let back = dir.path(&format!("{name}.pages"));
    decompress_file(&archive, &back, codec, &ProgressBar::hidden()).expect("decompresses");
    assert_eq!(
        std::fs::read(&back).expect("read"),
        original,
        "{name}: round trip"
    );
    std::fs::read(&archive).expect("read archive")
}

#[test]
fn every_backend_round_trips_and_reference_equals_webgpu() {
    let dir = TempDir::new("roundtrip");
    let pages = dir.path("in.pages");
    let original = page_file(&pages, 6);
    round_trip(&mut CpuCodec, &dir, &pages, &original);
    let reference = round_trip(&mut ReferenceCodec::default(), &dir, &pages, &original);
    if !common::adapter_or_skip(
        "every_backend_round_trips_and_reference_equals_webgpu (webgpu part)",
    ) {
        return;
    }
    // What `--backend webgpu` runs: the batch API's ring, with its CPU fallback, which must not
    // have been needed.
    let mut webgpu = open(Backend::WebGpu).expect("a WebGPU codec");
    let name = webgpu.describe();
    assert!(
        name.starts_with("webgpu on ") && name.contains(", warps "),
        "names the adapter and how warps are lowered: {name}"
    );
    let from_gpu = round_trip(webgpu.as_mut(), &dir, &pages, &original);
    assert_eq!(
        from_gpu, reference,
        "the webgpu archive is byte-identical to the reference archive"
    );
    // And every backend reads every other's archive.
    let cpu_archive = dir.path("cpu.wfpa");
    let back = dir.path("cross.pages");
    decompress_file(&cpu_archive, &back, webgpu.as_mut(), &ProgressBar::hidden())
        .expect("webgpu reads lz4_flex blocks");
    assert_eq!(std::fs::read(&back).expect("read"), original);
    assert_eq!(
        webgpu.cpu_fallback_pages(),
        0,
        "{}: pages were redone on the CPU, so the WebGPU path was not what made these archives",
        webgpu.describe()
    );
    // The kernels one launch per call (KernelCodec) write the same archive.
    let mut launches = KernelCodec::webgpu().expect("a WebGPU codec");
    let per_launch = round_trip(&mut launches, &dir, &pages, &original);
    assert_eq!(
        per_launch, reference,
        "the per-launch webgpu archive is byte-identical"
    );
}

#[test]
fn pages_the_batch_codec_redid_on_the_cpu_are_counted_and_the_archive_is_unchanged() {
    let dir = TempDir::new("fallback");
    let pages = dir.path("in.pages");
    let original = page_file(&pages, 1);
    let reference = round_trip(&mut ReferenceCodec::default(), &dir, &pages, &original);
    // The batch API on the simulator, 4 pages a batch; its first batch fails on purpose.
    let config = GpuBatchConfig {
        batch_size: 4,
        ..GpuBatchConfig::default()
    };
    let mut compressor =
        GpuBatchCompressor::with_backend(config, GpuBackend::Sim).expect("a sim compressor");
    compressor.inject_faults([0]);
    let mut codec = BatchCodec::with_compressor(compressor);
    let archive = dir.path("fallback.wfpa");
    compress_file(&pages, &archive, &mut codec, &ProgressBar::hidden()).expect("compresses");
    assert_eq!(
        std::fs::read(&archive).expect("read"),
        reference,
        "the same archive, the failed batch redone on the CPU"
    );
    assert_eq!(codec.cpu_fallback_pages(), 4, "{}", codec.describe());
}

#[test]
fn the_cli_webgpu_backend_writes_the_reference_archive_without_cpu_fallback() {
    if !common::adapter_or_skip(
        "the_cli_webgpu_backend_writes_the_reference_archive_without_cpu_fallback",
    ) {
        return;
    }
    let dir = TempDir::new("cli-webgpu");
    let pages = dir.path("in.pages");
    let original = page_file(&pages, 3);
    let reference = dir.path("reference.wfpa");
    let archive = dir.path("webgpu.wfpa");
    let back = dir.path("back.pages");
    for (backend, out) in [("reference", &reference), ("webgpu", &archive)] {
        let run = warpforge(&["compress", "--backend", backend, s(&pages), s(out)]);
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(run.status.success(), "compress --backend {backend}: {err}");
        assert!(err.contains(&format!("with {backend} at level 2")), "{err}");
        assert!(!err.contains("redone on the CPU"), "{err}");
    }
    assert_eq!(
        std::fs::read(&archive).expect("read"),
        std::fs::read(&reference).expect("read"),
        "compress --backend webgpu writes the reference's archive"
    );
    let run = warpforge(&["decompress", "--backend", "webgpu", s(&archive), s(&back)]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "decompress --backend webgpu: {err}");
    assert!(!err.contains("redone on the CPU"), "{err}");
    assert_eq!(std::fs::read(&back).expect("read"), original);
}

fn warpforge(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args(args)
        .output()
        .expect("runs")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

#[test]
fn input_that_is_not_whole_pages_is_refused_without_output() {
    let dir = TempDir::new("ragged");
    let input = dir.path("ragged.pages");
    std::fs::write(&input, vec![1u8; 3 * 4096 + 57]).expect("write");
    let out = dir.path("out.wfpa");
    let run = warpforge(&["compress", "--backend", "cpu", s(&input), s(&out)]);
    assert!(!run.status.success());
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("not a whole number of 4096-byte pages (3 pages and 57 bytes)"),
        "{err}"
    );
    assert!(!out.exists() && !dir.path("out.wfpa.partial").exists());
}

/// Decompressing `archive` must fail, mention `needle`, and leave no output or partial file.
fn assert_rejected(archive: &[u8], dir: &TempDir, needle: &str) -> String {
    let path = dir.path("bad.wfpa");
    std::fs::write(&path, archive).expect("write");
    let out = dir.path("bad.pages");
    let err = decompress_file(
        &path,
        &out,
        &mut ReferenceCodec::default(),
        &ProgressBar::hidden(),
    )
    .expect_err("must be rejected")
    .to_string();
    assert!(err.contains(needle), "expected `{needle}` in: {err}");
    assert!(!out.exists(), "no output for a bad archive");
    assert!(
        !dir.path("bad.pages.partial").exists(),
        "no partial file left behind"
    );
    err
}

/// The reference archive of `page_file(.., 2)`, written in `dir` and read back.
fn reference_archive(dir: &TempDir) -> Vec<u8> {
    let pages = dir.path("in.pages");
    page_file(&pages, 2);
    let archive_path = dir.path("a.wfpa");
    compress_file(
        &pages,
        &archive_path,
        &mut ReferenceCodec::default(),
        &ProgressBar::hidden(),
    )
    .expect("compresses");
    std::fs::read(&archive_path).expect("read")
}

#[test]
fn truncated_archives_are_rejected_before_any_output() {
    let dir = TempDir::new("truncated");
    let archive = reference_archive(&dir);
    // Every cut in the last 200 bytes (footer) and the first 64 (header), and a sample in between.
    let cuts = (0..64)
        .chain((64..archive.len() - 200).step_by(97))
        .chain(archive.len() - 200..archive.len());
    for cut in cuts {
        let path = dir.path("cut.wfpa");
        std::fs::write(&path, &archive[..cut]).expect("write");
        let out = dir.path("cut.pages");
        let result = decompress_file(
            &path,
            &out,
            &mut ReferenceCodec::default(),
            &ProgressBar::hidden(),
        );
        assert!(
            result.is_err(),
            "an archive cut at byte {cut} of {} was accepted",
            archive.len()
        );
        assert!(
            !out.exists() && !dir.path("cut.pages.partial").exists(),
            "cut at {cut}: output left behind"
        );
    }
    assert_rejected(&archive[..archive.len() - 1], &dir, "end marker");
}

#[test]
fn corruption_is_reported_with_the_page_index() {
    let dir = TempDir::new("corrupt");
    let archive = reference_archive(&dir);
    // Pages 0..2 are zero pages (9-byte records), pages 2..4 same-filled, page 4 is the first text
    // page: an LZ4 record starting at byte 20 + 4 * 9.
    let text_record = 20 + 4 * 9;
    assert_eq!(archive[text_record], 0, "an LZ4 record");
    let mut literal_flip = archive.clone();
    literal_flip[text_record + 5 + 1] ^= 0x20; // a literal byte of page 4's block
    assert_rejected(&literal_flip, &dir, "page 4");
    let mut kind_flip = archive.clone();
    kind_flip[20] = 7; // page 0's kind
    assert_rejected(
        &kind_flip,
        &dir,
        "page 0 (record at byte 20): unknown record kind 7",
    );
    let mut footer_flip = archive.clone();
    let at = archive.len() - 30;
    footer_flip[at] ^= 1;
    assert_rejected(&footer_flip, &dir, "footer");
    let mut pattern_flip = archive.clone();
    pattern_flip[20 + 2 * 9 + 1] ^= 0xff; // page 2's same-filled pattern
    assert_rejected(&pattern_flip, &dir, "page 2");
    // The command line exits non-zero with the same message.
    let bad = dir.path("cli.wfpa");
    std::fs::write(&bad, &literal_flip).expect("write");
    let out = dir.path("cli.pages");
    let run = warpforge(&["decompress", "--backend", "cpu", s(&bad), s(&out)]);
    assert!(!run.status.success());
    assert!(
        String::from_utf8_lossy(&run.stderr).contains("page 4"),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(!out.exists());
}

#[test]
fn fuzzer_found_inputs_are_rejected_cleanly() {
    use warpforge::archive::ArchiveReader;
    // Found by `cargo fuzz run archive_reader`: a header announcing ~2^62 pages overflowed the footer
    // size computation.
    let crash = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz-crash-huge-page-count.wfpa"),
    )
    .expect("read");
    let err = ArchiveReader::from_bytes(&crash)
        .err()
        .expect("rejected")
        .to_string();
    assert!(err.contains("cannot hold"), "{err}");
    // And every page count from 0 up to u64::MAX in a 100-byte file.
    for pages in [
        0u64,
        1,
        2,
        1 << 30,
        1 << 61,
        (1 << 62) + 3,
        u64::MAX / 4,
        u64::MAX,
    ] {
        let mut bytes = warpforge::archive::header(pages).to_vec();
        bytes.resize(100, 0);
        assert!(
            ArchiveReader::from_bytes(&bytes).is_err(),
            "{pages} pages in 100 bytes"
        );
    }
}

/// The pipeline reads records packed (`ArchiveReader::next_packed`); the fuzz target and the owned API
/// read them one by one (`next_record`). On the reference archive and on damaged copies of it (cut
/// short, a kind, a length or a pattern changed), both give the same records, CRCs and first error.
#[test]
fn packed_and_owned_reading_agree_on_good_and_damaged_archives() {
    use warpforge::archive::{ArchiveReader, PackedRecords, Record};
    fn owned(bytes: &[u8]) -> Result<Vec<(Record, u32)>, String> {
        let mut reader = ArchiveReader::from_bytes(bytes).map_err(|e| e.to_string())?;
        let mut all = Vec::new();
        while let Some(next) = reader.next_record().map_err(|e| e.to_string())? {
            all.push(next);
        }
        reader.finish().map_err(|e| e.to_string())?;
        Ok(all)
    }
    fn packed(bytes: &[u8]) -> Result<Vec<(Record, u32)>, String> {
        let mut reader = ArchiveReader::from_bytes(bytes).map_err(|e| e.to_string())?;
        let (mut records, mut crcs) = (PackedRecords::new(), Vec::new());
        while let Some(crc) = reader
            .next_packed(&mut records)
            .map_err(|e| e.to_string())?
        {
            crcs.push(crc);
        }
        reader.finish().map_err(|e| e.to_string())?;
        Ok(records.to_records().into_iter().zip(crcs).collect())
    }
    let dir = TempDir::new("packed-reading");
    let archive = reference_archive(&dir);
    let good = owned(&archive).expect("the reference archive reads");
    assert_eq!(packed(&archive), Ok(good.clone()));
    assert!(good.len() > 4, "{} records", good.len());
    let mut damaged: Vec<Vec<u8>> = (20..archive.len())
        .step_by(37)
        .map(|cut| archive[..cut].to_vec())
        .collect();
    for (at, value) in [
        (20, 7u8),
        (20 + 4 * 9 + 1, 0xff),
        (20 + 4 * 9 + 2, 0x7f),
        (20 + 2 * 9 + 3, 1),
    ] {
        let mut bad = archive.clone();
        bad[at] = value;
        damaged.push(bad);
    }
    for (i, bad) in damaged.iter().enumerate() {
        let (o, p) = (owned(bad), packed(bad));
        assert!(o.is_err(), "damaged copy {i} was accepted");
        assert_eq!(p, o, "damaged copy {i}");
    }
}
