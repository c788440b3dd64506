//! Random inputs for every catalog kernel with the plain Rust result they must give: one suite, run on
//! every backend (tests/it/webgpu.rs, tests/it/sim.rs).

#![allow(dead_code)]

use proptest::prelude::*;
use warpforge::kernels::lz4::pages::{page, PageKind};
use warpforge::kernels::lz4::{
    compress_scratch_bytes, encode_page, encode_page_level, lz4_compress_block, lz4_compress_bound,
    Lz4Level, PageEncoding, PAGE_SIZE,
};

/// One launch: inputs, outputs (initial contents), scalars, and what the outputs must become.
#[derive(Clone, Debug)]
pub struct Case {
    pub blocks: u32,
    pub inputs: Vec<Vec<u8>>,
    pub outputs: Vec<Vec<u8>>,
    pub scalars: Vec<u64>,
    pub expected: Vec<Vec<u8>>,
}

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

pub fn u32_bytes(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// `vector-add`: out[i] = a[i] + b[i] for i < n.
fn vector_add_case(n: usize, a: Vec<f32>, b: Vec<f32>) -> Case {
    let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    let len = n.max(1);
    Case {
        blocks: (n.div_ceil(128) as u32).max(1),
        inputs: vec![f32_bytes(&a), f32_bytes(&b)],
        outputs: vec![vec![0; 4 * len]],
        scalars: vec![n as u64],
        expected: vec![f32_bytes(&if n == 0 { vec![0.0] } else { expected })],
    }
}

/// `warp-reduce`: each warp's wrapping sum of its 32 inputs (0 past n), stored by lane 0.
fn warp_reduce_case(input: Vec<u32>) -> Case {
    let n = input.len();
    let blocks = (n.div_ceil(128) as u32).max(1);
    let warps = blocks as usize * 4;
    let sums: Vec<u32> = (0..warps)
        .map(|w| {
            (w * 32..w * 32 + 32)
                .filter(|&i| i < n)
                .fold(0u32, |acc, i| acc.wrapping_add(input[i]))
        })
        .collect();
    Case {
        blocks,
        inputs: vec![u32_bytes(&input)
            .into_iter()
            .chain(std::iter::repeat_n(0, 4 * (n == 0) as usize))
            .collect()],
        outputs: vec![vec![0xAB; 4 * warps]],
        scalars: vec![n as u64],
        expected: vec![u32_bytes(&sums)],
    }
}

/// `warp-collectives`: CUDA's semantics of every collective with full masks, lane by lane.
fn warp_collectives_case(input: Vec<u32>) -> Case {
    use warpforge::ir::samples::WARP_COLLECTIVE_OUTPUTS as K;
    let mut out = vec![0u32; input.len() * K as usize];
    for (w, warp) in input.chunks(32).enumerate() {
        let ballot = |p: &dyn Fn(u32) -> bool| {
            (0..32)
                .filter(|&l| p(warp[l]))
                .fold(0u32, |m, l| m | 1 << l)
        };
        let odd = ballot(&|x| x & 1 == 1);
        let any = u32::from(ballot(&|x| x % 97 == 0) != 0);
        let all = u32::from(ballot(&|x| x != 12345) == u32::MAX);
        for lane in 0..32usize {
            let x = warp[lane];
            let up = if lane >= 3 { warp[lane - 3] } else { x };
            let down = if lane + 7 < 32 { warp[lane + 7] } else { x };
            let same = ballot(&|y| y & 3 == x & 3);
            let row = [
                warp[5],
                up,
                down,
                warp[lane ^ 9],
                warp[(x % 32) as usize],
                odd,
                any,
                all,
                same,
            ];
            let t = w * 32 + lane;
            out[t * K as usize..(t + 1) * K as usize].copy_from_slice(&row);
        }
    }
    Case {
        blocks: (input.len() / 64) as u32,
        inputs: vec![u32_bytes(&input)],
        outputs: vec![vec![0; out.len() * 4]],
        scalars: vec![],
        expected: vec![u32_bytes(&out)],
    }
}

/// Pages for the LZ4 kernels: every kind but random (a raw page's output slot holds an abandoned prefix,
/// which tests/it/lz4_kernels.rs covers through the page encodings), from random seeds.
pub fn lz4_pages() -> impl Strategy<Value = Vec<[u8; PAGE_SIZE]>> {
    let kinds = [
        PageKind::Zero,
        PageKind::SameFilled,
        PageKind::Text,
        PageKind::Binary,
        PageKind::Process,
    ];
    // Up to 6 pages a launch: each page is a block of its own on the same path as any other page of its
    // kind, so more pages only repeat that path (the 512 real sample pages run whole elsewhere).
    proptest::collection::vec((0usize..kinds.len(), any::<u64>()), 1..7).prop_map(move |picks| {
        picks
            .into_iter()
            .map(|(k, seed)| page(kinds[k], seed))
            .collect()
    })
}

/// `lz4-compress`: the reference encoding of each page, in the kernel's output layout.
fn lz4_compress_case(pages: Vec<[u8; PAGE_SIZE]>) -> Case {
    lz4_compress_case_at(pages, Lz4Level::DEFAULT)
}

/// `lz4-compress-l0/l1/l3`: the same at another level.
fn lz4_compress_case_at(pages: Vec<[u8; PAGE_SIZE]>, level: Lz4Level) -> Case {
    let mut output = vec![0u8; pages.len() * PAGE_SIZE];
    let mut meta = Vec::new();
    for (i, p) in pages.iter().enumerate() {
        let words: [u32; 4] = match encode_page_level(p, level) {
            PageEncoding::Lz4(block) => {
                output[i * PAGE_SIZE..i * PAGE_SIZE + block.len()].copy_from_slice(&block);
                [0, block.len() as u32, 0, 0]
            }
            PageEncoding::Raw => panic!("lz4_pages makes no incompressible page"),
            PageEncoding::SameFilled(pattern) => [2, 8, pattern as u32, (pattern >> 32) as u32],
        };
        meta.extend(u32_bytes(&words));
    }
    Case {
        blocks: pages.len() as u32,
        inputs: vec![pages.concat()],
        // The scratch starts with garbage: the kernel must not depend on its contents (and it is not
        // compared: it has no expected value).
        outputs: vec![
            vec![0; pages.len() * PAGE_SIZE],
            vec![0; pages.len() * 16],
            vec![0xEE; compress_scratch_bytes(level, pages.len())],
        ],
        scalars: vec![pages.len() as u64],
        expected: vec![output, meta],
    }
}

/// `lz4-decompress`: the reference blocks of the pages decode back to the pages, status 0.
fn lz4_decompress_case(pages: Vec<[u8; PAGE_SIZE]>) -> Case {
    let (mut data, mut spans, mut status) = (Vec::new(), Vec::new(), Vec::new());
    for p in &pages {
        let mut block = vec![0u8; lz4_compress_bound(PAGE_SIZE)];
        let n = lz4_compress_block(p, &mut block).expect("compresses");
        spans.extend(u32_bytes(&[data.len() as u32, n as u32]));
        data.extend_from_slice(&block[..n]);
        // Status: code 0 (OK) and, above it, where decoding stopped: the end of the block.
        status.extend(u32_bytes(&[(n as u32) << 8]));
    }
    warpforge::kernel_io::pad_blocks(&mut data);
    Case {
        blocks: pages.len() as u32,
        inputs: vec![data, spans],
        outputs: vec![
            vec![0xEE; pages.len() * PAGE_SIZE],
            vec![0xEE; pages.len() * 4],
        ],
        scalars: vec![pages.len() as u64],
        expected: vec![pages.concat(), status],
    }
}

/// `lz4-compact`: the compress kernel's output slots and meta words, and host-computed offsets; each LZ4
/// block lands at its offset, raw and same-filled pages copy nothing (the 0xEE fill stays).
fn lz4_compact_case(pages: Vec<[u8; PAGE_SIZE]>, raw: Vec<bool>) -> Case {
    let mut slots = vec![0x55u8; pages.len() * PAGE_SIZE];
    let (mut meta, mut offsets, mut compact) = (Vec::new(), Vec::new(), Vec::new());
    for (i, (p, raw)) in pages.iter().zip(raw).enumerate() {
        offsets.push(compact.len() as u32);
        let words: [u32; 4] = match encode_page(p) {
            PageEncoding::Lz4(block) if !raw => {
                slots[i * PAGE_SIZE..i * PAGE_SIZE + block.len()].copy_from_slice(&block);
                compact.extend_from_slice(&block);
                [0, block.len() as u32, 0, 0]
            }
            PageEncoding::SameFilled(pattern) => [2, 8, pattern as u32, (pattern >> 32) as u32],
            _ => [1, PAGE_SIZE as u32, 0, 0],
        };
        meta.extend(u32_bytes(&words));
    }
    let len = compact.len().max(1) + 64;
    let mut expected = compact;
    expected.resize(len, 0xEE);
    Case {
        blocks: pages.len() as u32,
        inputs: vec![slots, meta, u32_bytes(&offsets)],
        outputs: vec![vec![0xEE; len]],
        scalars: vec![pages.len() as u64],
        expected: vec![expected],
    }
}

/// Random inputs for the catalog kernel called `name`, with the plain Rust result.
pub fn strategy(name: &str) -> BoxedStrategy<Case> {
    match name {
        "vector-add" => (0usize..1200)
            .prop_flat_map(|n| {
                let values = proptest::collection::vec(-1.0e6f32..1.0e6f32, n);
                (Just(n), values.clone(), values)
            })
            .prop_map(|(n, a, b)| vector_add_case(n, a, b))
            .boxed(),
        "warp-reduce" => proptest::collection::vec(any::<u32>(), 0..1500)
            .prop_map(warp_reduce_case)
            .boxed(),
        "warp-collectives" => (1usize..6)
            .prop_flat_map(|blocks| {
                // Small values make votes and matches go both ways; a few exact markers test `all`.
                let value = prop_oneof![0u32..8, Just(12345u32), Just(97u32 * 3), any::<u32>()];
                proptest::collection::vec(value, blocks * 64)
            })
            .prop_map(warp_collectives_case)
            .boxed(),
        "lz4-compress" | "lz4-compress-from-input" => {
            lz4_pages().prop_map(lz4_compress_case).boxed()
        }
        "lz4-compress-l0" => lz4_pages()
            .prop_map(|p| lz4_compress_case_at(p, Lz4Level::THROUGHPUT))
            .boxed(),
        "lz4-compress-l1" => lz4_pages()
            .prop_map(|p| lz4_compress_case_at(p, Lz4Level::FAST))
            .boxed(),
        "lz4-compress-l3" => lz4_pages()
            .prop_map(|p| lz4_compress_case_at(p, Lz4Level::HIGH))
            .boxed(),
        "lz4-decompress" => lz4_pages().prop_map(lz4_decompress_case).boxed(),
        "lz4-compact" => lz4_pages()
            .prop_flat_map(|pages| {
                let n = pages.len();
                (Just(pages), proptest::collection::vec(any::<bool>(), n))
            })
            .prop_map(|(pages, raw)| lz4_compact_case(pages, raw))
            .boxed(),
        other => panic!(
            "catalog kernel `{other}` has no plain-Rust reference in tests/catalog_cases/mod.rs: add one"
        ),
    }
}

/// The first difference between an output and what it should be, as a message.
pub fn first_difference(name: &str, got: &[Vec<u8>], case: &Case) -> Option<String> {
    for (i, (got, want)) in got.iter().zip(&case.expected).enumerate() {
        let words = got.len().max(want.len()).div_ceil(4);
        if let Some(w) =
            (0..words).find(|&w| got.get(4 * w..4 * w + 4) != want.get(4 * w..4 * w + 4))
        {
            return Some(format!(
                "{name}: output buffer {i} first differs at word {w}: got {:?}, want {:?} ({} blocks)",
                got.get(4 * w..4 * w + 4),
                want.get(4 * w..4 * w + 4),
                case.blocks
            ));
        }
    }
    None
}
