//! Kernels that call the LZ4 device functions ([`super::device`]) with a transform fused in: an
//! XOR-delta page codec, as live migration and memory snapshots use it (XBZRLE-style: a page is stored
//! as its XOR with the previous version of the same page, which is mostly zeros and compresses far
//! better than the page). One launch each way, one warp (block) per page; the delta never travels
//! through global memory. Workgroup memory: the compress kernel holds the delta (4 KiB) beside
//! `compress_page`'s hash table (7,040 bytes; it reads the page from the delta where it is), about
//! 11 KiB in all, within WebGPU's default 16 KiB with the emulated warps' exchange arrays too.
//!
//! The records are those of the batch API on the delta pages: [`xor_delta_compress`]'s block and meta
//! words for page `g` are what [`super::encode_page_level`] at level 0 gives for `page ^ base`, and
//! [`xor_delta_decompress`] inverts any LZ4 block of a delta page. `examples/lz4_fused.rs` runs both
//! on any backend; `tests/it/lz4_device.rs` checks them against the CPU on every backend here.

use super::device::{compress_page, decompress_page};
use warpforge_ir::kernel;

/// Compresses `pages[g] ^ base[g]` for each page `g < n` (1024 words each) at level 0: its LZ4 block
/// into `output[4096 g ..]` and its four meta words (kind, length, pattern) into `meta[4 g ..]`. The
/// XOR is computed into shared memory and compressed from there.
#[kernel(block_size = 32)]
pub fn xor_delta_compress(
    pages: &[u32],
    base: &[u32],
    output: &mut [u8],
    meta: &mut [u32],
    n: u32,
) {
    let g = block_index();
    if g < n {
        let delta = shared::<u32>(1024, 16);
        let first = g * 1024;
        for i in (lane_id()..1024).step_by(32) {
            delta[i] = pages[first + i] ^ base[first + i];
        }
        warp_sync(FULL_MASK);
        compress_page(delta, 0, output, g as u64 * 4096, meta, g * 4);
    }
}

/// Decodes page `g < n`'s LZ4 block (`spans[2 g]`: its first byte in `blocks`, `spans[2 g + 1]`: its
/// length) into shared memory and writes `delta ^ base[g]` to `output[1024 g ..]`; `status[g]` gets the
/// decoder's status word (0 in the low 8 bits when the block decoded to exactly one page; otherwise
/// the page is not written).
#[kernel(block_size = 32)]
pub fn xor_delta_decompress(
    blocks: &[u32],
    spans: &[u32],
    base: &[u32],
    output: &mut [u32],
    status: &mut [u32],
    n: u32,
) {
    let g = block_index();
    if g < n {
        let delta = shared::<u32>(1024, 16);
        let [start, size] = load2(&spans[g * 2]);
        let word = decompress_page(blocks, start, size, delta, 0);
        warp_sync(FULL_MASK);
        if word & 255 == 0 {
            let first = g * 1024;
            for i in (lane_id()..1024).step_by(32) {
                output[first + i] = delta[i] ^ base[first + i];
            }
        }
        if lane_id() == 0 {
            status[g] = word;
        }
    }
}
