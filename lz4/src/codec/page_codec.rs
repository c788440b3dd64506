//! What a page codec is ([`PageCodec`]).

use crate::archive::{PackedRecords, Record};
use crate::gpu::HostPages;
use crate::kernel_io::{DecodeError, Page};
use crate::Backend;

/// Pages per batch unless the codec asks for more ([`PageCodec::batch_pages`]): 8 MiB of input, so
/// memory stays bounded whatever the input size.
pub const BATCH_PAGES: usize = 2048;

/// Compresses and decompresses batches of pages.
pub trait PageCodec {
    /// The backend.
    fn backend(&self) -> Backend;
    /// The backend and, for a device, which one.
    fn describe(&self) -> String {
        self.backend().to_string()
    }
    /// Pages the streaming pipeline hands over per call: enough to keep the device busy (a CUDA ring
    /// needs `slots × batch_size` pages to overlap its transfers and kernels), few enough to bound
    /// memory. Default [`BATCH_PAGES`].
    fn batch_pages(&self) -> usize {
        BATCH_PAGES
    }
    /// Pages the codec redid on the CPU after a GPU failure, over its life (the batch API's CPU
    /// fallback; each failure is also said on stderr). 0 for codecs without one.
    fn cpu_fallback_pages(&self) -> u64 {
        0
    }
    /// One record per page.
    fn compress(&mut self, pages: &[Page]) -> anyhow::Result<Vec<Record>>;
    /// Decodes `records` into `out` (same length).
    fn decompress(
        &mut self,
        records: &[Record],
        out: &mut [Page],
    ) -> anyhow::Result<Result<(), DecodeError>>;
    /// `pages` pages of the codec's own memory to read a batch into, when it has any: page-locked on
    /// CUDA, so [`PageCodec::compress_host`] uploads them and [`PageCodec::decompress_host`]
    /// downloads into them without a copy. `None` (the default): any memory will do.
    fn host_pages(&mut self, _pages: usize) -> Option<HostPages> {
        None
    }
    /// [`PageCodec::compress`] of pages from [`PageCodec::host_pages`].
    fn compress_host(&mut self, pages: &HostPages) -> anyhow::Result<Vec<Record>> {
        self.compress(pages)
    }
    /// [`PageCodec::compress_host`] into packed records (`out`, its previous records replaced): one
    /// buffer for the whole batch instead of an allocation per record, where the codec has such a path
    /// (the batch API's). By default through `compress_host`.
    fn compress_host_packed(
        &mut self,
        pages: &HostPages,
        out: &mut PackedRecords,
    ) -> anyhow::Result<()> {
        let records = self.compress_host(pages)?;
        out.clear();
        records.iter().for_each(|record| out.push(record.view()));
        Ok(())
    }
    /// [`PageCodec::decompress`] of packed records (as the file pipeline reads them: no allocation per
    /// record). By default through `decompress` of the owned records.
    fn decompress_packed(
        &mut self,
        records: &PackedRecords,
        out: &mut [Page],
    ) -> anyhow::Result<Result<(), DecodeError>> {
        self.decompress(&records.to_records(), out)
    }
    /// [`PageCodec::decompress_packed`] into pages from [`PageCodec::host_pages`]. By default through
    /// `decompress_host` of the owned records.
    fn decompress_host_packed(
        &mut self,
        records: &PackedRecords,
        out: &mut HostPages,
    ) -> anyhow::Result<Result<(), DecodeError>> {
        self.decompress_host(&records.to_records(), out)
    }
    /// [`PageCodec::decompress`] into pages from [`PageCodec::host_pages`].
    fn decompress_host(
        &mut self,
        records: &[Record],
        out: &mut HostPages,
    ) -> anyhow::Result<Result<(), DecodeError>> {
        self.decompress(records, out)
    }
}
