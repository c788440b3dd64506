//! The LZ4 page-decompression kernel in the IR: one warp per page, checked like
//! [`super::lz4_decompress_block`]: every token, length and offset is validated against the input and
//! output bounds before anything is copied, and a malformed block gives its page an error status —
//! never an out-of-bounds read or write.
//!
//! Parameters: `blocks` (the LZ4 blocks, concatenated bytes, read-only), `spans` (2 words per page: the
//! block's byte offset in `blocks` and its length), `output` (1024 little-endian words per page),
//! `status` (1 word per page, see [`decode_status`]), `pages`. Per warp, shared memory holds the page
//! being decoded (4 KiB of bytes).
//!
//! Every lane parses the same token stream (the same bytes of a read-only buffer, so the parse is
//! uniform and needs no broadcast); lanes copy literals together; a match copies
//! `dst[d + k] = dst[d − offset + k mod offset]`, which reads only bytes of earlier sequences, so
//! overlapping matches (offset < length) need no extra rounds and no lane reads what another writes.

use super::warp_ops::for_range;
use super::{LZ4_MIN_MATCH, PAGE_SIZE};
use crate::builder::{Bool, GlobalBuf, KernelBuilder, Local, ScalarParam, SharedArr, Val, U32, U8};
use crate::{Access, Kernel, Mask};

const PAGE: u32 = PAGE_SIZE as u32;

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
}

/// Builds the decompress kernel with `warps_per_block` warps (pages) per block.
pub fn lz4_decompress_kernel(warps_per_block: u32) -> Kernel {
    let mut b = KernelBuilder::new("lz4_decompress_pages", 32 * warps_per_block);
    let k = Dec::declare(&mut b, warps_per_block);
    let pages = b.param(k.pages);
    let block = b.block_index();
    let w = b.u32(warps_per_block);
    let first = b.mul(block, w);
    let warp = b.warp_index();
    let g = b.add(first, warp);
    let in_range = b.lt(g, pages);
    b.if_(in_range, |b| k.decode_page(b, g));
    b.finish().expect("the LZ4 decompress kernel verifies")
}

#[derive(Clone, Copy)]
struct Dec {
    blocks: GlobalBuf<U8>,
    spans: GlobalBuf<U32>,
    output: GlobalBuf<U32>,
    status: GlobalBuf<U32>,
    pages: ScalarParam<U32>,
    page: SharedArr<U8>,
    s: Local<U32>,
    d: Local<U32>,
    code: Local<U32>,
    len: Local<U32>,
    i: Local<U32>,
}

/// Per-page values.
#[derive(Clone, Copy)]
struct Page {
    lane: Val<U32>,
    base: Val<U32>,
    /// Block start in `blocks` and its length.
    start: Val<U32>,
    size: Val<U32>,
}

impl Dec {
    fn declare(b: &mut KernelBuilder, warps: u32) -> Dec {
        Dec {
            blocks: b.buffer("blocks", Access::ReadOnly),
            spans: b.buffer("spans", Access::ReadOnly),
            output: b.buffer("output", Access::ReadWrite),
            status: b.buffer("status", Access::ReadWrite),
            pages: b.scalar_param("pages"),
            page: b.shared("decoded", warps * PAGE, 16),
            s: b.local("s"),
            d: b.local("d"),
            code: b.local("code"),
            len: b.local("len"),
            i: b.local("i"),
        }
    }

    /// Byte `at` of the page's block (the caller keeps `at` below the block size).
    fn input_byte(&self, b: &mut KernelBuilder, p: &Page, at: Val<U32>) -> Val<U32> {
        let index = b.add(p.start, at);
        let byte = b.load(self.blocks, index);
        b.zext::<U32, _>(byte)
    }

    /// Stops decoding with `code` at the current input position.
    fn fail(&self, b: &mut KernelBuilder, code: u32) {
        let code = b.u32(code);
        b.assign(self.code, code);
        b.break_();
    }

    fn decode_page(&self, b: &mut KernelBuilder, g: Val<U32>) {
        let lane = b.lane_id();
        let warp = b.warp_index();
        let page = b.u32(PAGE);
        let base = b.mul(warp, page);
        let two = b.u32(2);
        let span = b.mul(g, two);
        let start = b.load(self.spans, span);
        let one = b.u32(1);
        let span_len = b.add(span, one);
        let size = b.load(self.spans, span_len);
        let p = Page {
            lane,
            base,
            start,
            size,
        };
        let zero = b.u32(0);
        b.assign(self.s, zero);
        b.assign(self.d, zero);
        b.assign(self.code, zero);
        let empty = b.eq(size, zero);
        b.if_(empty, |b| {
            let code = b.u32(decode_status::TRUNCATED);
            b.assign(self.code, code);
        });
        let ok = b.ne(size, zero);
        b.if_(ok, |b| self.sequences(b, &p));
        self.finish(b, &p, g);
    }

    /// Reads a length continuation into `len` (which holds 15); `Err`-style: sets `code` and leaves
    /// `s` at the failing byte when the block ends first.
    fn read_length(&self, b: &mut KernelBuilder, p: &Page) {
        b.loop_(|b| {
            let s = b.read(self.s);
            let past = b.ge(s, p.size);
            b.if_(past, |b| self.fail(b, decode_status::TRUNCATED));
            let byte = self.input_byte(b, p, s);
            let one = b.u32(1);
            let next = b.add(s, one);
            b.assign(self.s, next);
            let len = b.read(self.len);
            let sum = b.add(len, byte);
            b.assign(self.len, sum);
            let ff = b.u32(255);
            let more = b.eq(byte, ff);
            let last = b.not(more);
            b.if_(last, |b| b.break_());
            // A page never needs a length above the page size: stop runaway inputs early.
            let page = b.u32(PAGE);
            let absurd = b.gt(sum, page);
            b.if_(absurd, |b| self.fail(b, decode_status::OVERFLOW));
        });
    }

    fn sequences(&self, b: &mut KernelBuilder, p: &Page) {
        b.loop_(|b| {
            let s = b.read(self.s);
            let token = self.input_byte(b, p, s);
            let one = b.u32(1);
            let after_token = b.add(s, one);
            b.assign(self.s, after_token);
            let four = b.u32(4);
            let lit = b.shr(token, four);
            b.assign(self.len, lit);
            let fifteen = b.u32(15);
            let long = b.eq(lit, fifteen);
            b.if_(long, |b| self.read_length(b, p));
            let failed = self.failed(b);
            b.if_(failed, |b| b.break_());
            let lit = b.read(self.len);
            let s = b.read(self.s);
            let d = b.read(self.d);
            let left_in = b.sub(p.size, s);
            let past_end = b.gt(lit, left_in);
            b.if_(past_end, |b| self.fail(b, decode_status::TRUNCATED));
            let page = b.u32(PAGE);
            let left_out = b.sub(page, d);
            let too_long = b.gt(lit, left_out);
            b.if_(too_long, |b| self.fail(b, decode_status::OVERFLOW));
            for_range(b, self.i, p.lane, lit, 32, |b, j| {
                let from = b.add(s, j);
                let byte = self.input_byte(b, p, from);
                let to = b.add(d, j);
                self.put(b, p, to, byte);
            });
            let s = b.add(s, lit);
            let d = b.add(d, lit);
            b.assign(self.s, s);
            b.assign(self.d, d);
            // The last sequence: literals only, ending exactly at the block's end.
            let at_end = b.eq(s, p.size);
            b.if_(at_end, |b| b.break_());
            let two = b.u32(2);
            let left = b.sub(p.size, s);
            let cut = b.lt(left, two);
            b.if_(cut, |b| self.fail(b, decode_status::TRUNCATED));
            let lo = self.input_byte(b, p, s);
            let one = b.u32(1);
            let s1 = b.add(s, one);
            let hi = self.input_byte(b, p, s1);
            let eight = b.u32(8);
            let hi = b.shl(hi, eight);
            let offset = b.or(lo, hi);
            let zero = b.u32(0);
            let is_zero = b.eq(offset, zero);
            let before_start = b.gt(offset, d);
            let bad = b.or(is_zero, before_start);
            b.if_(bad, |b| self.fail(b, decode_status::BAD_OFFSET));
            let s2 = b.add(s, two);
            b.assign(self.s, s2);
            let nibble = b.and(token, fifteen);
            b.assign(self.len, nibble);
            let long = b.eq(nibble, fifteen);
            b.if_(long, |b| self.read_length(b, p));
            let failed = self.failed(b);
            b.if_(failed, |b| b.break_());
            let ml = b.read(self.len);
            let min = b.u32(LZ4_MIN_MATCH as u32);
            let ml = b.add(ml, min);
            let page = b.u32(PAGE);
            let left_out = b.sub(page, d);
            let too_long = b.gt(ml, left_out);
            b.if_(too_long, |b| self.fail(b, decode_status::OVERFLOW));
            let s = b.read(self.s);
            let ends_in_match = b.eq(s, p.size);
            b.if_(ends_in_match, |b| self.fail(b, decode_status::BAD_END));
            // The match may read the literals other lanes just wrote.
            b.warp_sync(Mask::FULL);
            // dst[d + k] = dst[d - offset + k % offset]: only bytes of earlier sequences are read.
            let from = b.sub(d, offset);
            for_range(b, self.i, p.lane, ml, 32, |b, k| {
                let wrapped = b.rem(k, offset);
                let src = b.add(from, wrapped);
                let byte = self.get(b, p, src);
                let to = b.add(d, k);
                self.put(b, p, to, byte);
            });
            b.warp_sync(Mask::FULL);
            let d = b.add(d, ml);
            b.assign(self.d, d);
        });
    }

    fn failed(&self, b: &mut KernelBuilder) -> Val<Bool> {
        let code = b.read(self.code);
        let zero = b.u32(0);
        b.ne(code, zero)
    }

    fn put(&self, b: &mut KernelBuilder, p: &Page, at: Val<U32>, byte: Val<U32>) {
        let index = b.add(p.base, at);
        let byte = b.trunc::<U8, _>(byte);
        b.store(self.page, index, byte);
    }

    fn get(&self, b: &mut KernelBuilder, p: &Page, at: Val<U32>) -> Val<U32> {
        let index = b.add(p.base, at);
        let byte = b.load(self.page, index);
        b.zext::<U32, _>(byte)
    }

    /// Checks the decoded size, copies the page out as words, and writes the status.
    fn finish(&self, b: &mut KernelBuilder, p: &Page, g: Val<U32>) {
        b.warp_sync(Mask::FULL);
        let code = b.read(self.code);
        let zero = b.u32(0);
        let ok = b.eq(code, zero);
        let d = b.read(self.d);
        let page = b.u32(PAGE);
        let short = b.ne(d, page);
        let short = b.and(ok, short);
        b.if_(short, |b| {
            let code = b.u32(decode_status::BAD_END);
            b.assign(self.code, code);
        });
        let words = b.u32(PAGE / 4);
        let first_word = b.mul(g, words);
        let code = b.read(self.code);
        let ok = b.eq(code, zero);
        b.if_(ok, |b| {
            for_range(b, self.i, p.lane, words, 32, |b, w| {
                let four = b.u32(4);
                let at = b.mul(w, four);
                let mut word = self.get(b, p, at);
                for k in 1..4u32 {
                    let kk = b.u32(k);
                    let byte_at = b.add(at, kk);
                    let byte = self.get(b, p, byte_at);
                    let shift = b.u32(8 * k);
                    let placed = b.shl(byte, shift);
                    word = b.or(word, placed);
                }
                let dst = b.add(first_word, w);
                b.store(self.output, dst, word);
            });
        });
        let first = b.eq(p.lane, zero);
        b.if_(first, |b| {
            let s = b.read(self.s);
            let eight = b.u32(8);
            let position = b.shl(s, eight);
            let code = b.read(self.code);
            let word = b.or(code, position);
            b.store(self.status, g, word);
        });
    }
}
