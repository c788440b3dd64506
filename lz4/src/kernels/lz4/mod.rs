//! LZ4 block compression of memory pages: the constants, the hash, and the CPU reference of exactly the
//! algorithm the warp kernels run (byte-identical output).
//!
//! # The algorithm
//!
//! For an input of `n` bytes, every position `p` with `p + 12 <= n` is a match start candidate (LZ4's
//! end-of-block rules forbid later ones). Its *chain* is every earlier such position `q < p` with
//! `lz4_hash(read32(q)) == lz4_hash(read32(p))`, most recent first ([`lz4_candidates`] gives the first
//! link of each; every position is in the table, not only the ones the parse visits). A chain entry
//! *verifies* when `read32(q) == read32(p)` (and `p - q <= LZ4_MAX_OFFSET`).
//!
//! The parse is set by an [`Lz4Level`] (depth `D`, lazy steps `L`, nice length `N`):
//! 1. From the current position, the first `x` with a verified entry among the first `D` of its chain
//!    starts a match.
//! 2. The match at a position is the longest of its verified entries among the first `D`, lengths
//!    counted forward from 4 while bytes agree, never past `n - LZ4_LAST_LITERALS`, and compared only up
//!    to `N` (ties keep the most recent). One that reaches `N` is then extended as far as bytes agree.
//! 3. Lazy steps: while the match is shorter than `N`, the positions `x + 1 ..= x + L` (before the
//!    first one past the searchable range) are tried in turn; the first with a longer match becomes the
//!    new `x` and the steps start again from it.
//! 4. The match is extended backward over pending literals while bytes agree, the sequence is written,
//!    and the parse resumes after the match.
//!
//! The last `LZ4_LAST_LITERALS` bytes are always literals, and no match starts after
//! `n - LZ4_MF_LIMIT`: liblz4 and lz4_flex both accept every block this produces. Deeper chains and lazy
//! steps are what make the result smaller than liblz4's default and close to LZ4HC (`docs/lz4.md`).
//!
//! The warp kernel ([`lz4_compress_kernel_level`]) computes the same bytes: chains are held as the
//! positions sorted by hash (a counting sort in shared memory), so lane `k` reads chain entry `k`
//! directly; lanes compare 32 entries at a time, a warp-wide maximum picks the longest.
//!
//! ```
//! use warpforge_lz4::kernels::lz4::{lz4_compress_block, lz4_decompress_block, PAGE_SIZE};
//!
//! let input = vec![0u8; PAGE_SIZE as usize];
//! let mut compressed = vec![0u8; PAGE_SIZE as usize];
//! let size = lz4_compress_block(&input, &mut compressed).unwrap();
//! let mut decompressed = vec![0u8; PAGE_SIZE as usize];
//! let decomp_size = lz4_decompress_block(&compressed[..size], &mut decompressed).unwrap();
//! assert_eq!(decomp_size, PAGE_SIZE);
//! assert_eq!(decompressed, input);
//! ```

mod compact_kernel;
mod compress_chains;
mod compress_emit;
mod compress_greedy;
mod compress_kernel;
mod compress_longest;
mod compress_search;
mod decode;
mod decompress_kernel;
mod decompress_layout;
mod decompress_seq;
mod decompress_window;
pub mod device;
mod encode;
mod encode_fast;
mod format;
pub mod fused;
mod level;
mod page;
pub mod pages;
mod sequences;
mod warp_ops;

pub use compact_kernel::lz4_compact_kernel;
pub use compress_kernel::{
    compress_scratch_bytes, lz4_compress_kernel, lz4_compress_kernel_from_input,
    lz4_compress_kernel_level,
};
pub(crate) use compress_kernel::{COMPRESS_ENTRY, COMPRESS_FROM_INPUT_ENTRY};
pub use decode::lz4_decompress_block;
pub use decompress_kernel::{lz4_decompress_kernel, lz4_decompress_kernel_one_at_a_time};
pub use decompress_layout::{
    decode_status, BLOCKS_ALIGN, IN_PLACE_GAP, LZ4_MAX_PAGE_BLOCK, WARP_BYTES,
};
pub use encode::{lz4_candidates, lz4_compress_block, lz4_compress_block_level};
pub use encode_fast::{fast_hash, FAST_BUCKETS, FAST_HASH_BITS};
pub use format::*;
pub use level::{Lz4Level, UnknownLevel};
pub use page::{encode_page, encode_page_level, same_filled_pattern, PageEncoding};
pub use sequences::lz4_compress_bound;
