//! The embedded sample of real memory pages (`data/sample-pages.wfpa`): what `warpforge demo` runs
//! on, and what tests and examples use as real pages without a corpus.

use anyhow::Context;

use crate::archive::ArchiveReader;
use crate::codec::{Page, PageCodec, ReferenceCodec};
use crate::PAGE_SIZE;

/// 512 pages sampled evenly from the development corpus (private memory of Python, Node.js and Perl
/// processes), stored as a page archive.
pub const SAMPLE_ARCHIVE: &[u8] = include_bytes!("../data/sample-pages.wfpa");

/// The sample's pages.
pub fn sample_pages() -> anyhow::Result<Vec<Page>> {
    let mut reader = ArchiveReader::from_bytes(SAMPLE_ARCHIVE).context("the embedded sample")?;
    let mut records = Vec::new();
    while let Some((record, _)) = reader.next_record()? {
        records.push(record);
    }
    reader.finish()?;
    let mut pages = vec![[0u8; PAGE_SIZE]; records.len()];
    ReferenceCodec::default()
        .decompress(&records, &mut pages)?
        .map_err(|e| anyhow::anyhow!("sample page {}: {}", e.index, e.detail))?;
    Ok(pages)
}
