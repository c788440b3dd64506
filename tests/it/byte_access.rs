//! `load_byte` / `store_byte` from a `#[kernel]` (IR `load.u8` / `store.u8`): every thread moves one
//! byte of a `u32` buffer to the mirrored byte of its word in another, so the four threads of a word
//! write its four bytes at once — on WGSL through the atomic clear-and-set of each byte, on the
//! simulators as byte accesses the race checker must not confuse with a race. On the IR simulator,
//! the PTX simulator for every target and WebGPU, against `swap_bytes` on the CPU; ptxas assembles it
//! (`ld.global.nc.u8`, `st.global.u8`).

use crate::backends_support::{assembles_everywhere, mix, ptx_sm80};
use crate::lz4_device::{everywhere, word, Case};
use warpforge_ir::kernel;

#[kernel(block_size = 64)]
fn mirror_bytes(words: &[u32], out: &mut [u32], blocks: u32) {
    let i = block_index() * 64 + thread_index();
    if block_index() < blocks {
        store_byte(out, i ^ 3, load_byte(words, i));
    }
}

#[test]
fn byte_loads_and_stores_mirror_each_word_on_every_backend() {
    let test = "byte_loads_and_stores_mirror_each_word_on_every_backend";
    let blocks = 4u32;
    let bytes_n = blocks as usize * 64;
    let words: Vec<u32> = (0..bytes_n as u64 / 4)
        .map(|i| mix(7000 + i) as u32)
        .collect();
    let want: Vec<u32> = words.iter().map(|w| w.swap_bytes()).collect();
    let le = |v: &[u32]| -> Vec<u8> { v.iter().flat_map(|w| w.to_le_bytes()).collect() };
    let kernel = mirror_bytes();
    let case = Case {
        kernel: kernel.clone(),
        blocks,
        // The output starts as all ones: a byte store that clobbered its neighbours would show.
        buffers: vec![le(&words), vec![0xff; bytes_n]],
        inputs: 1,
        check: Box::new(move |backend, out| {
            for (k, w) in want.iter().enumerate() {
                let got = word(&out[1], k);
                assert_eq!(
                    got, *w,
                    "{backend}: word {k} ({:#010x}) mirrored is {got:#010x}",
                    words[k]
                );
            }
        }),
    };
    everywhere(test, &case);
    assembles_everywhere(test, &kernel);
    let ptx = ptx_sm80(&kernel);
    assert!(ptx.contains("ld.global.nc.u8"), "{ptx}");
    assert!(ptx.contains("st.global.u8"), "{ptx}");
}
