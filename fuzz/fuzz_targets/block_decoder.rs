//! The CPU LZ4 block decoder on hostile bytes: never a panic or an out-of-bounds access; whatever it
//! accepts, liblz4-compatible decoders agree with (lz4_flex checked here).
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpforge::kernels::lz4::{lz4_decompress_block, PAGE_SIZE};

fuzz_target!(|data: &[u8]| {
    // The first two bytes choose the output capacity (0..=2 * PAGE_SIZE).
    let (cap, block) = match data {
        [a, b, rest @ ..] => (
            (usize::from(*a) << 8 | usize::from(*b)) % (2 * PAGE_SIZE + 1),
            rest,
        ),
        _ => (PAGE_SIZE, data),
    };
    let mut out = vec![0u8; cap];
    if let Ok(n) = lz4_decompress_block(block, &mut out) {
        assert!(n <= cap);
        if let Ok(theirs) = lz4_flex::block::decompress(block, n) {
            assert_eq!(
                theirs,
                &out[..n],
                "lz4_flex decodes the accepted block differently"
            );
        }
    }
});
