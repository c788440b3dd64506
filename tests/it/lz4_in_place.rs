//! The decompress kernel decodes in place (the block staged at the end of the warp's page bytes,
//! `WARP_BYTES` per warp): the blocks that come closest to overtaking their unread bytes still decode,
//! at every alignment of their start, and malformed blocks that would overtake them stop with
//! `OVERRUN` without writing their page — on the IR simulator, the PTX simulator and WebGPU, each
//! page against the CPU decoder.

use crate::lz4_device::{everywhere, word, Case};
use warpforge::kernels::lz4::pages::{page, PageKind};
use warpforge::kernels::lz4::{
    decode_status, lz4_compress_block, lz4_decompress_block, lz4_decompress_kernel,
    LZ4_MAX_PAGE_BLOCK, PAGE_SIZE,
};

/// Appends a length field's continuation bytes for `n` (the part above the token's 15).
pub(crate) fn length_bytes(out: &mut Vec<u8>, mut n: usize) {
    while n >= 255 {
        out.push(255);
        n -= 255;
    }
    out.push(n as u8);
}

/// A sequence with `literals` and a match of `ml` bytes at `offset` (none when `ml` is 0: the last
/// sequence).
pub(crate) fn sequence(out: &mut Vec<u8>, literals: &[u8], offset: u16, ml: usize) {
    let lit = literals.len();
    let m = if ml == 0 { 0 } else { ml - 4 };
    out.push(((lit.min(15) as u8) << 4) | m.min(15) as u8);
    if lit >= 15 {
        length_bytes(out, lit - 15);
    }
    out.extend_from_slice(literals);
    if ml > 0 {
        out.extend_from_slice(&offset.to_le_bytes());
        if m >= 15 {
            length_bytes(out, m - 15);
        }
    }
}

/// A page of `p` equal bytes and then random ones, as one match and one long literal run: the
/// output races ahead early and the block's tail is all literals and their length bytes, the shape
/// that brings the page closest to the unread block.
fn compressible_then_random(p: usize, seed: u64) -> (Vec<u8>, Vec<u8>) {
    let random = page(PageKind::Random, seed);
    let mut expected = vec![b'a'; p];
    expected.extend_from_slice(&random[p..]);
    let mut block = Vec::new();
    if p >= 5 {
        sequence(&mut block, b"a", 1, p - 1);
        sequence(&mut block, &expected[p..], 0, 0);
    } else {
        sequence(&mut block, &expected, 0, 0);
    }
    (block, expected)
}

/// Malformed blocks whose page would overwrite their unread bytes: a 100-byte match right after the
/// block's start, then zeros up to the longest length (the CPU decoder: a zero offset); and a run of
/// 4-byte sequences that each write 32 bytes (the CPU decoder: more than a page).
fn overtaking() -> Vec<Vec<u8>> {
    let mut dense = Vec::new();
    sequence(&mut dense, b"a", 1, 100);
    dense.resize(LZ4_MAX_PAGE_BLOCK as usize, 0);
    let mut eroding = Vec::new();
    sequence(&mut eroding, b"a", 1, 32);
    while eroding.len() + 4 <= LZ4_MAX_PAGE_BLOCK as usize {
        sequence(&mut eroding, b"", 1, 32);
    }
    vec![dense, eroding]
}

fn cpu_decodes(block: &[u8]) -> Option<Vec<u8>> {
    let mut out = vec![0u8; PAGE_SIZE];
    matches!(lz4_decompress_block(block, &mut out), Ok(PAGE_SIZE)).then_some(out)
}

#[test]
fn decompress_kernel_decodes_in_place_and_stops_blocks_that_overtake_their_input() {
    let test = "decompress_kernel_decodes_in_place_and_stops_blocks_that_overtake_their_input";
    // (block, the page it decodes to, or None for a block that must stop with OVERRUN)
    let mut cases: Vec<(Vec<u8>, Option<Vec<u8>>)> = Vec::new();
    for (k, p) in [0, 4, 5, 64, 700, 1500, 2600, 3333, 4000, 4080, 4091]
        .into_iter()
        .enumerate()
    {
        let (block, expected) = compressible_then_random(p, k as u64);
        cases.push((block, Some(expected)));
    }
    for kind in [PageKind::Text, PageKind::Process, PageKind::Zero] {
        let expected = page(kind, 5).to_vec();
        let mut block = vec![0u8; PAGE_SIZE + PAGE_SIZE / 255 + 16];
        let n = lz4_compress_block(&expected, &mut block).expect("compresses");
        block.truncate(n);
        cases.push((block, Some(expected)));
    }
    for block in overtaking() {
        cases.push((block, None));
    }
    for (block, expected) in &cases {
        match expected {
            Some(page) => assert_eq!(cpu_decodes(block).as_ref(), Some(page), "a valid block"),
            None => assert_eq!(cpu_decodes(block), None, "the CPU rejects it too"),
        }
    }
    // Every block at two alignments of its start (between them, padding that moves the next start
    // by 1 to 15 bytes), so the staged groups end at the warp's end with every shift.
    let mut data = Vec::new();
    let mut spans = Vec::new();
    let mut want = Vec::new();
    for round in 0..2 {
        for (k, (block, expected)) in cases.iter().enumerate() {
            spans.extend_from_slice(&(data.len() as u32).to_le_bytes());
            spans.extend_from_slice(&(block.len() as u32).to_le_bytes());
            data.extend_from_slice(block);
            data.resize(data.len() + (k * 7 + round * 3) % 16 + 1, 0x5a);
            want.push((block.len(), expected.clone()));
        }
    }
    let starts: std::collections::BTreeSet<u32> = spans
        .chunks(8)
        .map(|s| u32::from_le_bytes(s[..4].try_into().expect("4 bytes")) % 16)
        .collect();
    assert!(starts.len() >= 12, "alignments covered: {starts:?}");
    warpforge::kernel_io::pad_blocks(&mut data);
    let n = want.len();
    let case = Case::decompress(
        lz4_decompress_kernel(1),
        data,
        spans,
        n,
        Box::new(move |backend, out| {
            for (g, (len, expected)) in want.iter().enumerate() {
                let status = word(&out[3], g);
                let got = &out[2][g * PAGE_SIZE..(g + 1) * PAGE_SIZE];
                match expected {
                    Some(page) => {
                        assert_eq!(status, (*len as u32) << 8, "{backend}: block {g}");
                        assert!(got == page.as_slice(), "{backend}: block {g}: other bytes");
                    }
                    None => {
                        assert_eq!(
                            status & 0xff,
                            decode_status::OVERRUN,
                            "{backend}: block {g}: status {status:#x}"
                        );
                        assert!(
                            got.iter().all(|&b| b == 0xEE),
                            "{backend}: page {g} written"
                        );
                    }
                }
            }
        }),
    );
    everywhere(test, &case);
}
