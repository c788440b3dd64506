//! The page-archive reader and every CPU decoder on hostile archives: errors, never panics, and the
//! two ways of reading (`next_record`, owned, and `next_packed`, as the file pipeline reads) and of
//! decoding (owned and packed records) agree on every input. Inputs that start like an archive are
//! made more likely by prefixing a valid header for some of them.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpforge::archive::{ArchiveReader, PackedRecords, Record};
use warpforge::codec::{CpuCodec, PageCodec, ReferenceCodec};
use warpforge::PAGE_SIZE;

/// Records read past this many are not decoded (the input is refused as too long).
const MAX_RECORDS: usize = 64;

fn read_owned(bytes: &[u8]) -> Result<Vec<(Record, u32)>, String> {
    let mut reader = ArchiveReader::from_bytes(bytes).map_err(|e| e.to_string())?;
    let mut records = Vec::new();
    while let Some(next) = reader.next_record().map_err(|e| e.to_string())? {
        records.push(next);
        if records.len() > MAX_RECORDS {
            return Err("too many records".into());
        }
    }
    reader.finish().map_err(|e| e.to_string())?;
    Ok(records)
}

fn read_packed(bytes: &[u8]) -> Result<(PackedRecords, Vec<u32>), String> {
    let mut reader = ArchiveReader::from_bytes(bytes).map_err(|e| e.to_string())?;
    let (mut records, mut crcs) = (PackedRecords::new(), Vec::new());
    while let Some(crc) = reader
        .next_packed(&mut records)
        .map_err(|e| e.to_string())?
    {
        crcs.push(crc);
        if crcs.len() > MAX_RECORDS {
            return Err("too many records".into());
        }
    }
    reader.finish().map_err(|e| e.to_string())?;
    Ok((records, crcs))
}

fn read_all(bytes: &[u8]) {
    let owned = read_owned(bytes);
    let packed = read_packed(bytes);
    let as_owned: Result<Vec<(Record, u32)>, String> = packed
        .clone()
        .map(|(records, crcs)| records.to_records().into_iter().zip(crcs).collect());
    assert_eq!(as_owned, owned, "next_packed and next_record disagree");
    let (Ok(owned), Ok((packed, _))) = (owned, packed) else {
        return;
    };
    let records: Vec<Record> = owned.into_iter().map(|(record, _)| record).collect();
    for codec in [
        &mut ReferenceCodec::default() as &mut dyn PageCodec,
        &mut CpuCodec,
    ] {
        let mut pages = vec![[0u8; PAGE_SIZE]; records.len()];
        let mut from_packed = vec![[0u8; PAGE_SIZE]; records.len()];
        let a = codec
            .decompress(&records, &mut pages)
            .map_err(|e| e.to_string());
        let b = codec
            .decompress_packed(&packed, &mut from_packed)
            .map_err(|e| e.to_string());
        assert_eq!(
            a,
            b,
            "{}: owned and packed decoding disagree",
            codec.backend()
        );
        if matches!(a, Ok(Ok(()))) {
            assert!(pages == from_packed, "{}: different pages", codec.backend());
        }
    }
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
