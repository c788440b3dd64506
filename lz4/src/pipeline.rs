//! `warpforge compress` / `decompress` as library functions: stream pages through a codec in batches,
//! with bounded memory (two batches of pages while compressing: one compresses while the next is
//! read), a progress bar, and no partial output left behind on failure.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context};
use indicatif::ProgressBar;

use crate::archive::{
    ArchiveError, ArchiveReader, ArchiveWriter, PackedRecords, Record, RecordRef,
};
use crate::codec::{DecodeError, Page, PageCodec};
use crate::gpu::HostPages;
use crate::writeback::Writeback;
use crate::PAGE_SIZE;

pub use crate::codec::BATCH_PAGES;

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Pages processed.
    pub pages: u64,
    /// Pages per record kind (LZ4, raw, same-filled).
    pub kinds: [u64; 3],
    /// Bytes of pages.
    pub page_bytes: u64,
    /// Bytes of the archive.
    pub archive_bytes: u64,
    /// Wall time.
    pub seconds: f64,
}

impl Summary {
    /// Page bytes per archive byte.
    pub fn ratio(&self) -> f64 {
        self.page_bytes as f64 / self.archive_bytes.max(1) as f64
    }

    /// Page bytes per second, in MB/s.
    pub fn megabytes_per_second(&self) -> f64 {
        self.page_bytes as f64 / 1e6 / self.seconds.max(1e-9)
    }
}

fn kind_index(record: RecordRef<'_>) -> usize {
    match record {
        RecordRef::Lz4(_) => 0,
        RecordRef::Raw(_) => 1,
        RecordRef::SameFilled(_) => 2,
    }
}

/// Appends a batch's records, one per page with its page's CRC, counting their kinds.
fn write_batch<'r>(
    writer: &mut ArchiveWriter,
    summary: &mut Summary,
    records: impl ExactSizeIterator<Item = RecordRef<'r>>,
    crcs: &[u32],
) -> anyhow::Result<()> {
    if records.len() != crcs.len() {
        bail!(
            "the codec gave {} records for {} pages",
            records.len(),
            crcs.len()
        );
    }
    for (record, &crc) in records.zip(crcs) {
        summary.kinds[kind_index(record)] += 1;
        writer.push_ref(record, crc)?;
    }
    Ok(())
}

/// Compresses the flat page file `input` into the archive `output`.
pub fn compress_file(
    input: &Path,
    output: &Path,
    codec: &mut dyn PageCodec,
    progress: &ProgressBar,
) -> anyhow::Result<Summary> {
    let start = Instant::now();
    let file = File::open(input).with_context(|| format!("cannot open {}", input.display()))?;
    let len = file.metadata()?.len();
    if len % PAGE_SIZE as u64 != 0 {
        bail!(
            "{}: {len} bytes is not a whole number of {PAGE_SIZE}-byte pages ({} pages and {} bytes)",
            input.display(),
            len / PAGE_SIZE as u64,
            len % PAGE_SIZE as u64
        );
    }
    let pages = len / PAGE_SIZE as u64;
    progress.set_length(pages);
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut writer = ArchiveWriter::create(output, pages)
        .with_context(|| format!("cannot write {}", output.display()))?;
    let mut summary = Summary {
        pages,
        page_bytes: len,
        ..Summary::default()
    };
    let batch_pages = codec.batch_pages().max(1) as u64;
    let mut crcs = Vec::with_capacity(batch_pages.min(pages) as usize);
    let mut packed = PackedRecords::new();
    let mut spare = None;
    let mut current = PageBatch::take(codec, batch_pages.min(pages) as usize, &mut spare);
    read_pages(&mut reader, current.pages_mut(), 0, input)?;
    let mut done = 0u64;
    while done < pages {
        let n = current.pages().len() as u64;
        let rest = pages - done - n;
        let mut next =
            (rest > 0).then(|| PageBatch::take(codec, rest.min(batch_pages) as usize, &mut spare));
        // While the batch compresses (on a GPU the calling thread mostly waits for the device
        // then), pool threads compute its pages' CRCs and read the next batch.
        crcs.clear();
        let mut read_next = Ok(());
        let owned = rayon::in_place_scope(|s| {
            let (crcs, pages_in) = (&mut crcs, current.pages());
            s.spawn(move |_| crcs.extend(pages_in.iter().map(|page| crc32fast::hash(page))));
            if let Some(next) = next.as_mut() {
                let (reader, read_next, next) = (&mut reader, &mut read_next, next.pages_mut());
                s.spawn(move |_| *read_next = read_pages(reader, next, done + n, input));
            }
            current.compress(codec, &mut packed)
        })
        .with_context(|| format!("compressing pages {done}..{}", done + n))?;
        read_next?;
        match &owned {
            Some(records) => write_batch(
                &mut writer,
                &mut summary,
                records.iter().map(Record::view),
                &crcs,
            )?,
            None => write_batch(&mut writer, &mut summary, packed.iter(), &crcs)?,
        }
        done += n;
        progress.set_position(done);
        if let Some(next) = next {
            std::mem::replace(&mut current, next).give_back(&mut spare);
        }
    }
    summary.archive_bytes = writer.finish()?;
    summary.seconds = start.elapsed().as_secs_f64();
    Ok(summary)
}

/// One batch of pages, compressed from or decompressed into: the codec's own (page-locked on CUDA, so
/// the upload reads them and the download writes them where they are; given back to the codec when
/// dropped) or ordinary memory, kept for the next batch.
enum PageBatch {
    Codec(HostPages),
    Owned(Vec<Page>),
}

impl PageBatch {
    /// Room for `n` pages.
    fn take(codec: &mut dyn PageCodec, n: usize, spare: &mut Option<Vec<Page>>) -> PageBatch {
        match codec.host_pages(n) {
            Some(host) => PageBatch::Codec(host),
            None => {
                let mut pages = spare.take().unwrap_or_default();
                pages.resize(n, [0u8; PAGE_SIZE]);
                PageBatch::Owned(pages)
            }
        }
    }

    fn pages(&self) -> &[Page] {
        match self {
            PageBatch::Codec(host) => host,
            PageBatch::Owned(pages) => pages,
        }
    }

    fn pages_mut(&mut self) -> &mut [Page] {
        match self {
            PageBatch::Codec(host) => host,
            PageBatch::Owned(pages) => pages,
        }
    }

    /// Compresses the batch: into `packed` from the codec's pages (`None`), or into owned records.
    fn compress(
        &self,
        codec: &mut dyn PageCodec,
        packed: &mut PackedRecords,
    ) -> anyhow::Result<Option<Vec<Record>>> {
        match self {
            PageBatch::Codec(host) => codec.compress_host_packed(host, packed).map(|()| None),
            PageBatch::Owned(pages) => codec.compress(pages).map(Some),
        }
    }

    /// Decodes `records` into the batch (as many pages as records).
    fn decompress(
        &mut self,
        codec: &mut dyn PageCodec,
        records: &PackedRecords,
    ) -> anyhow::Result<Result<(), DecodeError>> {
        match self {
            PageBatch::Codec(host) => codec.decompress_host_packed(records, host),
            PageBatch::Owned(pages) => codec.decompress_packed(records, pages),
        }
    }

    /// Returns ordinary memory to `spare` for a later batch (the codec's pages go back to it).
    fn give_back(self, spare: &mut Option<Vec<Page>>) {
        if let PageBatch::Owned(pages) = self {
            *spare = Some(pages);
        }
    }
}

/// Fills `pages` from `reader`, page by page through its buffer: on this project's 2-vCPU VM one read
/// of a whole batch straight into the pages took 3x as long (48 MiB: 30 ms against 9.7 ms). `first`
/// is the first page's index in `input`, for the error.
fn read_pages(
    reader: &mut impl Read,
    pages: &mut [Page],
    first: u64,
    input: &Path,
) -> anyhow::Result<()> {
    for (i, page) in pages.iter_mut().enumerate() {
        reader.read_exact(page).with_context(|| {
            format!(
                "{}: read failed at page {}",
                input.display(),
                first + i as u64
            )
        })?;
    }
    Ok(())
}

/// Removes a partial output file unless disarmed.
struct PartialFile {
    path: PathBuf,
    keep: bool,
}

impl Drop for PartialFile {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

fn page_error(e: ArchiveError, input: &Path) -> anyhow::Error {
    anyhow::anyhow!("{}: {e}", input.display())
}

/// Decompresses the archive `input` into the flat page file `output`, checking every page.
pub fn decompress_file(
    input: &Path,
    output: &Path,
    codec: &mut dyn PageCodec,
    progress: &ProgressBar,
) -> anyhow::Result<Summary> {
    let start = Instant::now();
    let mut reader = ArchiveReader::open(input).map_err(|e| page_error(e, input))?;
    let pages = reader.pages();
    progress.set_length(pages);
    let partial = PartialFile {
        path: crate::archive::partial_path(output),
        keep: false,
    };
    let mut out = BufWriter::with_capacity(
        1 << 20,
        File::create(&partial.path)
            .with_context(|| format!("cannot write {}", output.display()))?,
    );
    let mut summary = Summary {
        pages,
        page_bytes: pages * PAGE_SIZE as u64,
        ..Summary::default()
    };
    let mut done = 0u64;
    let batch_pages = codec.batch_pages().max(1);
    // A batch's records packed in one buffer (no allocation per record), reused batch to batch.
    let mut records = PackedRecords::new();
    let mut crcs = Vec::with_capacity(batch_pages.min(pages as usize));
    let mut spare = None;
    let mut writeback = Writeback::default();
    loop {
        records.clear();
        crcs.clear();
        while records.len() < batch_pages {
            match reader
                .next_packed(&mut records)
                .map_err(|e| page_error(e, input))?
            {
                Some(crc) => crcs.push(crc),
                None => break,
            }
        }
        if records.is_empty() {
            break;
        }
        records
            .iter()
            .for_each(|record| summary.kinds[kind_index(record)] += 1);
        let mut batch = PageBatch::take(codec, records.len(), &mut spare);
        let result = batch.decompress(codec, &records)?;
        let decoded = batch.pages();
        if let Err(e) = result {
            bail!(
                "{}: page {}: {}",
                input.display(),
                done + e.index as u64,
                e.detail
            );
        }
        // The pages are checked on a pool thread while they are written: a page that fails its
        // checksum fails the run, and the partial output is removed.
        let mut corrupt = None;
        let written = rayon::in_place_scope(|s| {
            let corrupt = &mut corrupt;
            let crcs = &crcs;
            s.spawn(move |_| {
                *corrupt = decoded
                    .iter()
                    .zip(crcs)
                    .position(|(page, &crc)| crc32fast::hash(page) != crc)
            });
            decoded.iter().try_for_each(|page| out.write_all(page))
        });
        if let Some(i) = corrupt {
            bail!("{}: page {}: the decoded page does not match its checksum (the archive is corrupted)", input.display(), done + i as u64);
        }
        written?;
        batch.give_back(&mut spare);
        done += records.len() as u64;
        writeback.wrote(&mut out, done * PAGE_SIZE as u64)?;
        progress.set_position(done);
    }
    reader.finish().map_err(|e| page_error(e, input))?;
    out.flush()?;
    out.get_ref().sync_all()?;
    drop(out);
    std::fs::rename(&partial.path, output)
        .with_context(|| format!("cannot move the result to {}", output.display()))?;
    let mut partial = partial;
    partial.keep = true;
    summary.archive_bytes = std::fs::metadata(input)?.len();
    summary.seconds = start.elapsed().as_secs_f64();
    Ok(summary)
}
