//! The `cpu` backend: lz4_flex on every core (same-filled and raw pages as in the kernels' format).

use super::page_codec::PageCodec;
use crate::archive::{PackedRecords, Record, Records};
use crate::kernel_io::reference::{decode_all, parallel_map};
use crate::kernel_io::{DecodeError, Page};
use crate::kernels::lz4::same_filled_pattern;
use crate::Backend;
use crate::PAGE_SIZE;

/// lz4_flex on all cores.
pub struct CpuCodec;

/// One page with lz4_flex.
pub fn compress_page(page: &Page) -> Record {
    store_page(page, |p| Some(lz4_flex::block::compress(p)))
}

/// How the archive stores `page` with a block compressor: a same-filled page as its pattern, else the
/// block `compress` writes, or the page raw when there is none or it is not shorter than the page.
pub fn store_page(page: &Page, compress: impl FnOnce(&Page) -> Option<Vec<u8>>) -> Record {
    if let Some(pattern) = same_filled_pattern(page) {
        return Record::SameFilled(pattern);
    }
    match compress(page) {
        Some(block) if block.len() < PAGE_SIZE => Record::Lz4(block),
        _ => Record::Raw(Box::new(*page)),
    }
}

impl PageCodec for CpuCodec {
    fn backend(&self) -> Backend {
        Backend::Cpu
    }

    fn compress(&mut self, pages: &[Page]) -> anyhow::Result<Vec<Record>> {
        Ok(parallel_map(pages, compress_page))
    }

    fn decompress(
        &mut self,
        records: &[Record],
        out: &mut [Page],
    ) -> anyhow::Result<Result<(), DecodeError>> {
        Ok(decode(&records, out))
    }

    fn decompress_packed(
        &mut self,
        records: &PackedRecords,
        out: &mut [Page],
    ) -> anyhow::Result<Result<(), DecodeError>> {
        Ok(decode(records, out))
    }
}

/// lz4_flex on every core over `records`.
fn decode(records: &dyn Records, out: &mut [Page]) -> Result<(), DecodeError> {
    decode_all(records, 0, out, |block, page| {
        lz4_flex::block::decompress_into(block, page)
            .map_err(|e| format!("malformed LZ4 block: {e}"))
    })
}
