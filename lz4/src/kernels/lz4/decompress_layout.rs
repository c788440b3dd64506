//! The decompress kernel's sizes, its status codes ([`decode_status`]) and its declarations ([`Dec`]),
//! shared by `decompress_kernel.rs` (the kernel and its staging) and `decompress_seq.rs` (the
//! sequence loop).

use super::PAGE_SIZE;
use warpforge_ir::builder::{AnyArray, GlobalBuf, KernelBuilder, Local, SharedArr, Val, U32, U8};

pub(super) const PAGE: u32 = PAGE_SIZE as u32;

/// The longest LZ4 block that can decode to exactly one page: every byte beyond the page's 4096 comes
/// from a token or a length byte, and a sequence spends at most its length / 255 bytes on lengths and
/// gains at least one byte by its match, so a page's block is at most 4096 + 2 + ⌊4096 / 255⌋ bytes.
/// Longer blocks are rejected before anything is read ([`decode_status::TOO_LONG`]).
pub const LZ4_MAX_PAGE_BLOCK: u32 = PAGE + 2 + PAGE / 255;

/// Bytes of shared memory per warp that hold the block: the longest block at any 16-byte alignment.
pub const STAGE_BYTES: u32 = (LZ4_MAX_PAGE_BLOCK + 15).div_ceil(16) * 16;

/// The `blocks` buffer's length must be a multiple of this many bytes (the kernel reads it in aligned
/// 16-byte groups; pad with anything).
pub const BLOCKS_ALIGN: usize = 16;

/// Status codes of the decompress kernel, in the low 8 bits of a page's status word; the high 24 bits
/// hold the byte offset in the block where decoding stopped.
pub mod decode_status {
    /// The block decoded to exactly one page.
    pub const OK: u32 = 0;
    /// A length or the literals run past the end of the block (or the block is empty).
    pub const TRUNCATED: u32 = 1;
    /// A match offset is 0 or points before the start of the page.
    pub const BAD_OFFSET: u32 = 2;
    /// The block decodes to more than one page.
    pub const OVERFLOW: u32 = 3;
    /// The block ends with a match, or decodes to less than a page.
    pub const BAD_END: u32 = 4;
    /// The block is longer than any block of one page can be ([`super::LZ4_MAX_PAGE_BLOCK`] bytes).
    pub const TOO_LONG: u32 = 5;
}

/// Where a page's block is and where its page goes.
#[derive(Clone, Copy)]
pub(super) enum DecPlace {
    /// The batch kernel's page `g`: its span is words `2 g, 2 g + 1` of `spans`, its page words
    /// `1024 g..` of the output, its status word `status[g]`.
    Batch {
        g: Val<U32>,
        spans: GlobalBuf<U32>,
        status: GlobalBuf<U32>,
    },
    /// A device function's page: the block's first byte and length in the blocks array, the page's
    /// first word in the output array; the status word is returned.
    At {
        start: Val<U32>,
        size: Val<U32>,
        out_word: Val<U32>,
    },
}

/// The arrays, shared arrays and locals of one page's decoding.
#[derive(Clone, Copy)]
pub(super) struct Dec {
    /// The LZ4 blocks as little-endian words (read in aligned 16-byte groups).
    pub blocks: AnyArray<U32>,
    /// The decoded pages as little-endian words.
    pub output: AnyArray<U32>,
    /// The warps' staged blocks, [`STAGE_BYTES`] each.
    pub stage: SharedArr<U8>,
    /// The warps' decoded pages, 4096 bytes each.
    pub page: SharedArr<U8>,
    /// Where the parse is, as an index into `stage`.
    pub s: Local<U32>,
    /// Bytes of the page decoded so far.
    pub d: Local<U32>,
    pub code: Local<U32>,
    pub len: Local<U32>,
    /// Loop counter of the staging loop (it starts at each lane's own group).
    pub i: Local<U32>,
    /// Loop counter of the warp-uniform loops (copy rounds, writing the page out): apart from `i`
    /// so that the uniformity analysis sees it uniform.
    pub round: Local<U32>,
}

impl Dec {
    /// Declares the shared arrays (sized for every warp of the block) and the locals of decoding
    /// from `blocks` into `output`.
    pub(super) fn declare(
        b: &mut KernelBuilder,
        blocks: AnyArray<U32>,
        output: AnyArray<U32>,
    ) -> Dec {
        let warps = b.threads_per_block() / 32;
        Dec {
            blocks,
            output,
            stage: b.shared("staged", warps * STAGE_BYTES, 16),
            page: b.shared("decoded", warps * PAGE, 16),
            s: b.local("s"),
            d: b.local("d"),
            code: b.local("code"),
            len: b.local("len"),
            i: b.local("i"),
            round: b.local("round"),
        }
    }
}
