//! [`ReferenceCodec`]: warpforge's CPU reference as a page codec.

use super::page_codec::PageCodec;
use crate::archive::{PackedRecords, Record};
use crate::kernel_io::{reference, DecodeError, Page};
use crate::kernels::lz4::Lz4Level;
use crate::Backend;

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

    fn decompress_packed(
        &mut self,
        records: &PackedRecords,
        out: &mut [Page],
    ) -> anyhow::Result<Result<(), DecodeError>> {
        Ok(reference::decompress_records(records, 0, out))
    }
}
