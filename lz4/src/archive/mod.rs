//! The page archive (`.wfpa`): what `warpforge compress` writes and `warpforge decompress` reads.
//!
//! Little-endian throughout.
//!
//! | part | layout |
//! |---|---|
//! | header (20 bytes) | `"WFPA"`, `u16` version = 1, `u16` reserved = 0, `u32` page size = 4096, `u64` page count |
//! | one record per page | `u8` kind, then: kind 0 (LZ4) `u32` length + that many bytes of one raw LZ4 block decoding to the page; kind 1 (raw) the 4096 bytes; kind 2 (same-filled) the 8-byte pattern |
//! | footer | `"WFPF"`, `u64` page count, one `u32` CRC-32 per page (of the original page), `u64` byte length of the records, `u32` CRC-32 of header + records, `u32` CRC-32 of the footer up to here, `"WFPE"` |
//!
//! The reader checks the footer first (its end marker, its own CRC, that the page count and record
//! length agree with the header and the file size), so a truncated archive is reported before any page
//! is written; then every decoded page is checked against its CRC, so corruption is reported with the
//! page index. The footer is written after the records from a spill file, so compressing needs memory
//! independent of the input size.

mod format;
mod packed;
mod reader;
mod writer;

pub use format::{
    footer_len, header, ArchiveError, Record, END_MAGIC, FOOTER_MAGIC, HEADER_LEN, MAGIC, VERSION,
};

pub(crate) use packed::Entry;
pub use packed::{PackedRecords, RecordRef, Records, RECORD_HEAD_MAX};
pub use reader::ArchiveReader;
pub use writer::ArchiveWriter;

/// Where an output is written before it is complete (`OUT.partial`).
pub fn partial_path(target: &std::path::Path) -> std::path::PathBuf {
    writer::sibling(target, "partial")
}
