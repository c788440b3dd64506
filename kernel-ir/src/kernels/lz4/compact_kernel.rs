//! Compaction after compression, so only compressed bytes cross PCIe: one warp per page copies the
//! page's LZ4 block (kind 0) from its 4096-byte output slot to `offsets[page]` in a contiguous buffer.
//! The host computes the offsets from the per-page sizes it read back first.

use super::warp_ops::for_range;
use super::PAGE_SIZE;
use crate::builder::{KernelBuilder, U32, U8};
use crate::{Access, Kernel};

/// Builds the compaction kernel with `warps_per_block` pages per block. Parameters: `slots` (the
/// compress kernel's output), `meta` (its 4 words per page), `offsets` (1 word per page), `compact`
/// (the destination), `pages`.
pub fn lz4_compact_kernel(warps_per_block: u32) -> Kernel {
    let mut b = KernelBuilder::new("lz4_compact_pages", 32 * warps_per_block);
    let slots = b.buffer::<U8>("slots", Access::ReadOnly);
    let meta = b.buffer::<U32>("meta", Access::ReadOnly);
    let offsets = b.buffer::<U32>("offsets", Access::ReadOnly);
    let compact = b.buffer::<U8>("compact", Access::ReadWrite);
    let pages = b.scalar_param::<U32>("pages");
    let j = b.local::<U32>("j");
    let block = b.block_index();
    let w = b.u32(warps_per_block);
    let first = b.mul(block, w);
    let warp = b.warp_index();
    let g = b.add(first, warp);
    let pages = b.param(pages);
    let in_range = b.lt(g, pages);
    b.if_(in_range, |b| {
        let four = b.u32(4);
        let m = b.mul(g, four);
        let kind = b.load(meta, m);
        let zero = b.u32(0);
        let is_lz4 = b.eq(kind, zero);
        b.if_(is_lz4, |b| {
            let one = b.u32(1);
            let at = b.add(m, one);
            let len = b.load(meta, at);
            let dst = b.load(offsets, g);
            let page = b.u32(PAGE_SIZE as u32);
            let src = b.mul(g, page);
            let lane = b.lane_id();
            for_range(b, j, lane, len, 32, |b, k| {
                let from = b.add(src, k);
                let byte = b.load(slots, from);
                let to = b.add(dst, k);
                b.store(compact, to, byte);
            });
        });
    });
    b.finish().expect("the compaction kernel verifies")
}
