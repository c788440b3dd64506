//! The LZ4 page-compression kernel in the IR: one warp per 4 KiB page, byte-identical to
//! [`super::encode_page`]. See the [module docs](super) for the algorithm; this file is its warp form.
//!
//! Parameters: `input` (pages as little-endian 32-bit words, 1024 per page, read-only), `output` (one
//! 4096-byte slot per page for its LZ4 block), `meta` (4 words per page: kind, block length, pattern
//! low word, pattern high word), `pages` (how many pages). Per warp, shared memory holds the page
//! (4 KiB), the hash table (4096 × u16) and the candidate chain `prev` (4096 × u16): 20 KiB.
//!
//! Phases, all warp-cooperative: (1) load the page, `vote all` for same-filled pages (kind 2);
//! (2) clear the table; (3) `prev[p]` for every position, 32 at a time: `match_any` on the hash finds
//! earlier lanes of the chunk, the table earlier chunks, and the last lane of each hash updates the
//! table; (4) greedy parse: each lane probes one position with its 4-deep chain, `ballot` + `ffs` picks
//! the first hit, lanes 0–3 hold that position's chain entries, each verified entry is broadcast and
//! extended forward 32 bytes per step, the longest is extended backward the same way; lane 0 writes
//! tokens and lengths while all lanes copy literals. A block that would not be shorter than the page is
//! abandoned and the page reported raw (kind 1). Every branch that guards a warp collective depends only
//! on ballots, broadcasts and parameters, so with one warp per block the kernel is block-uniform as
//! WebGPU requires.

use super::warp_ops::{broadcast, first_lane, for_range, SharedPage};
use super::{
    LZ4_CHAIN_DEPTH, LZ4_HASH_BITS, LZ4_HASH_MULT, LZ4_HASH_SIZE, LZ4_LAST_LITERALS, LZ4_MF_LIMIT,
    PAGE_SIZE,
};
use crate::builder::{GlobalBuf, KernelBuilder, Local, SharedArr, Val, U16, U32, U64, U8};
use crate::{Access, Kernel, Mask, VoteMode};

/// "No candidate" in the 16-bit table and chain.
const NONE: u32 = 0xFFFF;
/// Positions that may start a match: `p + 12 <= 4096`.
const SEARCHABLE: u32 = (PAGE_SIZE - LZ4_MF_LIMIT + 1) as u32;
/// Matches end at or before this byte.
const END_LIMIT: u32 = (PAGE_SIZE - LZ4_LAST_LITERALS) as u32;
const PAGE: u32 = PAGE_SIZE as u32;

/// Builds the compress kernel with `warps_per_block` warps (pages) per block.
pub fn lz4_compress_kernel(warps_per_block: u32) -> Kernel {
    let mut b = KernelBuilder::new("lz4_compress_pages", 32 * warps_per_block);
    let k = Ctx::declare(&mut b, warps_per_block);
    let pages = b.param(k.pages);
    let g = k.page_index(&mut b, warps_per_block);
    let in_range = b.lt(g, pages);
    b.if_(in_range, |b| k.compress_page(b, g));
    b.finish().expect("the LZ4 compress kernel verifies")
}

/// Handles to everything the kernel declares.
#[derive(Clone, Copy)]
pub(super) struct Ctx {
    pub(super) input: GlobalBuf<U32>,
    pub(super) output: GlobalBuf<U8>,
    pub(super) meta: GlobalBuf<U32>,
    pub(super) pages: crate::builder::ScalarParam<U32>,
    pub(super) page_words: SharedArr<U32>,
    pub(super) table: SharedArr<U16>,
    pub(super) prev: SharedArr<U16>,
    pub(super) i: Local<U32>,
    pub(super) j: Local<U32>,
    pub(super) same: Local<U32>,
    pub(super) pos: Local<U32>,
    pub(super) anchor: Local<U32>,
    pub(super) out: Local<U32>,
    pub(super) raw: Local<U32>,
    pub(super) kk: Local<U32>,
    pub(super) best_len: Local<U32>,
    pub(super) best_q: Local<U32>,
    pub(super) ext: Local<U32>,
    pub(super) rem: Local<U32>,
    pub(super) at: Local<U32>,
}

/// Per-page values every phase uses.
#[derive(Clone, Copy)]
pub(super) struct PageCtx {
    pub(super) lane: Val<U32>,
    pub(super) page: SharedPage,
    pub(super) table_base: Val<U32>,
    pub(super) prev_base: Val<U32>,
    pub(super) out_base: Val<U64>,
    pub(super) g: Val<U32>,
}

impl Ctx {
    fn declare(b: &mut KernelBuilder, warps: u32) -> Ctx {
        Ctx {
            input: b.buffer("input", Access::ReadOnly),
            output: b.buffer("output", Access::ReadWrite),
            meta: b.buffer("meta", Access::ReadWrite),
            pages: b.scalar_param("pages"),
            page_words: b.shared("page", warps * 1024, 16),
            table: b.shared("table", warps * LZ4_HASH_SIZE as u32, 4),
            prev: b.shared("prev", warps * PAGE, 4),
            i: b.local("i"),
            j: b.local("j"),
            same: b.local("same"),
            pos: b.local("pos"),
            anchor: b.local("anchor"),
            out: b.local("out"),
            raw: b.local("raw"),
            kk: b.local("kk"),
            best_len: b.local("best_len"),
            best_q: b.local("best_q"),
            ext: b.local("ext"),
            rem: b.local("rem"),
            at: b.local("at"),
        }
    }

    fn page_index(&self, b: &mut KernelBuilder, warps: u32) -> Val<U32> {
        let block = b.block_index();
        let w = b.u32(warps);
        let first = b.mul(block, w);
        let warp = b.warp_index();
        b.add(first, warp)
    }

    fn compress_page(&self, b: &mut KernelBuilder, g: Val<U32>) {
        let lane = b.lane_id();
        let warp = b.warp_index();
        let words = b.u32(1024);
        let page_base = b.mul(warp, words);
        let entries = b.u32(LZ4_HASH_SIZE as u32);
        let table_base = b.mul(warp, entries);
        let page_bytes = b.u32(PAGE);
        let prev_base = b.mul(warp, page_bytes);
        let out_base = b.mul_wide(g, page_bytes);
        let p = PageCtx {
            lane,
            page: SharedPage {
                words: self.page_words,
                base: page_base,
            },
            table_base,
            prev_base,
            out_base,
            g,
        };
        self.load_page(b, &p);
        let same = b.read(self.same);
        let one = b.u32(1);
        let lane_same = b.eq(same, one);
        let all_same = b.vote(VoteMode::All, lane_same, Mask::FULL);
        b.if_else(
            all_same,
            |b| self.write_same_filled(b, &p),
            |b| {
                self.clear_table(b, &p);
                self.candidates(b, &p);
                self.parse(b, &p);
            },
        );
    }

    /// Loads the page into shared memory and leaves in `same` whether this lane's words repeat the
    /// page's first 8 bytes.
    fn load_page(&self, b: &mut KernelBuilder, p: &PageCtx) {
        let words = b.u32(1024);
        let first_word = b.mul(p.g, words);
        let one = b.u32(1);
        b.assign(self.same, one);
        for_range(b, self.i, p.lane, words, 32, |b, i| {
            let src = b.add(first_word, i);
            let w = b.load(self.input, src);
            let dst = b.add(p.page.base, i);
            b.store(self.page_words, dst, w);
        });
        b.warp_sync(Mask::FULL);
        // Same-filled: word i must equal word (i & 1) of the page.
        let w0 = b.load(self.page_words, p.page.base);
        let one = b.u32(1);
        let second = b.add(p.page.base, one);
        let w1 = b.load(self.page_words, second);
        let odd = b.and(p.lane, one);
        let is_odd = b.eq(odd, one);
        let want = b.select(is_odd, w1, w0);
        for_range(b, self.i, p.lane, words, 32, |b, i| {
            let at = b.add(p.page.base, i);
            let w = b.load(self.page_words, at);
            let differs = b.ne(w, want);
            b.if_(differs, |b| {
                let z = b.u32(0);
                b.assign(self.same, z);
            });
        });
    }

    fn write_meta(&self, b: &mut KernelBuilder, p: &PageCtx, values: [Val<U32>; 4]) {
        let zero = b.u32(0);
        let first = b.eq(p.lane, zero);
        b.if_(first, |b| {
            let four = b.u32(4);
            let base = b.mul(p.g, four);
            for (k, v) in values.into_iter().enumerate() {
                let k = b.u32(k as u32);
                let at = b.add(base, k);
                b.store(self.meta, at, v);
            }
        });
    }

    fn write_same_filled(&self, b: &mut KernelBuilder, p: &PageCtx) {
        let w0 = b.load(self.page_words, p.page.base);
        let one = b.u32(1);
        let second = b.add(p.page.base, one);
        let w1 = b.load(self.page_words, second);
        let kind = b.u32(2);
        let len = b.u32(8);
        self.write_meta(b, p, [kind, len, w0, w1]);
    }

    fn clear_table(&self, b: &mut KernelBuilder, p: &PageCtx) {
        let entries = b.u32(LZ4_HASH_SIZE as u32);
        for_range(b, self.i, p.lane, entries, 32, |b, i| {
            let at = b.add(p.table_base, i);
            let none = b.lit::<U16>(NONE as u16);
            b.store(self.table, at, none);
        });
        b.warp_sync(Mask::FULL);
    }

    /// `prev[p]` for every searchable position, 32 positions per step.
    fn candidates(&self, b: &mut KernelBuilder, p: &PageCtx) {
        let zero = b.u32(0);
        let chunks_end = b.u32(SEARCHABLE.div_ceil(32) * 32);
        for_range(b, self.j, zero, chunks_end, 32, |b, chunk| {
            let x = b.add(chunk, p.lane);
            let searchable = b.u32(SEARCHABLE);
            let valid = b.lt(x, searchable);
            let last = b.u32(SEARCHABLE - 1);
            let safe_x = b.min(x, last);
            let word = p.page.word_at(b, safe_x);
            let h = hash(b, word);
            // Lanes past the end get distinct keys that no hash can equal.
            let marker = b.u32(1 << 16);
            let off_key = b.add(marker, p.lane);
            let key = b.select(valid, h, off_key);
            let same_hash = b.match_any(key, Mask::FULL);
            let one = b.u32(1);
            let my_bit = b.shl(one, p.lane);
            let below = b.sub(my_bit, one);
            let earlier = b.and(same_hash, below);
            let slot = b.add(p.table_base, h);
            let from_table = b.load(self.table, slot);
            let from_table = b.zext::<U32, _>(from_table);
            let thirty_one = b.u32(31);
            let top = b.clz(earlier);
            let highest = b.sub(thirty_one, top);
            let in_chunk = b.add(chunk, highest);
            let zero = b.u32(0);
            let has_earlier = b.ne(earlier, zero);
            let cand = b.select(has_earlier, in_chunk, from_table);
            b.if_(valid, |b| {
                let at = b.add(p.prev_base, x);
                let c16 = b.trunc::<U16, _>(cand);
                b.store(self.prev, at, c16);
            });
            b.warp_sync(Mask::FULL);
            // The last lane of each hash records its position for later chunks.
            let two = b.u32(2);
            let upto = b.shl(two, p.lane);
            let upto = b.sub(upto, one);
            let not_upto = b.not(upto);
            let later = b.and(same_hash, not_upto);
            let is_last = b.eq(later, zero);
            let writes = b.and(valid, is_last);
            b.if_(writes, |b| {
                let x16 = b.trunc::<U16, _>(x);
                b.store(self.table, slot, x16);
            });
            b.warp_sync(Mask::FULL);
        });
    }

    /// The chain entry after `q` (NONE stays NONE).
    fn next_link(&self, b: &mut KernelBuilder, p: &PageCtx, q: Val<U32>) -> Val<U32> {
        let none = b.u32(NONE);
        let valid = b.ne(q, none);
        let zero = b.u32(0);
        let safe = b.select(valid, q, zero);
        let at = b.add(p.prev_base, safe);
        let next = b.load(self.prev, at);
        let next = b.zext::<U32, _>(next);
        b.select(valid, next, none)
    }

    /// Whether chain entry `q` really matches the word `wx` (NONE never does).
    fn verifies(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        q: Val<U32>,
        wx: Val<U32>,
    ) -> Val<crate::builder::Bool> {
        let none = b.u32(NONE);
        let valid = b.ne(q, none);
        let zero = b.u32(0);
        let safe = b.select(valid, q, zero);
        let wq = p.page.word_at(b, safe);
        let same = b.eq(wq, wx);
        b.and(valid, same)
    }

    fn parse(&self, b: &mut KernelBuilder, p: &PageCtx) {
        for l in [self.pos, self.anchor, self.out, self.raw] {
            let zero = b.u32(0);
            b.assign(l, zero);
        }
        b.loop_(|b| {
            let pos = b.read(self.pos);
            let searchable = b.u32(SEARCHABLE);
            let done = b.ge(pos, searchable);
            b.if_(done, |b| b.break_());
            // Each lane probes one position with its chain.
            let x = b.add(pos, p.lane);
            let valid = b.lt(x, searchable);
            let last = b.u32(SEARCHABLE - 1);
            let safe_x = b.min(x, last);
            let wx = p.page.word_at(b, safe_x);
            let at = b.add(p.prev_base, safe_x);
            let q = b.load(self.prev, at);
            let mut q32 = b.zext::<U32, _>(q);
            let mut found = b.bool(false);
            for _ in 0..LZ4_CHAIN_DEPTH {
                let hit = self.verifies(b, p, q32, wx);
                found = b.or(found, hit);
                q32 = self.next_link(b, p, q32);
            }
            let hit = b.and(valid, found);
            let (f, any) = first_lane(b, hit);
            let nothing = b.not(any);
            b.if_(nothing, |b| {
                let step = b.u32(32);
                let next = b.add(pos, step);
                b.assign(self.pos, next);
                b.continue_();
            });
            let x = b.add(pos, f);
            self.best_match_at(b, p, x);
            let raw = b.read(self.raw);
            let one = b.u32(1);
            let gave_up = b.eq(raw, one);
            b.if_(gave_up, |b| b.break_());
        });
        let raw = b.read(self.raw);
        let zero = b.u32(0);
        let fits = b.eq(raw, zero);
        b.if_(fits, |b| {
            let anchor = b.read(self.anchor);
            let page = b.u32(PAGE);
            let lit = b.sub(page, anchor);
            self.emit_sequence(b, p, anchor, lit, None);
        });
        let raw = b.read(self.raw);
        let out = b.read(self.out);
        let zero = b.u32(0);
        let page = b.u32(PAGE);
        let one = b.u32(1);
        let is_raw = b.eq(raw, one);
        let len = b.select(is_raw, page, out);
        let kind = b.select(is_raw, one, zero);
        self.write_meta(b, p, [kind, len, zero, zero]);
    }

    /// At position `x` (warp-uniform) with a verified candidate: pick the longest of its chain entries,
    /// extend it backward, emit the sequence, and move past it.
    fn best_match_at(&self, b: &mut KernelBuilder, p: &PageCtx, x: Val<U32>) {
        // Lane l (< 4) holds chain entry l of x.
        let at = b.add(p.prev_base, x);
        let first = b.load(self.prev, at);
        let mut entry = b.zext::<U32, _>(first);
        let mut mine = entry;
        for l in 1..LZ4_CHAIN_DEPTH as u32 {
            entry = self.next_link(b, p, entry);
            let lane_l = b.u32(l);
            let is_l = b.eq(p.lane, lane_l);
            mine = b.select(is_l, entry, mine);
        }
        let wx = p.page.word_at(b, x);
        let ok = self.verifies(b, p, mine, wx);
        let depth = b.u32(LZ4_CHAIN_DEPTH as u32);
        let in_chain = b.lt(p.lane, depth);
        let ok = b.and(ok, in_chain);
        let verified = b.ballot(ok, Mask::FULL);
        let zero = b.u32(0);
        b.assign(self.best_len, zero);
        b.assign(self.best_q, zero);
        for_range(b, self.kk, zero, depth, 1, |b, k| {
            let bit = b.shr(verified, k);
            let one = b.u32(1);
            let bit = b.and(bit, one);
            let is_set = b.eq(bit, one);
            b.if_(is_set, |b| {
                let q = broadcast(b, mine, k);
                let len = self.extend_forward(b, p, x, q);
                let best = b.read(self.best_len);
                let longer = b.gt(len, best);
                b.if_(longer, |b| {
                    b.assign(self.best_len, len);
                    b.assign(self.best_q, q);
                });
            });
        });
        let q = b.read(self.best_q);
        let len = b.read(self.best_len);
        let anchor = b.read(self.anchor);
        let back = self.extend_backward(b, p, x, q, anchor);
        let start = b.sub(x, back);
        let from = b.sub(q, back);
        let len = b.add(len, back);
        let lit = b.sub(start, anchor);
        let offset = b.sub(start, from);
        self.emit_sequence(b, p, anchor, lit, Some((offset, len)));
        let next = b.add(start, len);
        b.assign(self.pos, next);
        b.assign(self.anchor, next);
    }

    /// Counts up from `start` while lanes agree: each step, lane `l` tests position `count + l`
    /// (`agrees` returns its verdict); the first lane that disagrees ends the count there, otherwise the
    /// count moves on by 32. The result is warp-uniform.
    fn count_agreeing(
        &self,
        b: &mut KernelBuilder,
        start: Val<U32>,
        agrees: impl FnOnce(&mut KernelBuilder, Val<U32>) -> Val<crate::builder::Bool>,
    ) -> Val<U32> {
        b.assign(self.ext, start);
        b.loop_(|b| {
            let count = b.read(self.ext);
            let ok = agrees(b, count);
            let stop = b.not(ok);
            let (f, any) = first_lane(b, stop);
            b.if_else(
                any,
                |b| {
                    let total = b.add(count, f);
                    b.assign(self.ext, total);
                    b.break_();
                },
                |b| {
                    let step = b.u32(32);
                    let more = b.add(count, step);
                    b.assign(self.ext, more);
                },
            );
        });
        b.read(self.ext)
    }

    /// The match length at `x` from `q` (both uniform), at least 4, ending at or before END_LIMIT.
    fn extend_forward(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        x: Val<U32>,
        q: Val<U32>,
    ) -> Val<U32> {
        let four = b.u32(4);
        self.count_agreeing(b, four, |b, e| {
            let i = b.add(e, p.lane);
            let xi = b.add(x, i);
            let limit = b.u32(END_LIMIT);
            let inside = b.lt(xi, limit);
            let last = b.u32(PAGE - 1);
            let safe_x = b.min(xi, last);
            let qi = b.add(q, i);
            let safe_q = b.min(qi, last);
            let bx = p.page.byte(b, safe_x);
            let bq = p.page.byte(b, safe_q);
            let same = b.eq(bx, bq);
            b.and(inside, same)
        })
    }

    /// How many bytes before `x` (and before `q`) agree, without going below `anchor` or byte 0.
    fn extend_backward(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        x: Val<U32>,
        q: Val<U32>,
        anchor: Val<U32>,
    ) -> Val<U32> {
        let zero = b.u32(0);
        self.count_agreeing(b, zero, |b, d| {
            let one = b.u32(1);
            let lane1 = b.add(p.lane, one);
            let i = b.add(d, lane1);
            let room = b.sub(x, anchor);
            let within_literals = b.le(i, room);
            let within_page = b.le(i, q);
            let inside = b.and(within_literals, within_page);
            let zero = b.u32(0);
            let xi = b.sub(x, i);
            let qi = b.sub(q, i);
            let safe_x = b.select(inside, xi, zero);
            let safe_q = b.select(inside, qi, zero);
            let bx = p.page.byte(b, safe_x);
            let bq = p.page.byte(b, safe_q);
            let same = b.eq(bx, bq);
            b.and(inside, same)
        })
    }
}

/// [`super::lz4_hash`] in the IR.
fn hash(b: &mut KernelBuilder, word: Val<U32>) -> Val<U32> {
    let mult = b.u32(LZ4_HASH_MULT);
    let product = b.mul(word, mult);
    let shift = b.u32(32 - LZ4_HASH_BITS);
    b.shr(product, shift)
}
