//! The decompress kernel's sizes, its status codes ([`decode_status`]) and its declarations ([`Dec`]),
//! shared by `decompress_kernel.rs` (the kernel and its staging) and `decompress_seq.rs` (the
//! sequence loop).

use super::PAGE_SIZE;
use warpforge_ir::builder::{AnyArray, GlobalBuf, KernelBuilder, Local, SharedArr, Val, U32};

pub(super) const PAGE: u32 = PAGE_SIZE as u32;

/// The longest LZ4 block that can decode to exactly one page: every byte beyond the page's 4096 comes
/// from a token or a length byte, and a sequence spends at most its length / 255 bytes on lengths and
/// gains at least one byte by its match, so a page's block is at most 4096 + 2 + ⌊4096 / 255⌋ bytes.
/// Longer blocks are rejected before anything is read ([`decode_status::TOO_LONG`]).
pub const LZ4_MAX_PAGE_BLOCK: u32 = PAGE + 2 + PAGE / 255;

/// Bytes of shared memory per warp: the page, and the block staged at the end of the same bytes
/// (decoding in place, as liblz4's in-place decompression does). The page grows from the front while
/// the parse moves through the block towards the end; the kernel keeps the write position at least
/// [`IN_PLACE_GAP`] bytes behind the next unread block byte, so that a round of 32 lanes never writes
/// what it or a later round reads.
///
/// Why 96 bytes past the page suffice for every valid block: a block of `L` bytes at any alignment
/// is staged as whole 16-byte groups ending at the end, so its first byte is at least
/// `WARP_BYTES − L − 15` in. At a sequence's start, with `I` block bytes read and `O` page bytes
/// written, the rest of the block (`L − I` bytes) decodes to `4096 − O`; each remaining sequence with
/// a match reads at most one byte more than it writes beyond its literal-length bytes past the first
/// (token, offset and match-length bytes against a match of at least 4, or at least 19 with a length
/// byte), and the last one (literals only) its token and literal-length bytes, so `(L − I) − (4096 −
/// O)` is at most 2 + ⌊(4096 − 15) / 255⌋ = 18. The gap between the next unread byte and the write
/// position is then at least `WARP_BYTES − L − 15 + (L − 4096) − 18 = WARP_BYTES − 4129` = 63 ≥
/// [`IN_PLACE_GAP`]. A malformed block can close the gap (a dense valid prefix, then junk): the kernel
/// checks it once per sequence, before the sequence's copies, and stops with
/// [`decode_status::OVERRUN`].
pub const WARP_BYTES: u32 = PAGE + 96;

/// The least distance, in bytes, between the page's write position and the next unread block byte
/// at a sequence's start (see [`WARP_BYTES`]).
pub const IN_PLACE_GAP: u32 = 32;

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
    /// A sequence would write the page over block bytes not read yet (the kernel decodes in place,
    /// [`super::WARP_BYTES`]). No valid page block does this, so the block is malformed; the CPU
    /// decoder ([`super::super::lz4_decompress_block`]) names what is wrong with it. The offset is the
    /// sequence's literal length's end, where the check is made.
    pub const OVERRUN: u32 = 6;
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
    /// The warps' pages and staged blocks, [`WARP_BYTES`] each: the page from the front, the block
    /// at the end. Bytes in little-endian words: the parse and the copies read and write bytes
    /// (`load.u8`, `store.u8`), the staging and the write-out whole words.
    pub buf: SharedArr<U32>,
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
    /// The fast path's place in its window: the lane holding the next sequence's fields.
    pub rel: Local<U32>,
    /// Whether sequences are parsed a window at a time (`decompress_window.rs`) before falling back
    /// to one at a time; always, except in the reference kernel the window is tested against.
    pub window: bool,
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
            buf: b.shared("decoded", warps * WARP_BYTES / 4, 16),
            s: b.local("s"),
            d: b.local("d"),
            code: b.local("code"),
            len: b.local("len"),
            i: b.local("i"),
            round: b.local("round"),
            rel: b.local("rel"),
            window: true,
        }
    }
}
