//! The decompress kernel's window parse (lane `l` parses the sequence that would start at block byte
//! `s + l`, the warp follows the real ones by shuffles) gives exactly what the same kernel without it
//! gives (`lz4_decompress_kernel_one_at_a_time`: every sequence parsed and checked alone, in the CPU
//! decoder's order): the same page bytes and the same status word — code and block offset — for valid
//! blocks of every level and of lz4_flex, for blocks built to stop the window at each of its edges,
//! and for mutated blocks; on the IR simulator, the PTX simulator for every target and WebGPU.

use crate::common::Rng;
use crate::lz4_device::{everywhere, word, Case};
use crate::lz4_in_place::sequence;
use warpforge::ir::verify;
use warpforge::kernels::lz4::pages::{page, PageKind};
use warpforge::kernels::lz4::{
    lz4_compress_block_level, lz4_decompress_block, lz4_decompress_kernel,
    lz4_decompress_kernel_one_at_a_time, Lz4Level, PAGE_SIZE,
};
use warpforge::runtime::sim::{self, SimOptions};
use warpforge::runtime::BufferArg;

/// Blocks shaped at the window's edges: runs of sequences whose sizes put the chain's exit at every
/// lane (token lengths 3 to 6 bytes, literal lengths 13 to 15, match-length fields of 14, 15, 16,
/// 254 and 255 + more), closed by a literal-only last sequence that fills the page — valid or not,
/// as it falls; the window must agree with the one-sequence path either way.
fn edge_blocks(rng: &mut Rng) -> Vec<Vec<u8>> {
    let mut blocks = Vec::new();
    for shape in 0..24 {
        let mut block = Vec::new();
        let mut d = 0usize;
        let first = 1 + shape % 15;
        sequence(&mut block, &vec![b'a' + shape as u8; first], 1, 4 + shape);
        d += first + 4 + shape;
        while d < 3000 {
            let lit = [0, 1, 2, 13, 14, 15][rng.below(6)];
            let ml = [4, 18, 19, 20, 4 + 15 + 254, 4 + 15 + 255, 32, 33][rng.below(8)];
            let offset = [1, 2, 7, 31, 32, 33, 300][rng.below(7)].min(d as u16);
            sequence(&mut block, &vec![b'0' + (d % 10) as u8; lit], offset, ml);
            d += lit + ml;
        }
        sequence(&mut block, &vec![b'z'; PAGE_SIZE.saturating_sub(d)], 0, 0);
        blocks.push(block);
    }
    blocks
}

/// Valid blocks (every level, lz4_flex) of pages of every kind, and mutated copies of them.
fn blocks() -> Vec<Vec<u8>> {
    let mut rng = Rng(0x5eed_0001);
    let kinds = [
        PageKind::Text,
        PageKind::Binary,
        PageKind::Process,
        PageKind::Zero,
    ];
    let levels = [
        Lz4Level::THROUGHPUT,
        Lz4Level::FAST,
        Lz4Level::DEFAULT,
        Lz4Level::HIGH,
    ];
    let mut valid = Vec::new();
    for (k, &kind) in kinds.iter().enumerate() {
        let p = page(kind, k as u64 + 11);
        for &level in &levels {
            let mut out = vec![0u8; PAGE_SIZE + PAGE_SIZE / 255 + 16];
            let n = lz4_compress_block_level(&p, &mut out, level).expect("compresses");
            out.truncate(n);
            valid.push(out);
        }
        valid.push(lz4_flex::block::compress(&p));
    }
    let mut all = valid.clone();
    all.extend(edge_blocks(&mut rng));
    for round in 0..6 {
        for block in &valid {
            let mut b = block.clone();
            if round == 5 {
                b.truncate(rng.below(b.len() + 1));
            }
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(b.len() + 1);
                let byte = rng.below(256) as u8;
                match rng.below(4) {
                    0 if at < b.len() => b[at] = byte,
                    1 => b.insert(at, byte),
                    2 if at < b.len() => {
                        b.remove(at);
                    }
                    _ if at < b.len() => b[at] ^= 1 << rng.below(8),
                    _ => {}
                }
            }
            all.push(b);
        }
    }
    all
}

/// The one-sequence kernel's pages and status words on the IR simulator.
fn one_at_a_time(data: &[u8], spans: &[u8], n: usize) -> (Vec<u8>, Vec<u8>) {
    let kernel = lz4_decompress_kernel_one_at_a_time(1);
    let verified = verify(&kernel).expect("verifies");
    let (mut output, mut status) = (vec![0xEE; n * PAGE_SIZE], vec![0xEE; n * 4]);
    let report = sim::run(
        &verified,
        n as u32,
        &mut [
            BufferArg::ReadOnly(data),
            BufferArg::ReadOnly(spans),
            BufferArg::ReadWrite(&mut output),
            BufferArg::ReadWrite(&mut status),
        ],
        &[n as u64],
        &SimOptions::default(),
    )
    .expect("launches on the simulator");
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    (output, status)
}

#[test]
fn the_window_parse_decodes_and_rejects_exactly_as_one_sequence_at_a_time() {
    let test = "the_window_parse_decodes_and_rejects_exactly_as_one_sequence_at_a_time";
    let blocks = blocks();
    let (mut data, mut spans) = (Vec::new(), Vec::new());
    for (k, block) in blocks.iter().enumerate() {
        spans.extend_from_slice(&(data.len() as u32).to_le_bytes());
        spans.extend_from_slice(&(block.len() as u32).to_le_bytes());
        data.extend_from_slice(block);
        data.resize(data.len() + k % 16, 0x5a);
    }
    warpforge::kernel_io::pad_blocks(&mut data);
    let n = blocks.len();
    let (want_pages, want_status) = one_at_a_time(&data, &spans, n);
    // The reference itself: pages exactly where the CPU decoder decodes a full page, and every
    // status code seen, so the comparison covers both outcomes.
    let mut codes = std::collections::BTreeSet::new();
    for (g, block) in blocks.iter().enumerate() {
        let status = word(&want_status, g);
        codes.insert(status & 0xff);
        let mut cpu = vec![0u8; PAGE_SIZE];
        let cpu_ok = matches!(lz4_decompress_block(block, &mut cpu), Ok(PAGE_SIZE));
        assert_eq!(status & 0xff == 0, cpu_ok, "block {g}: status {status:#x}");
        if cpu_ok {
            assert!(
                want_pages[g * PAGE_SIZE..(g + 1) * PAGE_SIZE] == cpu[..],
                "block {g}"
            );
        }
    }
    assert!(codes.len() >= 5, "status codes covered: {codes:?}");
    let case = Case::decompress(
        lz4_decompress_kernel(1),
        data,
        spans,
        n,
        Box::new(move |backend, out| {
            for g in 0..n {
                let (got, want) = (word(&out[3], g), word(&want_status, g));
                assert_eq!(got, want, "{backend}: block {g}: status");
                let page = g * PAGE_SIZE..(g + 1) * PAGE_SIZE;
                assert!(
                    out[2][page.clone()] == want_pages[page],
                    "{backend}: block {g}: bytes"
                );
            }
        }),
    );
    everywhere(test, &case);
}
