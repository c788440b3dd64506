//! The archive's format: its magic numbers, header, footer length, the [`Record`] of one page and
//! [`ArchiveError`] (the layout is in `mod.rs`'s documentation).

use std::fmt;

use crate::PAGE_SIZE;

/// `"WFPA"`.
pub const MAGIC: [u8; 4] = *b"WFPA";
/// `"WFPF"`: start of the footer.
pub const FOOTER_MAGIC: [u8; 4] = *b"WFPF";
/// `"WFPE"`: the archive's last 4 bytes.
pub const END_MAGIC: [u8; 4] = *b"WFPE";
/// The format version written and read.
pub const VERSION: u16 = 1;
/// Header bytes.
pub const HEADER_LEN: u64 = 20;

/// Bytes of the footer of an archive of `pages` pages (`None` if that does not fit in a `u64`: no file
/// can hold it).
pub const fn footer_len(pages: u64) -> Option<u64> {
    match pages.checked_mul(4) {
        Some(crcs) => crcs.checked_add(4 + 8 + 8 + 4 + 4 + 4),
        None => None,
    }
}

/// The header of an archive of `pages` pages.
pub fn header(pages: u64) -> [u8; HEADER_LEN as usize] {
    let mut h = [0u8; HEADER_LEN as usize];
    h[..4].copy_from_slice(&MAGIC);
    h[4..6].copy_from_slice(&VERSION.to_le_bytes());
    h[8..12].copy_from_slice(&(PAGE_SIZE as u32).to_le_bytes());
    h[12..20].copy_from_slice(&pages.to_le_bytes());
    h
}

/// One page as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Record {
    /// Kind 0: an LZ4 block.
    Lz4(Vec<u8>),
    /// Kind 1: the page as is.
    Raw(Box<[u8; PAGE_SIZE]>),
    /// Kind 2: an 8-byte pattern repeated.
    SameFilled(u64),
}

impl Record {
    /// Bytes the record takes in the archive.
    pub fn encoded_len(&self) -> usize {
        match self {
            Record::Lz4(block) => 1 + 4 + block.len(),
            Record::Raw(_) => 1 + PAGE_SIZE,
            Record::SameFilled(_) => 1 + 8,
        }
    }
}

/// What went wrong with an archive, and where.
#[derive(Debug)]
pub enum ArchiveError {
    /// Reading or writing failed.
    Io(std::io::Error),
    /// Not an archive of this version and page size.
    Header(String),
    /// The archive is cut short or its footer is damaged.
    Truncated(String),
    /// A record is malformed, or a page does not match its checksum.
    Page {
        /// The page index.
        page: u64,
        /// Byte offset of the record in the archive.
        offset: u64,
        /// What is wrong.
        detail: String,
    },
    /// The records do not match the archive checksum (a kind or length byte was changed).
    Checksum,
}

impl fmt::Display for ArchiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArchiveError::Io(e) => write!(f, "{e}"),
            ArchiveError::Header(d) => write!(f, "not a warpforge page archive: {d}"),
            ArchiveError::Truncated(d) => write!(f, "truncated or damaged archive: {d}"),
            ArchiveError::Page {
                page,
                offset,
                detail,
            } => write!(f, "page {page} (record at byte {offset}): {detail}"),
            ArchiveError::Checksum => {
                write!(f, "archive checksum mismatch: the records were modified")
            }
        }
    }
}

impl std::error::Error for ArchiveError {}

impl From<std::io::Error> for ArchiveError {
    fn from(e: std::io::Error) -> Self {
        ArchiveError::Io(e)
    }
}
