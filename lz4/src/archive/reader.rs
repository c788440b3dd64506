//! Archive reader: validates header and footer up front, then yields records one by one and checks
//! every decoded page against its CRC.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use super::format::{
    footer_len, ArchiveError, Record, END_MAGIC, FOOTER_MAGIC, HEADER_LEN, MAGIC, VERSION,
};
use super::packed::Entry;
use super::{PackedRecords, RecordRef};
use crate::PAGE_SIZE;

/// Reads an archive record by record, from a file ([`ArchiveReader::open`]) or from memory
/// ([`ArchiveReader::from_bytes`]).
pub struct ArchiveReader<R: Read + Seek = File> {
    records: BufReader<R>,
    crcs: BufReader<R>,
    pages: u64,
    next: u64,
    offset: u64,
    records_end: u64,
    archive_crc: crc32fast::Hasher,
    expected_archive_crc: u32,
}

/// A record's kind and fixed fields, before its bytes.
enum Head {
    Lz4(u32),
    Raw,
    SameFilled(u64),
}

fn read_exact(r: &mut impl Read, n: usize) -> std::io::Result<Vec<u8>> {
    let mut buf = vec![0u8; n];
    r.read_exact(&mut buf)?;
    Ok(buf)
}

fn le_u64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b.try_into().expect("8 bytes"))
}

fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes(b.try_into().expect("4 bytes"))
}

impl ArchiveReader<File> {
    /// Opens `path` and checks its header and footer.
    pub fn open(path: &Path) -> Result<Self, ArchiveError> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        let second = File::open(path)?;
        Self::new(file, second, len)
    }
}

impl<'a> ArchiveReader<std::io::Cursor<&'a [u8]>> {
    /// Reads an archive held in memory.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self, ArchiveError> {
        Self::new(
            std::io::Cursor::new(bytes),
            std::io::Cursor::new(bytes),
            bytes.len() as u64,
        )
    }
}

impl<R: Read + Seek> ArchiveReader<R> {
    /// Reads an archive of `len` bytes through two independent handles on it (records and checksums
    /// are read in step from different places).
    pub fn new(mut file: R, second: R, len: u64) -> Result<Self, ArchiveError> {
        if len < HEADER_LEN {
            return Err(ArchiveError::Header(format!(
                "{len} bytes is shorter than the 20-byte header"
            )));
        }
        let h = read_exact(&mut file, HEADER_LEN as usize)?;
        if h[..4] != MAGIC {
            return Err(ArchiveError::Header(
                "the file does not start with \"WFPA\"".into(),
            ));
        }
        let version = u16::from_le_bytes([h[4], h[5]]);
        if version != VERSION {
            return Err(ArchiveError::Header(format!(
                "format version {version}; this warpforge reads version {VERSION}"
            )));
        }
        let page_size = le_u32(&h[8..12]);
        if page_size as usize != PAGE_SIZE {
            return Err(ArchiveError::Header(format!(
                "page size {page_size}; this warpforge handles {PAGE_SIZE}"
            )));
        }
        let pages = le_u64(&h[12..20]);
        // Each page takes at least one record byte and four footer bytes: check the count against the
        // file size before computing anything from it (a hostile count must not overflow).
        let min = footer_len(pages)
            .and_then(|f| f.checked_add(HEADER_LEN))
            .and_then(|m| m.checked_add(pages));
        let Some(min) = min.filter(|&m| m <= len) else {
            return Err(ArchiveError::Truncated(format!(
                "{len} bytes cannot hold the {pages} pages the header announces (each needs a record and a checksum)"
            )));
        };
        let footer = footer_len(pages).expect("checked above");
        if len < min {
            return Err(ArchiveError::Truncated(format!(
                "{len} bytes, but {pages} pages need at least {min} (header, one byte per record, footer)"
            )));
        }
        file.seek(SeekFrom::Start(len - 4))?;
        if read_exact(&mut file, 4)? != END_MAGIC {
            return Err(ArchiveError::Truncated(
                "the end marker \"WFPE\" is missing: the archive was cut short".into(),
            ));
        }
        let footer_start = len - footer;
        file.seek(SeekFrom::Start(footer_start))?;
        let mut footer_crc = crc32fast::Hasher::new();
        let head = read_exact(&mut file, 12)?;
        footer_crc.update(&head);
        if head[..4] != FOOTER_MAGIC || le_u64(&head[4..12]) != pages {
            return Err(ArchiveError::Truncated(format!(
                "no footer for {pages} pages at byte {footer_start}: the archive was cut short or extended"
            )));
        }
        // Stream the per-page CRCs through the footer checksum without holding them.
        let mut remaining = 4 * pages;
        let mut chunk = vec![0u8; 64 * 1024];
        while remaining > 0 {
            let n = remaining.min(chunk.len() as u64) as usize;
            file.read_exact(&mut chunk[..n])?;
            footer_crc.update(&chunk[..n]);
            remaining -= n as u64;
        }
        let tail = read_exact(&mut file, 16)?;
        footer_crc.update(&tail[..12]);
        if footer_crc.finalize() != le_u32(&tail[12..16]) {
            return Err(ArchiveError::Truncated(
                "the footer's checksum does not match: the footer is damaged".into(),
            ));
        }
        let records_len = le_u64(&tail[..8]);
        if HEADER_LEN + records_len != footer_start {
            return Err(ArchiveError::Truncated(format!(
                "the records should end at byte {} but the footer starts at byte {footer_start}",
                HEADER_LEN + records_len
            )));
        }
        let mut crcs = BufReader::new(second);
        crcs.seek(SeekFrom::Start(footer_start + 12))?;
        let mut records = BufReader::with_capacity(1 << 20, file);
        records.seek(SeekFrom::Start(HEADER_LEN))?;
        let mut archive_crc = crc32fast::Hasher::new();
        archive_crc.update(&h);
        Ok(ArchiveReader {
            records,
            crcs,
            pages,
            next: 0,
            offset: HEADER_LEN,
            records_end: footer_start,
            archive_crc,
            expected_archive_crc: le_u32(&tail[8..12]),
        })
    }

    /// After the last record: checks the archive checksum over header and records. Call it once every
    /// page has been decoded and checked, so that a damaged page is reported by its index first.
    pub fn finish(&self) -> Result<(), ArchiveError> {
        if self.next != self.pages {
            return Err(ArchiveError::Truncated(format!(
                "{} of {} pages were read",
                self.next, self.pages
            )));
        }
        if self.archive_crc.clone().finalize() != self.expected_archive_crc {
            return Err(ArchiveError::Checksum);
        }
        Ok(())
    }

    /// Pages in the archive.
    pub fn pages(&self) -> u64 {
        self.pages
    }

    fn page_error(&self, offset: u64, detail: impl Into<String>) -> ArchiveError {
        ArchiveError::Page {
            page: self.next,
            offset,
            detail: detail.into(),
        }
    }

    /// Reads the next `buf.len()` bytes of the records (part of the record at `record_at`, `what`
    /// for the error) into `buf`, into the archive checksum.
    fn take_into(
        &mut self,
        buf: &mut [u8],
        what: &str,
        record_at: u64,
    ) -> Result<(), ArchiveError> {
        let n = buf.len() as u64;
        if self.offset + n > self.records_end {
            return Err(self.page_error(
                record_at,
                format!("{what} runs past the end of the records"),
            ));
        }
        self.records.read_exact(buf)?;
        self.archive_crc.update(buf);
        self.offset += n;
        Ok(())
    }

    /// [`ArchiveReader::take_into`] a fixed-size field (no allocation).
    fn take<const N: usize>(
        &mut self,
        what: &str,
        record_at: u64,
    ) -> Result<[u8; N], ArchiveError> {
        let mut field = [0u8; N];
        self.take_into(&mut field, what, record_at)?;
        Ok(field)
    }

    /// Reads the next `n` bytes of the records (part of the record at `record_at`, `what` for the
    /// error) onto the end of `data`, straight from the read buffer, into the archive checksum.
    fn take_extend(
        &mut self,
        data: &mut Vec<u8>,
        n: usize,
        what: &str,
        record_at: u64,
    ) -> Result<(), ArchiveError> {
        if self.offset + n as u64 > self.records_end {
            return Err(self.page_error(
                record_at,
                format!("{what} runs past the end of the records"),
            ));
        }
        let start = data.len();
        let mut copy = |mut left: usize| -> std::io::Result<()> {
            while left > 0 {
                let buf = self.records.fill_buf()?;
                if buf.is_empty() {
                    return Err(std::io::ErrorKind::UnexpectedEof.into());
                }
                let k = buf.len().min(left);
                data.extend_from_slice(&buf[..k]);
                self.records.consume(k);
                left -= k;
            }
            Ok(())
        };
        if let Err(e) = copy(n) {
            data.truncate(start);
            return Err(e.into());
        }
        self.archive_crc.update(&data[start..]);
        self.offset += n as u64;
        Ok(())
    }

    /// The next record's offset, kind and fixed fields, or `None` after the last page.
    fn next_head(&mut self) -> Result<Option<(u64, Head)>, ArchiveError> {
        if self.next == self.pages {
            if self.offset != self.records_end {
                return Err(ArchiveError::Truncated(format!(
                    "{} bytes follow the last record",
                    self.records_end - self.offset
                )));
            }
            return Ok(None);
        }
        let at = self.offset;
        let [kind] = self.take::<1>("the record kind", at)?;
        let head = match kind {
            0 => {
                let len = u32::from_le_bytes(self.take("the block length", at)?);
                if len == 0 || len as usize >= PAGE_SIZE + PAGE_SIZE / 255 + 16 {
                    return Err(self.page_error(
                        at,
                        format!("LZ4 block length {len} is impossible for one page"),
                    ));
                }
                Head::Lz4(len)
            }
            1 => Head::Raw,
            2 => Head::SameFilled(u64::from_le_bytes(self.take("the pattern", at)?)),
            other => return Err(self.page_error(at, format!("unknown record kind {other}"))),
        };
        Ok(Some((at, head)))
    }

    /// The CRC of the page whose record was just read; moves to the next page.
    fn next_crc(&mut self) -> Result<u32, ArchiveError> {
        let mut crc = [0u8; 4];
        self.crcs.read_exact(&mut crc)?;
        self.next += 1;
        Ok(u32::from_le_bytes(crc))
    }

    /// The next record with the CRC its page must have, or `None` after the last page.
    pub fn next_record(&mut self) -> Result<Option<(Record, u32)>, ArchiveError> {
        let Some((at, head)) = self.next_head()? else {
            return Ok(None);
        };
        let record = match head {
            Head::Lz4(len) => {
                let mut block = vec![0u8; len as usize];
                self.take_into(&mut block, "the LZ4 block", at)?;
                Record::Lz4(block)
            }
            Head::Raw => {
                let mut page = Box::new([0u8; PAGE_SIZE]);
                self.take_into(&mut page[..], "the raw page", at)?;
                Record::Raw(page)
            }
            Head::SameFilled(pattern) => Record::SameFilled(pattern),
        };
        Ok(Some((record, self.next_crc()?)))
    }

    /// [`ArchiveReader::next_record`] appended to `out` (its bytes copied once, from the read
    /// buffer into the packed buffer: no allocation per record); returns the CRC its page must have,
    /// or `None` after the last page. The same checks and errors.
    pub fn next_packed(&mut self, out: &mut PackedRecords) -> Result<Option<u32>, ArchiveError> {
        let Some((at, head)) = self.next_head()? else {
            return Ok(None);
        };
        match head {
            Head::Lz4(len) => {
                let start = out.data_mut().len();
                self.take_extend(out.data_mut(), len as usize, "the LZ4 block", at)?;
                out.push_entry(Entry::Lz4 { at: start, len });
            }
            Head::Raw => {
                let start = out.data_mut().len();
                self.take_extend(out.data_mut(), PAGE_SIZE, "the raw page", at)?;
                out.push_entry(Entry::Raw { at: start });
            }
            Head::SameFilled(pattern) => out.push(RecordRef::SameFilled(pattern)),
        }
        Ok(Some(self.next_crc()?))
    }
}
