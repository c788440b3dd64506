//! Page codecs: the backends of `warpforge compress` and `decompress`. Each turns a batch of pages into
//! archive records and back.
//!
//! | backend | compresses with | archive bytes |
//! |---|---|---|
//! | `cpu` | lz4_flex on every core | lz4_flex's blocks |
//! | `reference` | warpforge's CPU reference on every core | identical to `webgpu` (and `cuda`) |
//! | `sim` | the LZ4 warp kernels on the CPU simulator (sanitizer on), [`KernelCodec`] | identical to `reference` |
//! | `webgpu` | the LZ4 warp kernels through wgpu, [`KernelCodec`] | identical to `reference` |
//! | `cuda` | the LZ4 warp kernels on a CUDA GPU through the batch API ([`CudaCodec`]) | identical to `reference` |
//!
//! Every backend decodes every archive: the blocks are standard LZ4.

mod cpu;
mod cuda;
mod kernel;
mod open;

pub use cuda::CudaCodec;
pub use kernel::KernelCodec;
pub use open::{open, open_at, open_auto, open_auto_at};

pub use crate::kernel_io::{
    compress_through, decompress_through, fill_simple, gather_lz4, record_from_meta,
    scatter_decoded, DecodeError, Lz4Blocks, Page,
};
pub use crate::Backend;

pub use crate::kernel_io::reference::record_of;
pub(crate) use crate::kernel_io::reference::{decode_all, parallel_map};

use crate::archive::Record;
use crate::kernel_io::reference;
use crate::kernels::lz4::Lz4Level;

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
    /// memory. Default [`crate::pipeline::BATCH_PAGES`].
    fn batch_pages(&self) -> usize {
        crate::pipeline::BATCH_PAGES
    }
    /// One record per page.
    fn compress(&mut self, pages: &[Page]) -> anyhow::Result<Vec<Record>>;
    /// Decodes `records` into `out` (same length).
    fn decompress(
        &mut self,
        records: &[Record],
        out: &mut [Page],
    ) -> anyhow::Result<Result<(), DecodeError>>;
}

/// warpforge's CPU reference: byte-identical to the kernels at the same level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReferenceCodec {
    level: Lz4Level,
}

impl ReferenceCodec {
    /// The reference compressing at `level`.
    pub fn at_level(level: Lz4Level) -> ReferenceCodec {
        ReferenceCodec { level }
    }
}

impl PageCodec for ReferenceCodec {
    fn backend(&self) -> Backend {
        Backend::Reference
    }

    fn compress(&mut self, pages: &[Page]) -> anyhow::Result<Vec<Record>> {
        Ok(reference::compress(pages, self.level))
    }

    fn decompress(
        &mut self,
        records: &[Record],
        out: &mut [Page],
    ) -> anyhow::Result<Result<(), DecodeError>> {
        Ok(reference::decompress(records, out))
    }
}

pub(crate) use cpu::store_page;
pub use cpu::{compress_page as cpu_compress_page, CpuCodec};
