//! [`PackedRecords`]: the records of a batch in two vectors — every LZ4 block and raw page in one
//! byte buffer, and one small entry per page pointing into it — so a batch of any size costs two
//! allocations (none once the buffers have grown, when the value is reused), not one per page.
//! [`RecordRef`] is one record borrowed from it (or from a [`Record`]); [`Records`] is what
//! decompression reads, implemented by both.
//!
//! ```
//! use warpforge_lz4::archive::{PackedRecords, Record, RecordRef};
//!
//! let mut packed = PackedRecords::new();
//! packed.push(RecordRef::Lz4(&[0x10, b'x']));
//! packed.push(RecordRef::SameFilled(0));
//! assert_eq!(packed.len(), 2);
//! assert_eq!(packed.get(0), Some(RecordRef::Lz4(&[0x10, b'x'])));
//! assert_eq!(packed.to_records()[1], Record::SameFilled(0));
//! ```

use rayon::prelude::*;

use super::format::Record;
use crate::PAGE_SIZE;

/// One record, borrowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordRef<'a> {
    /// Kind 0: an LZ4 block.
    Lz4(&'a [u8]),
    /// Kind 1: the page as is.
    Raw(&'a [u8; PAGE_SIZE]),
    /// Kind 2: an 8-byte pattern repeated.
    SameFilled(u64),
}

impl RecordRef<'_> {
    /// The record, owned.
    pub fn to_record(self) -> Record {
        match self {
            RecordRef::Lz4(block) => Record::Lz4(block.to_vec()),
            RecordRef::Raw(page) => Record::Raw(Box::new(*page)),
            RecordRef::SameFilled(pattern) => Record::SameFilled(pattern),
        }
    }

    /// Bytes the record takes in the archive.
    pub fn encoded_len(self) -> usize {
        match self {
            RecordRef::Lz4(block) => 1 + 4 + block.len(),
            RecordRef::Raw(_) => 1 + PAGE_SIZE,
            RecordRef::SameFilled(_) => 1 + 8,
        }
    }
}

/// The most bytes a record has before its block or page: the kind and a pattern.
pub const RECORD_HEAD_MAX: usize = 9;

impl<'r> RecordRef<'r> {
    /// The record's bytes in an archive, in two parts: its kind and fixed fields, written into
    /// `head` (kind 0: the block length, 4 bytes; kind 2: the pattern, 8), then its block or page
    /// where it lies (empty for kind 2).
    pub fn parts<'h>(self, head: &'h mut [u8; RECORD_HEAD_MAX]) -> (&'h [u8], &'r [u8]) {
        match self {
            RecordRef::Lz4(block) => {
                head[0] = 0;
                head[1..5].copy_from_slice(&(block.len() as u32).to_le_bytes());
                (&head[..5], block)
            }
            RecordRef::Raw(page) => {
                head[0] = 1;
                (&head[..1], &page[..])
            }
            RecordRef::SameFilled(pattern) => {
                head[0] = 2;
                head[1..9].copy_from_slice(&pattern.to_le_bytes());
                (&head[..9], &[])
            }
        }
    }
}

impl Record {
    /// The record, borrowed.
    pub fn view(&self) -> RecordRef<'_> {
        match self {
            Record::Lz4(block) => RecordRef::Lz4(block),
            Record::Raw(page) => RecordRef::Raw(page),
            Record::SameFilled(pattern) => RecordRef::SameFilled(*pattern),
        }
    }

    /// Appends the record's bytes to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let mut head = [0u8; RECORD_HEAD_MAX];
        let (head, body) = self.view().parts(&mut head);
        out.extend_from_slice(head);
        out.extend_from_slice(body);
    }
}

/// A sequence of records that decompression can read page by page.
pub trait Records: Sync {
    /// How many.
    fn count(&self) -> usize;
    /// Record `i` (`i < count()`).
    fn record(&self, i: usize) -> RecordRef<'_>;
}

impl Records for &[Record] {
    fn count(&self) -> usize {
        self.len()
    }

    fn record(&self, i: usize) -> RecordRef<'_> {
        self[i].view()
    }
}

impl Records for Vec<Record> {
    fn count(&self) -> usize {
        self.len()
    }

    fn record(&self, i: usize) -> RecordRef<'_> {
        self[i].view()
    }
}

impl Records for PackedRecords {
    fn count(&self) -> usize {
        self.len()
    }

    fn record(&self, i: usize) -> RecordRef<'_> {
        self.entry_ref(self.entries[i])
    }
}

/// Where one page's record is: kind, and the bytes (LZ4, raw) in the data buffer or the pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// `len` bytes at `at`.
    Lz4 { at: usize, len: u32 },
    /// A page at `at`.
    Raw { at: usize },
    /// The pattern.
    SameFilled(u64),
}

/// The records of a batch, packed (see the module docs). Built by the GPU batch API
/// ([`crate::gpu::GpuBatchCompressor::compress_into`]); decoded by
/// [`crate::gpu::GpuBatchCompressor::decompress_into`].
/// Two values are equal when they hold the same records, wherever their bytes sit in the buffers.
#[derive(Clone, Debug, Default)]
pub struct PackedRecords {
    /// The LZ4 blocks and raw pages, in no particular order.
    data: Vec<u8>,
    /// One per page, in page order.
    entries: Vec<Entry>,
}

impl PartialEq for PackedRecords {
    fn eq(&self, other: &PackedRecords) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for PackedRecords {}

impl PackedRecords {
    /// No records.
    pub fn new() -> PackedRecords {
        PackedRecords::default()
    }

    /// The packed form of `records`.
    pub fn from_records(records: &[Record]) -> PackedRecords {
        let mut packed = PackedRecords::new();
        for record in records {
            packed.push(record.view());
        }
        packed
    }

    /// Records held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Removes every record, keeping the buffers' capacity.
    pub fn clear(&mut self) {
        self.data.clear();
        self.entries.clear();
    }

    /// Record `i`, if there is one.
    pub fn get(&self, i: usize) -> Option<RecordRef<'_>> {
        self.entries.get(i).map(|&e| self.entry_ref(e))
    }

    /// The records in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = RecordRef<'_>> + '_ {
        self.entries.iter().map(|&e| self.entry_ref(e))
    }

    /// Appends a record (its bytes are copied).
    pub fn push(&mut self, record: RecordRef<'_>) {
        let entry = self.store(record);
        self.entries.push(entry);
    }

    /// The owned records (one allocation per LZ4 or raw page, made on every core: for callers that
    /// need [`Record`]s).
    pub fn to_records(&self) -> Vec<Record> {
        self.entries
            .par_iter()
            .map(|&e| self.entry_ref(e).to_record())
            .collect()
    }

    /// Bytes the records take in the archive.
    pub fn encoded_len(&self) -> usize {
        self.iter().map(RecordRef::encoded_len).sum()
    }

    /// Copies a record's bytes into the data buffer and says where they are.
    fn store(&mut self, record: RecordRef<'_>) -> Entry {
        let at = self.data.len();
        match record {
            RecordRef::Lz4(block) => {
                self.data.extend_from_slice(block);
                Entry::Lz4 {
                    at,
                    len: block.len() as u32,
                }
            }
            RecordRef::Raw(page) => {
                self.data.extend_from_slice(page);
                Entry::Raw { at }
            }
            RecordRef::SameFilled(pattern) => Entry::SameFilled(pattern),
        }
    }

    fn entry_ref(&self, entry: Entry) -> RecordRef<'_> {
        match entry {
            Entry::Lz4 { at, len } => RecordRef::Lz4(&self.data[at..at + len as usize]),
            Entry::Raw { at } => {
                RecordRef::Raw(self.data[at..at + PAGE_SIZE].try_into().expect("a page"))
            }
            Entry::SameFilled(pattern) => RecordRef::SameFilled(pattern),
        }
    }

    /// Makes room for `pages` records starting at `first`, each a zero page until it is set (the
    /// batch API sets every one; a chunk that failed is overwritten by its CPU redo).
    pub(crate) fn reset(&mut self, pages: usize) {
        self.clear();
        self.entries.resize(pages, Entry::SameFilled(0));
    }

    /// Sets record `i` (its bytes are copied).
    pub(crate) fn set(&mut self, i: usize, record: RecordRef<'_>) {
        self.entries[i] = self.store(record);
    }

    /// The data buffer (to append bytes that entries will point into) and the entries (to set many
    /// at once).
    pub(crate) fn parts_mut(&mut self) -> (&mut Vec<u8>, &mut [Entry]) {
        (&mut self.data, &mut self.entries)
    }

    /// The data buffer, to append bytes that [`PackedRecords::push_entry`] will point into.
    pub(crate) fn data_mut(&mut self) -> &mut Vec<u8> {
        &mut self.data
    }

    /// Appends a record whose bytes (if any) are already in the data buffer.
    pub(crate) fn push_entry(&mut self, entry: Entry) {
        self.entries.push(entry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_records_round_trip_every_kind() {
        let mut page = [0u8; PAGE_SIZE];
        page.iter_mut().enumerate().for_each(|(i, b)| *b = i as u8);
        let records = vec![
            Record::Lz4(vec![1, 2, 3]),
            Record::Raw(Box::new(page)),
            Record::SameFilled(0xdead_beef),
            Record::Lz4(Vec::new()),
        ];
        let packed = PackedRecords::from_records(&records);
        assert_eq!(packed.len(), 4);
        assert_eq!(packed.to_records(), records);
        assert_eq!(
            packed.encoded_len(),
            records.iter().map(Record::encoded_len).sum::<usize>()
        );
        assert_eq!(packed.get(4), None);
        assert_eq!(Records::record(&packed, 1), RecordRef::Raw(&page));
        assert_eq!(Records::count(&records.as_slice()), 4);
        assert_eq!(
            Records::record(&records, 2),
            RecordRef::SameFilled(0xdead_beef)
        );
        let mut reused = packed.clone();
        reused.clear();
        assert!(reused.is_empty());
        reused.reset(2);
        reused.set(1, RecordRef::Lz4(&[9]));
        // The same records with their bytes elsewhere in the buffer are equal.
        let mut other = PackedRecords::new();
        other.reset(2);
        other.set(0, RecordRef::Lz4(&[7, 7]));
        other.set(1, RecordRef::Lz4(&[9]));
        other.set(0, RecordRef::SameFilled(0));
        assert_eq!(other, reused);
        assert_ne!(other, packed);
        assert_eq!(
            reused.to_records(),
            [Record::SameFilled(0), Record::Lz4(vec![9])]
        );
    }
}
