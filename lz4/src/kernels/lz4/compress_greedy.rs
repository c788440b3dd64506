//! The compress kernel's throughput level ([`Lz4Level::THROUGHPUT`](super::Lz4Level::THROUGHPUT)):
//! the greedy parse of [`super::encode_fast`], 32 positions per warp step against one two-way hash
//! table: `buckets[h]` holds the two most recent positions written with hash `h`, the newest in its
//! low 16 bits, the older in its high 16 bits, `0xFFFF` for none.
//!
//! Lane `l` tries `x = pos + l`: its two candidates are the latest two earlier lanes of the step with
//! the same hash (`match_any`, then the highest set bits), completed from the bucket. The first lane
//! with a verified candidate starts the match. The lanes up to it (every lane when none has one) are
//! the positions the sequential parse tried, so they write the table, the last lane of each hash
//! winning with itself and its newest candidate.

use super::compress_kernel::{Ctx, PageCtx, SEARCHABLE};
use super::encode_fast::FAST_HASH_BITS;
use super::warp_ops::{broadcast, first_lane, for_range};
use super::{FAST_BUCKETS, LZ4_HASH_MULT};
use warpforge_ir::builder::{Bool, KernelBuilder, Val, U32};
use warpforge_ir::Mask;

/// "No position" in the table.
const EMPTY: u32 = 0xFFFF;

/// Constants of the step beyond the page's ([`super::warp_ops::PageConsts`]), built once before the
/// parse loop.
#[derive(Clone, Copy)]
struct StepConsts {
    searchable: Val<U32>,
    last: Val<U32>,
    empty: Val<U32>,
    mult: Val<U32>,
    /// `32 −` [`FAST_HASH_BITS`]: the hash is the product's top bits, scaled to the buckets
    /// ([`super::fast_hash`]).
    shift: Val<U32>,
    buckets: Val<U32>,
    bits: Val<U32>,
    marker: Val<U32>,
    sixteen: Val<U32>,
}

/// What one step found (all warp-uniform): the first lane with a verified candidate, whether there is
/// one, and its candidate.
struct StepResult {
    first: Val<U32>,
    any: Val<Bool>,
    candidate: Val<U32>,
}

impl Ctx {
    /// The greedy parse of the page, from an empty table.
    pub(super) fn parse_greedy(&self, b: &mut KernelBuilder, p: &PageCtx) {
        let words = b.u32(FAST_BUCKETS as u32);
        let none = b.u32(u32::MAX);
        let start = b.shl(p.lane, p.page.k.two);
        for_range(b, self.i, start, words, 128, |b, i| {
            let at = b.add(p.table_base, i);
            b.store_wide(self.buckets(), at, [none; 4]);
        });
        b.warp_sync(Mask::FULL);
        let c = StepConsts {
            searchable: b.u32(SEARCHABLE),
            last: b.u32(SEARCHABLE - 1),
            empty: b.u32(EMPTY),
            mult: b.u32(LZ4_HASH_MULT),
            shift: b.u32(32 - FAST_HASH_BITS),
            buckets: b.u32(FAST_BUCKETS as u32),
            bits: b.u32(FAST_HASH_BITS),
            marker: b.u32(1 << 16),
            sixteen: b.u32(16),
        };
        self.start_parse(b);
        b.loop_(|b| {
            let pos = b.read(self.pos);
            let done = b.ge(pos, c.searchable);
            b.if_(done, |b| b.break_());
            let step = self.greedy_step(b, p, &c, pos);
            let nothing = b.not(step.any);
            b.if_(nothing, |b| {
                let step = b.u32(32);
                let next = b.add(pos, step);
                b.assign(self.pos, next);
                b.continue_();
            });
            let x = b.add(pos, step.first);
            let len = self.extend_forward(b, p, x, step.candidate, p.page.k.four);
            self.take_match(b, p, x, step.candidate, len);
            self.write_before_end(b, p, &c);
        });
        self.finish_parse(b, p);
    }

    /// The bucket of the word at `at` (its index in `buckets`) and the word.
    fn bucket(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        c: &StepConsts,
        at: Val<U32>,
    ) -> (Val<U32>, Val<U32>) {
        let word = p.page.word_at_start(b, at);
        let product = b.mul(word, c.mult);
        let h = b.shr(product, c.shift);
        let scaled = b.mul(h, c.buckets);
        let h = b.shr(scaled, c.bits);
        (b.add(p.table_base, h), word)
    }

    /// After a match: the position two bytes before its end (the new `pos`) enters the table, by lane 0.
    fn write_before_end(&self, b: &mut KernelBuilder, p: &PageCtx, c: &StepConsts) {
        let end = b.read(self.pos);
        let at = b.sub(end, p.page.k.two);
        let inside = b.lt(at, c.searchable);
        let lane0 = b.eq(p.lane, p.page.k.zero);
        let writes = b.and(inside, lane0);
        b.if_(writes, |b| {
            let (slot, _) = self.bucket(b, p, c, at);
            let pair = b.load(self.buckets(), slot);
            let older = b.shl(pair, c.sixteen);
            let pair = b.or(older, at);
            b.store(self.buckets(), slot, pair);
        });
        b.warp_sync(Mask::FULL);
    }

    /// Whether the page word at candidate `q` (`EMPTY` for none) is `word`.
    fn verifies(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        c: &StepConsts,
        q: Val<U32>,
        word: Val<U32>,
    ) -> Val<Bool> {
        let some = b.ne(q, c.empty);
        let safe = b.min(q, c.last);
        let other = p.page.word_at_start(b, safe);
        let same = b.eq(other, word);
        b.and(some, same)
    }

    /// One step of 32 positions from `pos` (warp-uniform); the table written as the sequential parse
    /// would.
    fn greedy_step(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        c: &StepConsts,
        pos: Val<U32>,
    ) -> StepResult {
        let x = b.add(pos, p.lane);
        let valid = b.lt(x, c.searchable);
        let safe_x = b.min(x, c.last);
        let (slot, word) = self.bucket(b, p, c, safe_x);
        // Lanes past the end get distinct keys that no bucket can equal.
        let off_key = b.add(c.marker, p.lane);
        let key = b.select(valid, slot, off_key);
        let same = b.match_any(key, Mask::FULL);
        let my_bit = b.shl(p.page.k.one, p.lane);
        let below = b.sub(my_bit, p.page.k.one);
        let earlier = b.and(same, below);
        // The newest two earlier lanes with the same bucket: the highest set bits (31 − clz).
        let has_one = b.ne(earlier, p.page.k.zero);
        let leading = b.clz(earlier);
        let latest = b.sub(p.page.k.thirty_one, leading);
        let latest_bit = b.shl(p.page.k.one, latest);
        let latest_bit = b.select(has_one, latest_bit, p.page.k.zero);
        let rest = b.xor(earlier, latest_bit);
        let has_two = b.ne(rest, p.page.k.zero);
        let leading = b.clz(rest);
        let second = b.sub(p.page.k.thirty_one, leading);
        let pair = b.load(self.buckets(), slot);
        let newest = b.and(pair, c.empty);
        let older = b.shr(pair, c.sixteen);
        let in_step = b.add(pos, latest);
        let c0 = b.select(has_one, in_step, newest);
        let in_step2 = b.add(pos, second);
        let from_table = b.select(has_one, newest, older);
        let c1 = b.select(has_two, in_step2, from_table);
        let v0 = self.verifies(b, p, c, c0, word);
        let v1 = self.verifies(b, p, c, c1, word);
        let either = b.or(v0, v1);
        let hit = b.and(valid, either);
        let candidate = b.select(v0, c0, c1);
        let (f, any) = first_lane(b, hit);
        // The positions tried: lanes up to `f`, or every valid lane when none has a candidate (valid
        // lanes are a prefix: up to `last − pos`).
        let limit = b.select(any, f, p.page.k.thirty_one);
        let valid_to = b.sub(c.last, pos);
        let limit = b.min(limit, valid_to);
        let tried = b.le(p.lane, limit);
        let writers = b.shl(p.page.k.two, limit);
        let writers = b.sub(writers, p.page.k.one);
        let upto = b.shl(p.page.k.two, p.lane);
        let upto = b.sub(upto, p.page.k.one);
        let not_upto = b.not(upto);
        let later = b.and(same, writers);
        let later = b.and(later, not_upto);
        let is_last = b.eq(later, p.page.k.zero);
        let writes = b.and(tried, is_last);
        // Every lane has read the bucket before any lane writes it.
        b.warp_sync(Mask::FULL);
        b.if_(writes, |b| {
            let older = b.shl(c0, c.sixteen);
            let pair = b.or(older, x);
            b.store(self.buckets(), slot, pair);
        });
        b.warp_sync(Mask::FULL);
        let from = b.min(f, p.page.k.thirty_one);
        let candidate = broadcast(b, candidate, from);
        StepResult {
            first: f,
            any,
            candidate,
        }
    }
}
