//! The LZ4 page-decompression kernel in the IR: one warp per page, checked like
//! [`super::lz4_decompress_block`]: every token, length and offset is validated against the input and
//! output bounds before anything is copied, and a malformed block gives its page an error status —
//! never an out-of-bounds read or write.
//!
//! Parameters: `blocks` (the LZ4 blocks, concatenated bytes read as little-endian words; the buffer's
//! length is a multiple of [`BLOCKS_ALIGN`] bytes), `spans` (2 words per page: the block's byte offset
//! in `blocks` and its length), `output` (1024 little-endian words per page), `status` (1 word per
//! page, see [`decode_status`]), `pages`.
//!
//! How a warp decodes its page (the layout nvCOMP's and other GPU LZ4 decoders use, decoding in place
//! as liblz4's in-place decompression does):
//! 1. **Stage**: the block is read with coalesced 16-byte loads (every lane one aligned group of four
//!    words) into the end of the warp's [`WARP_BYTES`] of shared memory, whose front will hold the
//!    page: 4,192 bytes per warp instead of a separate staging area and page (8,240), so twice the
//!    warps fit an SM.
//! 2. **Parse** from shared memory, 32 candidates at once (`decompress_window.rs`): lane `l` parses
//!    the sequence that would start at block byte `s + l` (token, offset, one match-length byte),
//!    and the warp follows the real sequences from candidate to candidate with shuffles, so a
//!    window of about seven sequences costs one round of loads. The walk is warp-uniform. A
//!    sequence the window does not take — literal length 15 or more, a longer match-length field,
//!    the last sequence, and any error — is parsed alone with every check of the CPU decoder, in its
//!    order (`decompress_seq.rs`), so a malformed block stops with the CPU decoder's status.
//! 3. **Copy** into the warp's page in shared memory, one byte per lane, the write position kept
//!    [`IN_PLACE_GAP`](super::IN_PLACE_GAP) bytes behind the next unread block byte (checked once
//!    per sequence; a malformed block that would close the gap stops with
//!    [`decode_status::OVERRUN`]): literals and match of at most 32 bytes (most of them) take one
//!    masked step each, with no loop; longer ones loop 32 bytes at a time. A match copies
//!    `dst[d + k] = dst[d − offset + (k mod offset)]`; `k mod offset` is computed once per sequence
//!    for the lanes (a reciprocal, no division per byte),
//!    and a long match's later rounds read the bytes `offset · ⌈32 / offset⌉` back, which the earlier
//!    rounds wrote, so overlapping matches need no per-byte arithmetic either.
//! 4. **Write out** the page as words, each lane every 32nd word (conflict-free shared reads,
//!    coalesced 128-byte stores), only when the block decoded to exactly one page.

use super::decompress_layout::{
    decode_status, Dec, DecPlace, LZ4_MAX_PAGE_BLOCK, PAGE, WARP_BYTES,
};
use super::decompress_seq::{lane_reciprocal, Consts, Seq};
use super::warp_ops::for_step;
use warpforge_ir::builder::{AnyArray, KernelBuilder, Val, U32};
use warpforge_ir::{Access, Kernel, Mask};

/// Builds the decompress kernel with `warps_per_block` warps (pages) per block.
pub fn lz4_decompress_kernel(warps_per_block: u32) -> Kernel {
    decompress_kernel(warps_per_block, true)
}

/// The decompress kernel without its window parse (`lz4_decompress_one_at_a_time`): every sequence
/// parsed and checked alone, as before the window (`decompress_window.rs`). Same parameters,
/// statuses and pages, more instructions; kept as the reference the window is tested against, and
/// timed beside it by the GPU bench (`examples/gpu_kernel_bench`).
pub fn lz4_decompress_kernel_one_at_a_time(warps_per_block: u32) -> Kernel {
    decompress_kernel(warps_per_block, false)
}

fn decompress_kernel(warps_per_block: u32, window: bool) -> Kernel {
    let name = if window {
        "lz4_decompress_pages"
    } else {
        "lz4_decompress_one_at_a_time"
    };
    let mut b = KernelBuilder::new(name, 32 * warps_per_block);
    let blocks = b.buffer::<U32>("blocks", Access::ReadOnly);
    let spans = b.buffer::<U32>("spans", Access::ReadOnly);
    let output = b.buffer::<U32>("output", Access::ReadWrite);
    let status = b.buffer::<U32>("status", Access::ReadWrite);
    let pages = b.scalar_param::<U32>("pages");
    let k = Dec {
        window,
        ..Dec::declare(&mut b, AnyArray::of(blocks), AnyArray::of(output))
    };
    let c = Consts::new(&mut b);
    let pages = b.param(pages);
    let block = b.block_index();
    let w = b.u32(warps_per_block);
    let first = b.mul(block, w);
    let warp = b.warp_index();
    let g = b.add(first, warp);
    let in_range = b.lt(g, pages);
    b.if_(in_range, |b| {
        let place = DecPlace::Batch { g, spans, status };
        k.decode_page(b, &c, place);
    });
    b.finish().expect("the LZ4 decompress kernel verifies")
}

impl Dec {
    /// Decodes the page at `place`; the whole warp calls it, with warp-uniform arguments. Returns the
    /// status word ([`decode_status`] in the low 8 bits, the block offset where decoding stopped
    /// above) in every lane for a device function's page (the batch kernel stores it instead).
    pub(super) fn decode_page(
        &self,
        b: &mut KernelBuilder,
        c: &Consts,
        place: DecPlace,
    ) -> Option<Val<U32>> {
        let lane = b.lane_id();
        let warp = b.warp_index();
        let warp_bytes = b.u32(WARP_BYTES);
        let obase = b.mul(warp, warp_bytes);
        let [start, size] = match place {
            DecPlace::Batch { g, spans, .. } => {
                let span = b.shl(g, c.one);
                b.load_wide::<2, _>(spans, span)
            }
            DecPlace::At { start, size, .. } => [start, size],
        };
        // The block's aligned 16-byte groups end where the warp's bytes end (wrapping arithmetic for
        // a block refused as too long: its `s − ibase` is still 0).
        let shift = b.and(start, c.fifteen);
        let spanned = b.add(shift, size);
        let spanned = b.add(spanned, c.fifteen);
        let groups = b.shr(spanned, c.four);
        let staged = b.shl(groups, c.four);
        let end = b.add(obase, warp_bytes);
        let sbase = b.sub(end, staged);
        let ibase = b.add(sbase, shift);
        let send = b.add(ibase, size);
        let lane_out = b.add(obase, lane);
        let end_less_one = b.sub(end, c.one);
        let end_less_two = b.sub(end, c.two);
        let p = Seq {
            lane,
            obase,
            lane_out,
            ibase,
            send,
            end_less_one,
            end_less_two,
            recips: lane_reciprocal(b, c, lane),
        };
        b.assign(self.s, ibase);
        b.assign(self.d, c.zero);
        b.assign(self.code, c.zero);
        // An empty block is truncated; one longer than a page's block can be is refused unread.
        let size_less_one = b.sub(size, c.one);
        let longest = b.u32(LZ4_MAX_PAGE_BLOCK);
        let bad_size = b.ge(size_less_one, longest);
        b.if_else(
            bad_size,
            |b| {
                let empty = b.eq(size, c.zero);
                let truncated = b.u32(decode_status::TRUNCATED);
                let too_long = b.u32(decode_status::TOO_LONG);
                let code = b.select(empty, truncated, too_long);
                b.assign(self.code, code);
            },
            |b| {
                self.stage_block(b, c, lane, sbase, start, size);
                b.warp_sync(Mask::FULL);
                self.sequences(b, c, &p);
            },
        );
        self.finish(b, c, &p, place)
    }

    /// Copies the block into the end of the warp's bytes: lane `l` loads the aligned 16-byte groups
    /// `l, l + 32, …` of the words that hold the block, and stores their bytes at the same offsets from
    /// `sbase` (so block byte `j` lands at `sbase + (start mod 16) + j`).
    fn stage_block(
        &self,
        b: &mut KernelBuilder,
        c: &Consts,
        lane: Val<U32>,
        sbase: Val<U32>,
        start: Val<U32>,
        size: Val<U32>,
    ) {
        let first_group = b.shr(start, c.four);
        let first_word = b.shl(first_group, c.two);
        let end = b.add(start, size);
        let end = b.add(end, c.three);
        let end_word = b.shr(end, c.two);
        let words = b.sub(end_word, first_word);
        let lane_word = b.shl(lane, c.two);
        // `sbase` is a multiple of 16 (the warp's bytes start at one, and the staged groups end
        // where they end), so every group lands on an aligned group of the warp's words.
        let sbase_word = b.shr(sbase, c.two);
        for_step(b, self.i, lane_word, words, c.c128, |b, w| {
            let at = b.add(first_word, w);
            let group = b.load_wide::<4, _>(self.blocks, at);
            let to = b.add(sbase_word, w);
            b.store_wide(self.buf, to, group);
        });
    }

    /// Checks the decoded size, copies the page out as words, and writes the status.
    fn finish(
        &self,
        b: &mut KernelBuilder,
        c: &Consts,
        p: &Seq,
        place: DecPlace,
    ) -> Option<Val<U32>> {
        b.warp_sync(Mask::FULL);
        let code = b.read(self.code);
        let ok = b.eq(code, c.zero);
        let d = b.read(self.d);
        let short = b.ne(d, c.page);
        let short = b.and(ok, short);
        b.if_(short, |b| {
            let code = b.u32(decode_status::BAD_END);
            b.assign(self.code, code);
        });
        let code = b.read(self.code);
        let ok = b.eq(code, c.zero);
        b.if_(ok, |b| self.write_page(b, c, p, place));
        let status_word = |b: &mut KernelBuilder| {
            let s = b.read(self.s);
            let at = b.sub(s, p.ibase);
            let eight = b.u32(8);
            let position = b.shl(at, eight);
            let code = b.read(self.code);
            b.or(code, position)
        };
        match place {
            DecPlace::Batch { g, status, .. } => {
                let first = b.eq(p.lane, c.zero);
                b.if_(first, |b| {
                    let word = status_word(b);
                    b.store(status, g, word);
                });
                None
            }
            DecPlace::At { .. } => Some(status_word(b)),
        }
    }

    /// Lane `l` writes the page's words `l, l + 32, …`, four per round: the warp reads 32
    /// consecutive shared words per load (no bank conflict) and stores 128 consecutive bytes per
    /// store.
    fn write_page(&self, b: &mut KernelBuilder, c: &Consts, p: &Seq, place: DecPlace) {
        let words = b.u32(PAGE / 4);
        let first_word = match place {
            DecPlace::Batch { g, .. } => b.mul(g, words),
            DecPlace::At { out_word, .. } => out_word,
        };
        let obase_word = b.shr(p.obase, c.two);
        let from = b.add(obase_word, p.lane);
        let to = b.add(first_word, p.lane);
        for_step(b, self.round, c.zero, words, c.c128, |b, round| {
            let mut at = b.add(from, round);
            let mut dst = b.add(to, round);
            for u in 0..4 {
                if u > 0 {
                    at = b.add(at, c.thirty_two);
                    dst = b.add(dst, c.thirty_two);
                }
                let word = b.load(self.buf, at);
                b.store(self.output, dst, word);
            }
        });
    }
}
