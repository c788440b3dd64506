//! Every compression level on the 512 real sample pages: each archive record's block decodes to its
//! page with liblz4 and lz4_flex (not only with our decoder), every backend-independent decoder restores
//! the pages, and each higher level writes a smaller archive.

use crate::common;
use common::liblz4_decompress;

use warpforge::archive::Record;
use warpforge::codec::{CpuCodec, PageCodec, ReferenceCodec};
use warpforge::kernels::lz4::Lz4Level;
use warpforge::PAGE_SIZE;

#[test]
fn every_level_writes_blocks_liblz4_and_lz4_flex_decode() {
    let pages = warpforge::sample_pages().expect("the embedded sample pages decode");
    let mut sizes = Vec::new();
    for level in Lz4Level::ALL {
        let records = ReferenceCodec::at_level(level)
            .compress(&pages)
            .expect("the reference compresses");
        let mut blocks = 0;
        for (i, (record, page)) in records.iter().zip(&pages).enumerate() {
            if let Record::Lz4(block) = record {
                blocks += 1;
                assert_eq!(
                    liblz4_decompress(block, PAGE_SIZE).as_deref(),
                    Some(&page[..]),
                    "{level}: liblz4, page {i}"
                );
                assert_eq!(
                    lz4_flex::block::decompress(block, PAGE_SIZE)
                        .ok()
                        .as_deref(),
                    Some(&page[..]),
                    "{level}: lz4_flex, page {i}"
                );
            }
        }
        assert!(blocks > 400, "{level}: only {blocks} LZ4 records");
        for decoder in [
            &mut CpuCodec as &mut dyn PageCodec,
            &mut ReferenceCodec::default(),
        ] {
            let mut out = vec![[0u8; PAGE_SIZE]; pages.len()];
            decoder
                .decompress(&records, &mut out)
                .expect("decodes")
                .expect("every record decodes");
            assert!(
                out == pages,
                "{level}: {} changed the pages",
                decoder.backend()
            );
        }
        sizes.push(records.iter().map(Record::encoded_len).sum::<usize>());
    }
    assert!(
        sizes.windows(2).all(|w| w[1] < w[0]),
        "record bytes per level (L1, L2, L3): {sizes:?}"
    );
}
