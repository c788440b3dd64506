//! The CPU LZ4 compressor (the kernels' reference) at every level on arbitrary inputs up to a page:
//! never a panic; every block keeps within the bound and decodes to the input with our decoder and
//! lz4_flex.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpforge::kernels::lz4::{
    lz4_compress_block_level, lz4_compress_bound, lz4_decompress_block, Lz4Level, PAGE_SIZE,
};

fuzz_target!(|data: &[u8]| {
    let input = &data[..data.len().min(PAGE_SIZE)];
    for level in Lz4Level::ALL {
        let mut block = vec![0u8; lz4_compress_bound(input.len())];
        let n = lz4_compress_block_level(input, &mut block, level).expect("the bound always fits");
        let block = &block[..n];
        let mut out = vec![0u8; input.len()];
        assert_eq!(
            lz4_decompress_block(block, &mut out),
            Ok(input.len()),
            "{level}"
        );
        assert_eq!(out, input, "our decoder, {level}");
        let theirs = lz4_flex::block::decompress(block, input.len()).expect("lz4_flex decodes it");
        assert_eq!(theirs, input, "lz4_flex, {level}");
    }
});
