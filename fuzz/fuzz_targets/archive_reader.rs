//! The page-archive reader and every CPU decoder on hostile archives: errors, never panics. Inputs that
//! start like an archive are made more likely by prefixing a valid header for some of them.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpforge::archive::ArchiveReader;
use warpforge::codec::{CpuCodec, PageCodec, ReferenceCodec};
use warpforge::PAGE_SIZE;

fn read_all(bytes: &[u8]) {
    let Ok(mut reader) = ArchiveReader::from_bytes(bytes) else {
        return;
    };
    let mut records = Vec::new();
    loop {
        match reader.next_record() {
            Ok(Some((record, _crc))) => records.push(record),
            Ok(None) => break,
            Err(_) => return,
        }
        if records.len() > 64 {
            return;
        }
    }
    let _checksum = reader.finish();
    let mut pages = vec![[0u8; PAGE_SIZE]; records.len()];
    let _reference = ReferenceCodec::default().decompress(&records, &mut pages);
    let _cpu = CpuCodec.decompress(&records, &mut pages);
}

fuzz_target!(|data: &[u8]| {
    read_all(data);
    // The same bytes behind a plausible header (1..=4 pages), so the fuzzer reaches the records.
    if let Some((&pages, rest)) = data.split_first() {
        let mut archive = warpforge::archive::header(u64::from(pages % 4 + 1)).to_vec();
        archive.extend_from_slice(rest);
        read_all(&archive);
    }
});
