//! `--backend ptx-sim`: the CUDA engine's host pipeline (async-DMA ring, meta-first compaction,
//! decompression — the code that talks to cudarc, behind its driver interface) with the PTX simulator
//! running the kernels' emitted PTX in place of the driver. Its archives equal the reference's, it
//! decodes blocks from liblz4 and lz4_flex, and a failed batch is an error, never a silent CPU redo.
//! (CI also compresses all 512 sample pages with the release binary: `.ci/run`.)

use crate::common;
use common::liblz4_compress;
use warpforge::archive::Record;
use warpforge::codec::{open, PageCodec, ReferenceCodec};
use warpforge::sample_pages;
use warpforge::{Backend, PAGE_SIZE};

type Page = [u8; PAGE_SIZE];

fn pages(n: usize) -> Vec<Page> {
    let mut pages = sample_pages().expect("the embedded sample pages decode");
    // Every eleventh page: text, binary, same-filled and raw pages of the sample all appear.
    pages = pages.into_iter().step_by(11).take(n).collect();
    pages
}

#[test]
fn ptx_sim_archives_equal_the_reference_and_decode() {
    let pages = pages(40);
    let mut codec = open(Backend::PtxSim).expect("ptx-sim opens without a GPU");
    assert_eq!(codec.backend(), Backend::PtxSim);
    assert!(
        codec.describe().contains("host pipeline"),
        "{}",
        codec.describe()
    );
    let ours = codec.compress(&pages).expect("compresses");
    let reference = ReferenceCodec::default()
        .compress(&pages)
        .expect("reference");
    assert_eq!(ours, reference, "ptx-sim records differ from the reference");
    assert!(ours.iter().any(|r| matches!(r, Record::Lz4(_))));
    let mut back = vec![[0u8; PAGE_SIZE]; pages.len()];
    codec
        .decompress(&ours, &mut back)
        .expect("no device failure")
        .expect("every page decodes");
    assert_eq!(back, pages);
}

#[test]
fn ptx_sim_decodes_blocks_from_liblz4_and_lz4_flex() {
    let pages = pages(24);
    let records: Vec<Record> = pages
        .iter()
        .enumerate()
        .map(|(i, p)| {
            Record::Lz4(if i % 2 == 0 {
                liblz4_compress(p)
            } else {
                lz4_flex::block::compress(p)
            })
        })
        .collect();
    let mut codec = open(Backend::PtxSim).expect("ptx-sim opens");
    let mut back = vec![[0u8; PAGE_SIZE]; pages.len()];
    codec
        .decompress(&records, &mut back)
        .expect("no device failure")
        .expect("every block decodes");
    for (i, (got, want)) in back.iter().zip(&pages).enumerate() {
        let origin = ["liblz4", "lz4_flex"][i % 2];
        assert!(
            got == want,
            "page {i} (a {origin} block) decodes wrong on ptx-sim"
        );
    }
}

#[test]
fn a_malformed_block_is_reported_with_its_page_on_ptx_sim() {
    let pages = pages(4);
    let mut records: Vec<Record> = pages
        .iter()
        .map(|p| Record::Lz4(liblz4_compress(p)))
        .collect();
    records[2] = Record::Lz4(vec![0x10, b'a', 0x05, 0x00, 0x00]); // offset before the start
    let mut codec = open(Backend::PtxSim).expect("ptx-sim opens");
    let mut back = vec![[0u8; PAGE_SIZE]; pages.len()];
    let err = codec
        .decompress(&records, &mut back)
        .expect("the kernel ran")
        .expect_err("page 2 is malformed");
    assert_eq!(err.index, 2, "{err:?}");
}
