//! The LZ4 kernels on WebGPU (Mesa lavapipe in CI) against the CPU reference, byte for byte.

use crate::common;
use common::{adapter_or_skip, liblz4_compress};

use warpforge::ir::verify;
use warpforge::kernels::lz4::pages::{page, PageKind};
use warpforge::kernels::lz4::{
    compress_scratch_bytes, encode_page, encode_page_level, lz4_compress_kernel_level, Lz4Level,
    PageEncoding, PAGE_SIZE,
};
use warpforge::runtime::webgpu::{BufferArg, WebGpuDevice};

/// Runs the compress kernel at `level` (one warp per workgroup) over `pages` and returns each page's
/// encoding.
fn compress_on_webgpu(pages: &[[u8; PAGE_SIZE]], level: Lz4Level) -> Vec<PageEncoding> {
    let kernel = lz4_compress_kernel_level(1, level);
    let wgsl = warpforge::wgsl::emit(&verify(&kernel).expect("verifies"))
        .unwrap_or_else(|e| panic!("{e}"));
    let device = WebGpuDevice::new(&wgsl.requirements).expect("an adapter for the LZ4 kernel");
    let input: Vec<u8> = pages.iter().flatten().copied().collect();
    let mut output = vec![0u8; pages.len() * PAGE_SIZE];
    let mut meta = vec![0u8; pages.len() * 16];
    let mut scratch = vec![0u8; compress_scratch_bytes(level, pages.len())];
    let mut buffers = [
        BufferArg::ReadOnly(&input),
        BufferArg::ReadWrite(&mut output),
        BufferArg::ReadWrite(&mut meta),
        BufferArg::ReadWrite(&mut scratch),
    ];
    device
        .run(
            &wgsl,
            pages.len() as u32,
            &mut buffers,
            &[pages.len() as u64],
        )
        .expect("the kernel runs");
    (0..pages.len())
        .map(|i| {
            let word = |k: usize| {
                u32::from_le_bytes(
                    meta[i * 16 + 4 * k..i * 16 + 4 * k + 4]
                        .try_into()
                        .expect("4 bytes"),
                )
            };
            match word(0) {
                0 => PageEncoding::Lz4(
                    output[i * PAGE_SIZE..i * PAGE_SIZE + word(1) as usize].to_vec(),
                ),
                1 => PageEncoding::Raw,
                2 => PageEncoding::SameFilled(u64::from(word(2)) | u64::from(word(3)) << 32),
                other => panic!("page {i}: unknown kind {other}"),
            }
        })
        .collect()
}

#[test]
fn compress_kernel_matches_the_reference_on_every_page_kind() {
    if !adapter_or_skip("compress_kernel_matches_the_reference_on_every_page_kind") {
        return;
    }
    let pages: Vec<[u8; PAGE_SIZE]> = PageKind::ALL
        .iter()
        .flat_map(|&kind| (0..3).map(move |seed| page(kind, seed)))
        .collect();
    for level in Lz4Level::ALL {
        let got = compress_on_webgpu(&pages, level);
        for (i, (page, got)) in pages.iter().zip(&got).enumerate() {
            let want = encode_page_level(page, level);
            let kind = PageKind::ALL[i / 3];
            assert_eq!(got.kind(), want.kind(), "{level}, page {i} ({kind:?})");
            assert_eq!(got, &want, "{level}, page {i} ({kind:?})");
        }
    }
}

/// What fills the decompress kernel's output and status buffers before it runs, so that a byte it
/// should not have written shows.
const SENTINEL: u8 = 0xA5;

/// The decompress kernel's buffers after a run over `blocks`, which were filled with [`SENTINEL`]: one
/// page and one status word per block, then a guard page and a guard word past the last page.
struct Decompressed {
    output: Vec<u8>,
    status: Vec<u8>,
}

impl Decompressed {
    /// Each page's bytes or its status word.
    fn pages(&self) -> Vec<Result<Vec<u8>, u32>> {
        (0..self.status.len() / 4 - 1)
            .map(|i| {
                let word =
                    u32::from_le_bytes(self.status[4 * i..4 * i + 4].try_into().expect("4 bytes"));
                if word & 0xff == 0 {
                    Ok(self.output[i * PAGE_SIZE..(i + 1) * PAGE_SIZE].to_vec())
                } else {
                    Err(word)
                }
            })
            .collect()
    }

    /// The kernel wrote a status for every page and nothing outside the pages it decoded: the guard
    /// page and guard status word are untouched, and so is the page of every rejected block (the
    /// kernel decodes in shared memory and copies out only a whole, valid page). `Err` names the first
    /// byte that changed.
    fn untouched_outside_decoded_pages(&self) -> Result<(), String> {
        let pages = self.pages();
        let guard = pages.len();
        for (i, region) in self.output.chunks(PAGE_SIZE).enumerate() {
            if i < guard && pages[i].is_ok() {
                continue;
            }
            if let Some(at) = region.iter().position(|&b| b != SENTINEL) {
                let what = if i == guard {
                    "the guard page past the last page".to_string()
                } else {
                    format!("rejected page {i} ({:#x})", pages[i].clone().unwrap_err())
                };
                return Err(format!(
                    "output byte {} written: {what}, offset {at}",
                    i * PAGE_SIZE + at
                ));
            }
        }
        for (i, page) in pages.iter().enumerate() {
            if let Err(word) = page {
                if *word & 0xff > warpforge::kernels::lz4::decode_status::OVERRUN {
                    return Err(format!("page {i}: no status written ({word:#x})"));
                }
            }
        }
        let tail = &self.status[4 * guard..];
        if tail.iter().any(|&b| b != SENTINEL) {
            return Err(format!("the guard status word was written: {tail:02x?}"));
        }
        Ok(())
    }
}

/// Runs the decompress kernel (one warp per workgroup) over `blocks` into sentinel-filled buffers.
fn decompress_raw(blocks: &[Vec<u8>]) -> Decompressed {
    let kernel = warpforge::kernels::lz4::lz4_decompress_kernel(1);
    let wgsl = warpforge::wgsl::emit(&verify(&kernel).expect("verifies"))
        .unwrap_or_else(|e| panic!("{e}"));
    let device = WebGpuDevice::new(&wgsl.requirements).expect("an adapter for the LZ4 kernel");
    let mut data = Vec::new();
    let mut spans = Vec::new();
    for block in blocks {
        spans.extend_from_slice(&(data.len() as u32).to_le_bytes());
        spans.extend_from_slice(&(block.len() as u32).to_le_bytes());
        data.extend_from_slice(block);
    }
    warpforge::kernel_io::pad_blocks(&mut data);
    let mut output = vec![SENTINEL; (blocks.len() + 1) * PAGE_SIZE];
    let mut status = vec![SENTINEL; (blocks.len() + 1) * 4];
    let mut buffers = [
        BufferArg::ReadOnly(&data),
        BufferArg::ReadOnly(&spans),
        BufferArg::ReadWrite(&mut output),
        BufferArg::ReadWrite(&mut status),
    ];
    device
        .run(
            &wgsl,
            blocks.len() as u32,
            &mut buffers,
            &[blocks.len() as u64],
        )
        .expect("the kernel runs");
    Decompressed { output, status }
}

/// Runs the decompress kernel over `blocks`; returns each page's bytes or its status word, after
/// checking that it wrote nothing outside the pages it decoded.
fn decompress_on_webgpu(blocks: &[Vec<u8>]) -> Vec<Result<Vec<u8>, u32>> {
    let run = decompress_raw(blocks);
    if let Err(e) = run.untouched_outside_decoded_pages() {
        panic!("{e}");
    }
    run.pages()
}

/// The status the kernel should give `block`, derived from the CPU decoder (an independent
/// implementation of the same checks).
fn cpu_status(block: &[u8]) -> u32 {
    use warpforge::kernels::lz4::{decode_status as st, lz4_decompress_block, Lz4Error};
    match lz4_decompress_block(block, &mut [0u8; PAGE_SIZE]) {
        Ok(PAGE_SIZE) => st::OK,
        Ok(_) => st::BAD_END,
        Err(Lz4Error::OutputTooSmall { .. }) => st::OVERFLOW,
        Err(Lz4Error::Malformed { reason, .. })
            if reason.contains("offset") && !reason.contains("cut off") =>
        {
            st::BAD_OFFSET
        }
        Err(Lz4Error::Malformed { reason, .. }) if reason.contains("ends with a match") => {
            st::BAD_END
        }
        Err(Lz4Error::Malformed { reason, .. })
            if reason.contains("past the end")
                || reason.contains("cut off")
                || reason.contains("empty") =>
        {
            st::TRUNCATED
        }
        Err(e) => panic!("no kernel status for {e}"),
    }
}

#[test]
fn decompress_kernel_decodes_reference_lz4_flex_and_liblz4_blocks() {
    if !adapter_or_skip("decompress_kernel_decodes_reference_lz4_flex_and_liblz4_blocks") {
        return;
    }
    let pages: Vec<[u8; PAGE_SIZE]> = [
        PageKind::Text,
        PageKind::Binary,
        PageKind::Process,
        PageKind::Zero,
        PageKind::SameFilled,
        PageKind::Random,
    ]
    .iter()
    .flat_map(|&kind| (0..2).map(move |seed| page(kind, seed)))
    .collect();
    let mut blocks = Vec::new();
    for p in &pages {
        let mut ours = vec![0u8; warpforge::kernels::lz4::lz4_compress_bound(PAGE_SIZE)];
        let n = warpforge::kernels::lz4::lz4_compress_block(p, &mut ours).expect("compresses");
        ours.truncate(n);
        blocks.push(ours);
        blocks.push(lz4_flex::block::compress(p));
        blocks.push(liblz4_compress(p));
    }
    let decoded = decompress_on_webgpu(&blocks);
    for (i, got) in decoded.iter().enumerate() {
        let origin = ["reference", "lz4_flex", "liblz4"][i % 3];
        assert_eq!(
            got.as_deref(),
            Ok(&pages[i / 3][..]),
            "block {i} from {origin}"
        );
    }
}

#[test]
fn decompress_kernel_reports_malformed_blocks_per_page() {
    if !adapter_or_skip("decompress_kernel_reports_malformed_blocks_per_page") {
        return;
    }
    use warpforge::kernels::lz4::decode_status as st;
    let good = {
        let p = page(PageKind::Text, 7);
        let mut b = vec![0u8; warpforge::kernels::lz4::lz4_compress_bound(PAGE_SIZE)];
        let n = warpforge::kernels::lz4::lz4_compress_block(&p, &mut b).expect("compresses");
        b.truncate(n);
        b
    };
    let blocks = vec![
        vec![],                                   // empty
        vec![0xF0],                               // length runs past the end
        vec![0x10, b'a', 0x00, 0x00, 0x00],       // offset 0
        vec![0x10, b'a', 0x05, 0x00, 0x00],       // offset before the start
        vec![0x10, b'a', 0x01, 0x00],             // ends with a match
        vec![0x50, b'a', b'b', b'c', b'd', b'e'], // decodes to 5 bytes, not a page
        vec![
            0x1F, b'a', 0x01, 0x00, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
            255, 255, 255, 255, 255, 255, 10, 0x00,
        ], // too long
        good[..good.len() / 2].to_vec(),          // truncated in the middle
        good,
    ];
    let decoded = decompress_on_webgpu(&blocks);
    let codes: Vec<u32> = decoded
        .iter()
        .map(|r| r.as_ref().err().map_or(st::OK, |w| w & 0xff))
        .collect();
    assert_eq!(
        codes,
        [
            st::TRUNCATED,
            st::TRUNCATED,
            st::BAD_OFFSET,
            st::BAD_OFFSET,
            st::BAD_END,
            st::BAD_END,
            st::OVERFLOW,
            cpu_status(&blocks[7]),
            st::OK
        ],
        "{decoded:?}"
    );
    // The reference agrees with the hand-written codes, and rejects the truncated block.
    let reference: Vec<u32> = blocks.iter().map(|b| cpu_status(b)).collect();
    assert_eq!(codes, reference);
    assert_ne!(codes[7], st::OK, "a truncated block must not decode");
    assert_eq!(decoded[8].as_deref(), Ok(&page(PageKind::Text, 7)[..]));
    assert_eq!(
        decoded[2].as_ref().err().map(|w| w >> 8),
        Some(2),
        "the status names the offset's byte"
    );
}

#[test]
fn both_kernels_match_the_reference_on_real_process_pages() {
    if !adapter_or_skip("both_kernels_match_the_reference_on_real_process_pages") {
        return;
    }
    // 512 real pages (Python, Node.js and Perl heaps) shipped with the demo.
    let pages = warpforge::sample_pages().expect("the embedded sample");
    for level in [Lz4Level::FAST, Lz4Level::HIGH] {
        let got = compress_on_webgpu(&pages, level);
        for (i, (page, got)) in pages.iter().zip(&got).enumerate() {
            assert_eq!(
                got,
                &encode_page_level(page, level),
                "{level}, real page {i}"
            );
        }
    }
    let got = compress_on_webgpu(&pages, Lz4Level::DEFAULT);
    let mut blocks = Vec::new();
    for (i, (page, got)) in pages.iter().zip(&got).enumerate() {
        let want = encode_page(page);
        assert_eq!(got, &want, "real page {i}");
        if let PageEncoding::Lz4(block) = want {
            blocks.push((i, block));
        }
    }
    let decoded = decompress_on_webgpu(&blocks.iter().map(|(_, b)| b.clone()).collect::<Vec<_>>());
    for ((i, _), got) in blocks.iter().zip(&decoded) {
        assert_eq!(
            got.as_deref(),
            Ok(&pages[*i][..]),
            "real page {i} through the decompress kernel"
        );
    }
}

/// Mutated blocks: the decompress kernel accepts exactly what the CPU decoder decodes to a full page,
/// with the same bytes, and reports the rest — never a crash, never a write outside its page (the
/// buffers start filled with [`SENTINEL`], with a guard page and word after the last page, and a
/// rejected page's bytes must stay untouched too).
#[test]
fn decompress_kernel_agrees_with_the_cpu_decoder_on_mutated_blocks() {
    use proptest::prelude::*;
    use proptest::test_runner::{TestCaseError, TestRunner};
    if !adapter_or_skip("decompress_kernel_agrees_with_the_cpu_decoder_on_mutated_blocks") {
        return;
    }
    let originals: Vec<Vec<u8>> = [
        PageKind::Text,
        PageKind::Binary,
        PageKind::Process,
        PageKind::Zero,
    ]
    .iter()
    .flat_map(|&k| (0..2).map(move |s| page(k, s)))
    .map(|p| {
        let mut b = vec![0u8; warpforge::kernels::lz4::lz4_compress_bound(PAGE_SIZE)];
        let n = warpforge::kernels::lz4::lz4_compress_block(&p, &mut b).expect("compresses");
        b.truncate(n);
        b
    })
    .collect();
    let edit = (any::<usize>(), any::<u8>(), 0u8..3);
    let batch = proptest::collection::vec(
        (0..originals.len(), proptest::collection::vec(edit, 1..4)),
        16..17,
    );
    let mut runner = TestRunner::new(ProptestConfig::with_cases(6));
    let result = runner.run(&batch, |batch| {
        let blocks: Vec<Vec<u8>> = batch
            .into_iter()
            .map(|(which, edits)| {
                let mut block = originals[which].clone();
                for (at, byte, how) in edits {
                    let at = at % (block.len() + 1);
                    match how {
                        0 if at < block.len() => block[at] = byte,
                        1 => block.insert(at, byte),
                        _ if at < block.len() => {
                            block.remove(at);
                        }
                        _ => {}
                    }
                }
                block
            })
            .collect();
        let run = decompress_raw(&blocks);
        run.untouched_outside_decoded_pages()
            .map_err(TestCaseError::fail)?;
        let decoded = run.pages();
        for (i, (block, got)) in blocks.iter().zip(&decoded).enumerate() {
            let mut cpu = vec![0u8; PAGE_SIZE];
            let cpu_ok = matches!(
                warpforge::kernels::lz4::lz4_decompress_block(block, &mut cpu),
                Ok(PAGE_SIZE)
            );
            match got {
                Ok(page) if cpu_ok => prop_assert_eq!(page, &cpu, "block {}: different bytes", i),
                Ok(_) => {
                    return Err(TestCaseError::fail(format!(
                        "block {i}: the kernel accepted what the CPU rejects"
                    )))
                }
                Err(_) if cpu_ok => {
                    return Err(TestCaseError::fail(format!(
                        "block {i}: the kernel rejected a valid block"
                    )))
                }
                Err(_) => {}
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// The longest block one page can have (one literal run of 4096 bytes: a token, 17 length bytes and
/// the page, `LZ4_MAX_PAGE_BLOCK` bytes) decodes at every alignment of its start; one byte more is
/// refused unread with TOO_LONG, and the blocks around it are unaffected.
#[test]
fn decompress_kernel_stages_the_longest_page_block_at_any_alignment() {
    use warpforge::kernels::lz4::{decode_status as st, LZ4_MAX_PAGE_BLOCK};
    if !adapter_or_skip("decompress_kernel_stages_the_longest_page_block_at_any_alignment") {
        return;
    }
    let page = page(PageKind::Random, 3);
    let mut longest = vec![0xF0];
    longest.extend([255u8; 16]);
    longest.push(1); // 15 + 16 · 255 + 1 = 4096 literals
    longest.extend_from_slice(&page);
    assert_eq!(longest.len(), LZ4_MAX_PAGE_BLOCK as usize);
    let mut too_long = longest.clone();
    too_long.push(0);
    let mut blocks = Vec::new();
    for pad in 1..=16usize {
        blocks.push(vec![0x50, b'a', b'b', b'c', b'd', b'e']); // 5 bytes: not a page
        blocks.push(longest.clone());
        if pad % 5 == 0 {
            blocks.push(too_long.clone());
        }
        blocks.push(vec![0x00; pad]); // a match at the start: rejected; shifts the alignment
    }
    let decoded = decompress_on_webgpu(&blocks);
    let mut starts = std::collections::BTreeSet::new();
    let mut at = 0usize;
    for (block, got) in blocks.iter().zip(&decoded) {
        if *block == longest {
            assert_eq!(
                got.as_deref(),
                Ok(&page[..]),
                "longest block at offset {at}"
            );
            starts.insert(at % 16);
        } else if *block == too_long {
            assert_eq!(got.as_ref().err().map(|w| w & 0xff), Some(st::TOO_LONG));
        } else {
            assert!(got.is_err(), "a short block cannot decode to a page");
        }
        at += block.len();
    }
    assert!(starts.len() >= 8, "alignments covered: {starts:?}");
}
