//! The CUDA engine's resources ([`RingEngine`]): its loaded kernels and its ring of [`Slot`]s, each
//! with the host and device buffers of a batch of either direction, its streams and its events.
//! `ring_engine.rs` builds and drives it; `ring_compress.rs` and `ring_decompress.rs` are its stages.

use rayon::prelude::*;

use super::driver::Driver;
use super::GpuError;
use crate::kernels::lz4::{compress_scratch_bytes, Lz4Level, BLOCKS_ALIGN, LZ4_MAX_PAGE_BLOCK};
use crate::runtime::Loaded;
use crate::PAGE_SIZE;

/// Bytes each thread copies at a time when a copy is split across threads.
pub(super) const COPY_PART: usize = 256 << 10;

/// Copies `src` into `dst` (same length), split across threads.
pub(super) fn parallel_copy(dst: &mut [u8], src: &[u8]) {
    dst.par_chunks_mut(COPY_PART)
        .zip(src.par_chunks(COPY_PART))
        .for_each(|(d, s)| d.copy_from_slice(s));
}

/// Events of one slot, recorded around each stage.
const EVENTS: usize = 12;

/// Bytes of the `blocks` buffer a batch of `pages` LZ4 blocks may need (each at most
/// [`LZ4_MAX_PAGE_BLOCK`] bytes; longer ones are rejected on the host), padded.
fn blocks_capacity(pages: usize) -> usize {
    (pages * LZ4_MAX_PAGE_BLOCK as usize).div_ceil(BLOCKS_ALIGN) * BLOCKS_ALIGN + BLOCKS_ALIGN
}

/// One ring slot: host and device buffers for a batch of either direction, and its timing events.
pub(super) struct Slot<D: Driver> {
    /// Compression: the pages. Decompression: the gathered LZ4 blocks.
    pub input: D::Host,
    /// `input` on the device.
    pub d_in: D::Buffer,
    /// Compression: each page's 4 KiB output slot. Decompression: the decoded pages.
    pub d_slots: D::Buffer,
    /// Compression: 4 meta words per page. Decompression: 1 status word per page.
    pub d_meta: D::Buffer,
    /// `d_meta` on the host.
    pub meta: D::Host,
    /// Compression: the kernel's chain slots ([`compress_scratch_bytes`]), never copied.
    pub d_scratch: D::Buffer,
    /// Compression: each page's block offset (1 word). Decompression: each block's span (2 words).
    pub offsets_host: D::Host,
    /// `offsets_host` on the device.
    pub d_off: D::Buffer,
    /// Compression: the compacted blocks.
    pub d_compact: D::Buffer,
    /// Compression: the compacted blocks. Decompression: the decoded pages.
    pub out: D::Host,
    pub ev: Vec<D::Event>,
    /// The slot's own H2D, kernel and D2H streams, so that its compaction and download never queue
    /// behind the next slot's upload or kernel.
    pub h2d: D::Stream,
    pub compute: D::Stream,
    pub d2h: D::Stream,
    /// Index (in the whole call) of the first page it holds, and how many pages went to the device.
    pub first: usize,
    pub pages: usize,
    /// Compression: byte offset of each page's block in the compacted output (LZ4 pages only).
    pub offsets: Vec<u32>,
    /// Compression: each page's meta words, decoded (stage C).
    pub metas: Vec<crate::kernel_io::PageMeta>,
    /// Compression: bytes of compacted blocks.
    pub total: usize,
    /// Decompression: per page of the batch, its block's index on the device, or [`SIMPLE`] /
    /// [`TOO_LONG`].
    pub lz4_slot: Vec<u32>,
    /// Decompression: (page index in the batch, byte offset) where each gather part starts.
    pub cuts: Vec<(usize, usize)>,
}

/// A page that is not LZ4 (filled on the host).
pub(super) const SIMPLE: u32 = u32::MAX;
/// An LZ4 block longer than any block of one page (reported on the host, never uploaded).
pub(super) const TOO_LONG: u32 = u32::MAX - 1;

impl<D: Driver> Slot<D> {
    pub(super) fn new(driver: &D, batch: usize, level: Lz4Level) -> Result<Slot<D>, GpuError> {
        let (h2d, compute, d2h) = (driver.stream()?, driver.stream()?, driver.stream()?);
        let bytes = batch * PAGE_SIZE;
        let blocks = blocks_capacity(batch);
        let ev = (0..EVENTS)
            .map(|_| driver.event())
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Slot {
            input: driver.alloc_host(blocks, false)?,
            d_in: driver.alloc(&compute, blocks)?,
            d_slots: driver.alloc(&compute, bytes)?,
            d_meta: driver.alloc(&compute, batch * 16)?,
            meta: driver.alloc_host(batch * 16, true)?,
            d_scratch: driver.alloc(&compute, compress_scratch_bytes(level, batch))?,
            offsets_host: driver.alloc_host(batch * 8, false)?,
            d_off: driver.alloc(&compute, batch * 8)?,
            d_compact: driver.alloc(&compute, bytes)?,
            out: driver.alloc_host(bytes, true)?,
            ev,
            h2d,
            compute,
            d2h,
            first: 0,
            pages: 0,
            offsets: Vec::with_capacity(batch),
            metas: Vec::with_capacity(batch),
            total: 0,
            lz4_slot: Vec::with_capacity(batch),
            cuts: Vec::new(),
        })
    }
}

/// The page kernels pipelined through a ring of slots on a [`Driver`].
pub struct RingEngine<D: Driver> {
    pub(super) driver: D,
    pub(super) compress: Loaded,
    pub(super) compact: Loaded,
    pub(super) decompress: Loaded,
    pub(super) slots: Vec<Slot<D>>,
    /// Page-locked input pages the caller fills in place
    /// ([`Engine::staging`](super::engine::Engine::staging)), and how many pages.
    pub(super) staging: Option<D::Host>,
    pub(super) staging_pages: usize,
    /// Page-locked pages given out to callers ([`super::HostPages`]), reused when they come back.
    pub(super) pool: super::host_pages::HostPool<D::Host>,
    pub(super) batch: usize,
    pub(super) async_dma: bool,
}
