//! `funnel_shr(lo, hi, shift)` from a `#[kernel]`: every thread shifts its own pair of words by its own
//! amount (0–63, so both the aligned case and the amount's wrap are there, and the byte shifts LZ4
//! uses), on the IR simulator, the PTX simulator for every target and WebGPU, each output against
//! `u64` arithmetic on the CPU; ptxas assembles it (`shf.r.wrap.b32`).

use crate::backends_support::{assembles_everywhere, mix, ptx_sm80};
use crate::lz4_device::{everywhere, word, Case};
use warpforge_ir::kernel;

#[kernel(block_size = 64)]
fn funnel(lo: &[u32], hi: &[u32], shift: &[u32], out: &mut [u32], blocks: u32) {
    let i = block_index() * 64 + thread_index();
    if block_index() < blocks {
        out[i] = funnel_shr(lo[i], hi[i], shift[i]);
    }
}

fn reference(lo: u32, hi: u32, shift: u32) -> u32 {
    ((u64::from(hi) << 32 | u64::from(lo)) >> (shift % 32)) as u32
}

#[test]
fn funnel_shr_matches_u64_arithmetic_on_every_backend() {
    let test = "funnel_shr_matches_u64_arithmetic_on_every_backend";
    let blocks = 4u32;
    let n = blocks as usize * 64;
    let words =
        |seed: u64| -> Vec<u32> { (0..n as u64).map(|i| mix(seed * 1000 + i) as u32).collect() };
    let (lo, hi) = (words(1), words(2));
    let shift: Vec<u32> = (0..n as u32)
        .map(|i| {
            if i < 64 {
                i
            } else {
                [0, 8, 16, 24][i as usize % 4]
            }
        })
        .collect();
    let bytes = |v: &[u32]| -> Vec<u8> { v.iter().flat_map(|w| w.to_le_bytes()).collect() };
    let want: Vec<u32> = (0..n).map(|i| reference(lo[i], hi[i], shift[i])).collect();
    assert_eq!(
        reference(5, 7, 0),
        5,
        "the reference: an aligned word is lo"
    );
    assert_eq!(reference(0x4433_2211, 0x8877_6655, 8), 0x5544_3322);
    let kernel = funnel();
    let case = Case {
        kernel: kernel.clone(),
        blocks,
        buffers: vec![bytes(&lo), bytes(&hi), bytes(&shift), vec![0; n * 4]],
        inputs: 3,
        check: Box::new(move |backend, out| {
            for (i, w) in want.iter().enumerate() {
                let got = word(&out[3], i);
                assert_eq!(
                    got, *w,
                    "{backend}: funnel_shr({:#x}, {:#x}, {}) is {got:#x}",
                    lo[i], hi[i], shift[i]
                );
            }
        }),
    };
    everywhere(test, &case);
    assembles_everywhere(test, &kernel);
    let ptx = ptx_sm80(&kernel);
    assert!(ptx.contains("shf.r.wrap.b32"), "{ptx}");
}
