//! The device-resident API (`DeviceCodec`): pages in device memory compressed into device records that
//! equal the CPU reference, those records decoded on the device back into the pages; bad buffers and
//! spans refused with what and where. On the PTX simulator driven like CUDA everywhere, on CUDA when
//! a GPU is there.

use warpforge::gpu::{DeviceCodec, GpuError, PageSpan};
use warpforge::kernels::lz4::pages::{page, PageKind};
use warpforge::kernels::lz4::{decode_status, encode_page_level, Lz4Level, PageEncoding};
use warpforge::runtime::cuda::cuda_or_skip;
use warpforge::PAGE_SIZE;

/// One page of every kind, twice over with other seeds.
fn pages() -> Vec<[u8; PAGE_SIZE]> {
    (0..2u64)
        .flat_map(|seed| PageKind::ALL.map(|kind| page(kind, 40 + seed)))
        .collect()
}

fn word(bytes: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().expect("4 bytes"))
}

/// Compresses `pages` on the device at `level`, checks every record against the reference, decodes
/// the LZ4 ones on the device straight from the slots and checks the pages.
fn round_trip(codec: &mut DeviceCodec, pages: &[[u8; PAGE_SIZE]]) {
    let level = codec.level();
    let n = pages.len();
    let input = codec.upload(pages.as_flattened()).expect("upload");
    let mut records = codec.records(n).expect("records");
    codec.compress(&input, n, &mut records).expect("compress");
    let slots = codec.download(records.slots()).expect("slots");
    let meta = codec.download(records.meta()).expect("meta");
    let mut spans = Vec::new();
    let mut lz4 = Vec::new();
    for (i, p) in pages.iter().enumerate() {
        let (kind, len) = (word(&meta, 4 * i), word(&meta, 4 * i + 1));
        match encode_page_level(p, level) {
            PageEncoding::Lz4(block) => {
                assert_eq!(
                    (kind, len as usize),
                    (0, block.len()),
                    "page {i}, {level:?}"
                );
                let at = i * PAGE_SIZE;
                assert_eq!(
                    &slots[at..at + block.len()],
                    &block[..],
                    "page {i}, {level:?}"
                );
                spans.push(PageSpan {
                    offset: at as u32,
                    len,
                });
                lz4.push(i);
            }
            PageEncoding::Raw => assert_eq!(kind, 1, "page {i}, {level:?}"),
            PageEncoding::SameFilled(pattern) => {
                let got =
                    u64::from(word(&meta, 4 * i + 2)) | u64::from(word(&meta, 4 * i + 3)) << 32;
                assert_eq!((kind, got), (2, pattern), "page {i}, {level:?}");
            }
        }
    }
    assert!(lz4.len() >= 4, "the pages include LZ4 ones");
    // The slots are the blocks buffer as they are (4 KiB apart): no copy through the host.
    let mut decoded = codec.alloc(lz4.len() * PAGE_SIZE).expect("alloc");
    let mut status = codec.alloc(lz4.len() * 4).expect("alloc");
    codec
        .decompress(records.slots(), &spans, &mut decoded, &mut status)
        .expect("decompress");
    codec.synchronize().expect("synchronize");
    let decoded = codec.download(&decoded).expect("pages");
    let status = codec.download(&status).expect("status");
    for (k, &i) in lz4.iter().enumerate() {
        assert_eq!(word(&status, k) & 0xFF, decode_status::OK, "page {i}");
        assert_eq!(
            &decoded[k * PAGE_SIZE..(k + 1) * PAGE_SIZE],
            &pages[i][..],
            "page {i} decoded on the device, {level:?}"
        );
    }
}

#[test]
fn device_records_equal_the_reference_and_decode_back_on_the_ptx_simulator() {
    for level in [Lz4Level::THROUGHPUT, Lz4Level::DEFAULT] {
        let mut codec = DeviceCodec::ptx_sim(level).expect("the simulator");
        round_trip(&mut codec, &pages());
        // A second call reuses the codec's scratch and staging buffers.
        round_trip(&mut codec, &pages()[2..9]);
    }
}

#[test]
fn device_records_equal_the_reference_and_decode_back_on_cuda() {
    if cuda_or_skip("device_records_equal_the_reference_and_decode_back_on_cuda").is_none() {
        return;
    }
    for level in Lz4Level::ALL {
        let mut codec = DeviceCodec::cuda(0, level).expect("CUDA device 0");
        round_trip(&mut codec, &pages());
    }
}

fn config_error(result: Result<(), GpuError>) -> String {
    match result {
        Err(GpuError::Config(message)) => message,
        other => panic!("expected a configuration error, got {other:?}"),
    }
}

#[test]
fn bad_buffers_and_spans_are_refused_with_what_and_where() {
    let mut codec = DeviceCodec::ptx_sim(Lz4Level::FAST).expect("the simulator");
    let input = codec.alloc(3 * PAGE_SIZE).expect("alloc");
    let mut records = codec.records(4).expect("records");
    let short = config_error(codec.compress(&input, 4, &mut records));
    assert!(
        short.contains("pages buffer is 12288 bytes long: 4 pages need 16384"),
        "{short}"
    );
    let mut small = codec.records(2).expect("records");
    let room = config_error(codec.compress(&input, 3, &mut small));
    assert!(room.contains("room for 2"), "{room}");

    let blocks = codec.alloc(64).expect("alloc");
    let (mut out, mut status) = (
        codec.alloc(PAGE_SIZE).expect("alloc"),
        codec.alloc(4).expect("alloc"),
    );
    let past = [PageSpan { offset: 60, len: 8 }];
    let message = config_error(codec.decompress(&blocks, &past, &mut out, &mut status));
    assert!(
        message.contains("span of page 0 (8 bytes from byte 60)"),
        "{message}"
    );
    let odd = codec.alloc(40).expect("alloc");
    let fine = [PageSpan { offset: 0, len: 8 }];
    let message = config_error(codec.decompress(&odd, &fine, &mut out, &mut status));
    assert!(message.contains("multiple of 16"), "{message}");
    let two = [fine[0], fine[0]];
    let message = config_error(codec.decompress(&blocks, &two, &mut out, &mut status));
    assert!(
        message.contains("pages buffer is 4096 bytes long: 2 pages need 8192"),
        "{message}"
    );
}
