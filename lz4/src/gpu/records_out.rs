//! Where a compress call's records go ([`RecordsOut`]): packed into two reusable buffers
//! (`compress_into`, `compress_staged`) or owned, one allocation per LZ4 or raw page
//! (`compress_batch`). The CUDA ring writes either straight from the downloaded compacted blocks, so
//! owned records cost one copy of the compressed bytes, not two (packed, then owned).

use crate::archive::{Entry, PackedRecords, Record};
use crate::kernel_io::{Page, PageMeta};

/// The records of one compress call, one per page.
pub enum RecordsOut<'a> {
    /// Packed: one byte buffer and an entry per page.
    Packed(&'a mut PackedRecords),
    /// Owned records.
    Owned(&'a mut Vec<Record>),
}

impl RecordsOut<'_> {
    /// Room for `pages` records (their contents unspecified until set).
    pub fn reset(&mut self, pages: usize) {
        match self {
            RecordsOut::Packed(p) => p.reset(pages),
            RecordsOut::Owned(v) => {
                v.clear();
                v.resize(pages, Record::SameFilled(0));
            }
        }
    }

    /// Sets record `i` from an owned record.
    pub fn set_owned(&mut self, i: usize, record: Record) {
        match self {
            RecordsOut::Packed(p) => p.set(i, record.view()),
            RecordsOut::Owned(v) => v[i] = record,
        }
    }

    /// Bytes the records take in an archive.
    pub fn encoded_len(&self) -> usize {
        match self {
            RecordsOut::Packed(p) => p.encoded_len(),
            RecordsOut::Owned(v) => v.iter().map(Record::encoded_len).sum(),
        }
    }

    /// Sets the records of `pages` (records `first..`) from the compress kernel's verdicts `metas` and
    /// the compacted blocks `compacted`, page `i`'s block (when LZ4) at `offsets[i]`.
    pub fn set_chunk(
        &mut self,
        first: usize,
        pages: &[Page],
        metas: &[PageMeta],
        compacted: &[u8],
        offsets: &[u32],
    ) {
        match self {
            RecordsOut::Packed(p) => {
                let (data, entries) = p.parts_mut();
                let base = data.len();
                data.extend_from_slice(compacted);
                let entries = &mut entries[first..first + pages.len()];
                for (i, (entry, page)) in entries.iter_mut().zip(pages).enumerate() {
                    *entry = match metas[i] {
                        PageMeta::Lz4(len) => Entry::Lz4 {
                            at: base + offsets[i] as usize,
                            len: len as u32,
                        },
                        PageMeta::Raw => {
                            let at = data.len();
                            data.extend_from_slice(page);
                            Entry::Raw { at }
                        }
                        PageMeta::SameFilled(pattern) => Entry::SameFilled(pattern),
                    };
                }
            }
            RecordsOut::Owned(v) => {
                // On the calling thread: each record is allocated from the arena of the thread that
                // will most likely free it. Built on rayon's threads, in their own glibc arenas, the
                // same records took up to 2.8x as long per call on a 2-vCPU VM
                // (docs/host-pipeline.md; not measured on a many-core host).
                let records = &mut v[first..first + pages.len()];
                for (i, (record, page)) in records.iter_mut().zip(pages).enumerate() {
                    *record = match metas[i] {
                        PageMeta::Lz4(len) => {
                            let at = offsets[i] as usize;
                            Record::Lz4(compacted[at..at + len].to_vec())
                        }
                        PageMeta::Raw => Record::Raw(Box::new(*page)),
                        PageMeta::SameFilled(pattern) => Record::SameFilled(pattern),
                    };
                }
            }
        }
    }
}
