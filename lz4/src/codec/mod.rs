//! Page codecs: the backends of `warpforge compress` and `decompress`. Each turns a batch of pages into
//! archive records and back.
//!
//! | backend | compresses with | archive bytes |
//! |---|---|---|
//! | `cpu` | lz4_flex on every core | lz4_flex's blocks |
//! | `reference` | warpforge's CPU reference on every core | identical to `webgpu` (and `cuda`) |
//! | `sim` | the LZ4 warp kernels on the CPU simulator (sanitizer on), [`KernelCodec`] | identical to `reference` |
//! | `webgpu` | the LZ4 warp kernels on a WebGPU adapter through the batch API ([`BatchCodec`]) | identical to `reference` |
//! | `cuda` | the LZ4 warp kernels on a CUDA GPU through the batch API ([`BatchCodec`]) | identical to `reference` |
//!
//! [`KernelCodec`] runs the kernels one synchronous launch per call on any launcher (the simulator,
//! or a WebGPU device for tests that want that path).
//!
//! Every backend decodes every archive: the blocks are standard LZ4.

mod batch;
mod cpu;
mod kernel;
mod open;
mod page_codec;
mod reference_codec;

pub use batch::{BatchCodec, SOFTWARE_BATCH_PAGES};
pub use kernel::KernelCodec;
pub use open::{open, open_at, open_auto, open_auto_at};
pub use page_codec::{PageCodec, BATCH_PAGES};
pub use reference_codec::ReferenceCodec;

pub use crate::kernel_io::{
    compress_through, decompress_through, fill_simple, gather_lz4, record_from_meta,
    scatter_decoded, DecodeError, Lz4Blocks, Page,
};
pub use crate::Backend;

pub use crate::kernel_io::reference::record_of;

pub use cpu::store_page;
pub use cpu::{compress_page as cpu_compress_page, CpuCodec};
