//! Streaming archive writer: records go straight to the output, per-page CRCs to a spill file that
//! becomes the footer.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};

use super::format::{
    footer_len, header, ArchiveError, Record, END_MAGIC, FOOTER_MAGIC, HEADER_LEN,
};
use super::{RecordRef, RECORD_HEAD_MAX};
use crate::writeback::Writeback;
use crate::PAGE_SIZE;

/// The archive's write buffer: large writes (with the writeback's flush every 2 MiB, about 3 per
/// 2 MiB of records instead of 256).
const OUT_BUFFER: usize = 1 << 20;

/// Writes an archive of a known number of pages to `OUT.partial`, renamed to `OUT` by
/// [`ArchiveWriter::finish`]; dropped unfinished, it removes the partial file.
pub struct ArchiveWriter {
    out: BufWriter<File>,
    crcs: Option<BufWriter<File>>,
    partial: PathBuf,
    crc_path: PathBuf,
    target: PathBuf,
    pages: u64,
    written: u64,
    records_len: u64,
    archive_crc: crc32fast::Hasher,
    writeback: Writeback,
    done: bool,
}

impl ArchiveWriter {
    /// Starts an archive of `pages` pages at `target`.
    pub fn create(target: &Path, pages: u64) -> Result<Self, ArchiveError> {
        let partial = sibling(target, "partial");
        let crc_path = sibling(target, "crc.partial");
        let mut out = BufWriter::with_capacity(OUT_BUFFER, File::create(&partial)?);
        let spill = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&crc_path)?;
        let crcs = BufWriter::new(spill);
        let h = header(pages);
        out.write_all(&h)?;
        let mut archive_crc = crc32fast::Hasher::new();
        archive_crc.update(&h);
        Ok(ArchiveWriter {
            out,
            crcs: Some(crcs),
            partial,
            crc_path,
            target: target.to_owned(),
            pages,
            written: 0,
            records_len: 0,
            archive_crc,
            writeback: Writeback::default(),
            done: false,
        })
    }

    /// Appends the record of the next page; `original` is the page it encodes.
    pub fn push(
        &mut self,
        record: &Record,
        original: &[u8; PAGE_SIZE],
    ) -> Result<(), ArchiveError> {
        self.push_ref(record.view(), crc32fast::hash(original))
    }

    /// Appends the record of the next page, borrowed (from [`PackedRecords`](super::PackedRecords)
    /// or a [`Record`]), with the CRC-32 of the page it encodes computed by the caller
    /// (`crc32fast::hash(page)`), for instance on another thread while the batch compresses. The
    /// record's bytes go straight to the output buffer.
    pub fn push_ref(&mut self, record: RecordRef<'_>, page_crc: u32) -> Result<(), ArchiveError> {
        if self.written == self.pages {
            return Err(ArchiveError::Header(format!(
                "more than the {} pages announced",
                self.pages
            )));
        }
        let mut head = [0u8; RECORD_HEAD_MAX];
        let (head, body) = record.parts(&mut head);
        for part in [head, body] {
            self.out.write_all(part)?;
            self.archive_crc.update(part);
        }
        self.records_len += (head.len() + body.len()) as u64;
        self.writeback
            .wrote(&mut self.out, HEADER_LEN + self.records_len)?;
        let crcs = self.crcs.as_mut().expect("present until finish");
        crcs.write_all(&page_crc.to_le_bytes())?;
        self.written += 1;
        Ok(())
    }

    /// Writes the footer and moves the archive into place; returns its size in bytes.
    pub fn finish(mut self) -> Result<u64, ArchiveError> {
        if self.written != self.pages {
            return Err(ArchiveError::Header(format!(
                "{} pages announced, {} written",
                self.pages, self.written
            )));
        }
        let mut footer_crc = crc32fast::Hasher::new();
        let mut put = |out: &mut BufWriter<File>, bytes: &[u8]| -> std::io::Result<()> {
            footer_crc.update(bytes);
            out.write_all(bytes)
        };
        put(&mut self.out, &FOOTER_MAGIC)?;
        put(&mut self.out, &self.pages.to_le_bytes())?;
        let spill = self.crcs.take().expect("present until finish");
        let mut crc_file = spill.into_inner().map_err(|e| e.into_error())?;
        crc_file.rewind()?;
        let mut crcs = BufReader::new(crc_file);
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            let n = crcs.read(&mut chunk)?;
            if n == 0 {
                break;
            }
            put(&mut self.out, &chunk[..n])?;
        }
        put(&mut self.out, &self.records_len.to_le_bytes())?;
        put(
            &mut self.out,
            &self.archive_crc.clone().finalize().to_le_bytes(),
        )?;
        let own = footer_crc.finalize();
        self.out.write_all(&own.to_le_bytes())?;
        self.out.write_all(&END_MAGIC)?;
        self.out.flush()?;
        self.out.get_ref().sync_all()?;
        std::fs::rename(&self.partial, &self.target)?;
        self.done = true;
        let _ = std::fs::remove_file(&self.crc_path);
        Ok(HEADER_LEN
            + self.records_len
            + footer_len(self.pages).expect("a written archive's footer fits"))
    }
}

impl Drop for ArchiveWriter {
    fn drop(&mut self) {
        // Never leave a partial file that could be taken for a finished archive.
        if !self.done {
            let _ = std::fs::remove_file(&self.partial);
        }
        let _ = std::fs::remove_file(&self.crc_path);
    }
}

/// `dir/name.suffix` next to `path`.
pub(crate) fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(format!(".{suffix}"));
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::ArchiveReader;

    /// Every record kind through `push` (the writer's CRC) and `push_ref` (the caller's) reads back
    /// as written, with its page's CRC; a record past the announced count is refused.
    #[test]
    fn pushed_records_of_every_kind_read_back_with_their_crcs() {
        let dir = std::env::temp_dir().join(format!("warpforge-writer-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("a.wfpa");
        let mut text = [0u8; PAGE_SIZE];
        text.iter_mut()
            .enumerate()
            .for_each(|(i, b)| *b = b"page text "[i % 10]);
        let mut noise = [0u8; PAGE_SIZE];
        noise.iter_mut().enumerate().for_each(|(i, b)| {
            *b = (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[3];
        });
        let pattern = 0x0807_0605_0403_0201u64;
        let mut filled = [0u8; PAGE_SIZE];
        filled
            .chunks_exact_mut(8)
            .for_each(|c| c.copy_from_slice(&pattern.to_le_bytes()));
        let block = lz4_flex::block::compress(&text);
        let records = [
            (Record::Lz4(block), text),
            (Record::Raw(Box::new(noise)), noise),
            (Record::SameFilled(pattern), filled),
        ];
        let mut writer = ArchiveWriter::create(&target, 6).unwrap();
        for (record, page) in &records {
            writer.push(record, page).unwrap();
        }
        for (record, page) in &records {
            writer
                .push_ref(record.view(), crc32fast::hash(page))
                .unwrap();
        }
        let extra = writer.push_ref(records[2].0.view(), 0);
        assert!(matches!(extra, Err(ArchiveError::Header(_))), "{extra:?}");
        let size = writer.finish().unwrap();
        let bytes = std::fs::read(&target).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(size, bytes.len() as u64);
        let mut reader = ArchiveReader::from_bytes(&bytes).unwrap();
        for (record, page) in records.iter().chain(&records) {
            let (read, crc) = reader.next_record().unwrap().expect("a record");
            assert_eq!(&read, record);
            assert_eq!(crc, crc32fast::hash(page));
        }
        assert!(reader.next_record().unwrap().is_none());
        reader.finish().unwrap();
    }
}
