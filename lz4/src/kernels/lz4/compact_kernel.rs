//! Compaction after compression, so only compressed bytes cross PCIe: one warp per page copies the
//! page's LZ4 block (kind 0) from its 4096-byte output slot to `offsets[page]` in a contiguous buffer.
//! The host computes the offsets from the per-page sizes it read back first.
//!
//! Written as a Rust function (`#[kernel]`); `tests/it/lz4_compact_macro.rs` proves it equal to the
//! builder form it replaced (the same IR, statement for statement).

use warpforge_ir::{kernel, Kernel};

/// The compaction kernel with `WARPS` pages per block. Parameters: `slots` (the compress kernel's
/// output), `meta` (its 4 words per page), `offsets` (1 word per page), `compact` (the
/// destination), `pages`.
#[kernel(block_size = 32 * WARPS)]
pub fn lz4_compact_pages<const WARPS: u32>(
    slots: &[u8],
    meta: &[u32],
    offsets: &[u32],
    compact: &mut [u8],
    pages: u32,
) {
    let g = block_index() * WARPS + warp_index();
    if g < pages {
        let m = g * 4;
        let kind = meta[m];
        if kind == 0 {
            let len = meta[m + 1];
            let dst = offsets[g];
            let src = g * 4096;
            let lane = lane_id();
            // Lane l copies bytes l, l + 32, …: the warp's strided loop of the LZ4 kernels.
            let mut j = lane;
            loop {
                let k = j;
                if k >= len {
                    break;
                }
                compact[dst + k] = slots[src + k];
                j = k + 32;
            }
        }
    }
}

/// The compaction kernel (`lz4_compact_pages`: each page's block from its 4 KiB slot to a host-given offset) with `warps_per_block` pages per block (1 to 32).
///
/// # Panics
/// Outside 1..=32: a block holds at most 32 warps.
pub fn lz4_compact_kernel(warps_per_block: u32) -> Kernel {
    macro_rules! by_warps {
        ($($w:literal)*) => {
            match warps_per_block {
                $($w => lz4_compact_pages::<$w>(),)*
                other => panic!("{other} warps per block: a block holds 1 to 32 warps"),
            }
        };
    }
    by_warps!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32)
}
