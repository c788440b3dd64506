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
//!
//! After a match the sequential parse writes the position two bytes before its end to the table,
//! then tries the positions from its end. The next step does both: its base is two positions back,
//! lane 0 writes that position (it is an earlier lane for every later one, as the sequential write
//! comes first), lane 1 (the position just before the end) neither tries nor writes, and lanes 2–31
//! try. Otherwise lane 0 is the position before `pos` and lanes 1–31 try. So the lane before the
//! first hit always holds the word just before it, whose low byte decides the backward extension
//! without a load of its own.

use super::compress_kernel::{Ctx, PageCtx, SEARCHABLE};
use super::encode_fast::FAST_HASH_BITS;
use super::warp_ops::{broadcast, first_lane, for_range};
use super::{FAST_BUCKETS, LZ4_HASH_MULT};
use warpforge_ir::builder::{Bool, KernelBuilder, Val, U32};
use warpforge_ir::{Mask, VoteMode};

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
    sixteen: Val<U32>,
    /// Per lane, built once: the lanes before this one (`(1 << lane) − 1`), the lanes after it, this
    /// lane's key when it takes no part (`marker + lane`), and `lane + 1`.
    before: Val<U32>,
    after: Val<U32>,
    off_key: Val<U32>,
    lane_plus_one: Val<U32>,
}

/// What one step found (all warp-uniform): the step's first position (lane 0's), whether a lane has a
/// verified candidate, the first such lane's position and candidate, and whether the match there
/// extends backward (the bytes before both agree, within the pending literals and the page).
struct StepResult {
    base: Val<U32>,
    any: Val<Bool>,
    x: Val<U32>,
    candidate: Val<U32>,
    backward: Val<Bool>,
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
        let k = p.page.k;
        let lane_bit = b.shl(k.one, p.lane);
        let before = b.sub(lane_bit, k.one);
        let through = b.shl(k.two, p.lane);
        let through = b.sub(through, k.one);
        let marker = b.u32(1 << 16);
        let c = StepConsts {
            searchable: b.u32(SEARCHABLE),
            last: b.u32(SEARCHABLE - 1),
            empty: b.u32(EMPTY),
            mult: b.u32(LZ4_HASH_MULT),
            shift: b.u32(32 - FAST_HASH_BITS),
            buckets: b.u32(FAST_BUCKETS as u32),
            bits: b.u32(FAST_HASH_BITS),
            sixteen: b.u32(16),
            before,
            after: b.not(through),
            off_key: b.add(marker, p.lane),
            lane_plus_one: b.add(p.lane, k.one),
        };
        let pending = self.pending();
        self.start_parse(b);
        b.assign(pending, k.zero);
        b.loop_(|b| {
            let pos = b.read(self.pos);
            let done = b.ge(pos, c.searchable);
            b.if_(done, |b| b.break_());
            let step = self.greedy_step(b, p, &c, pos);
            let nothing = b.not(step.any);
            b.if_(nothing, |b| {
                let next = b.add(step.base, k.thirty_two);
                b.assign(self.pos, next);
                b.assign(pending, k.zero);
                b.continue_();
            });
            let len = self.extend_forward(b, p, step.x, step.candidate, k.four);
            self.take_match(b, p, step.x, step.candidate, len, Some(step.backward));
            b.assign(pending, k.one);
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

    /// One step from `pos` (warp-uniform): lanes from the base (one position back, two after a match)
    /// up to the end of the step try their position; the table is written as the sequential parse
    /// would.
    fn greedy_step(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        c: &StepConsts,
        pos: Val<U32>,
    ) -> StepResult {
        let k = p.page.k;
        let pending = b.read(self.pending());
        // Lanes below `skip` do not try their position: the one before `pos` (lane `skip − 1`) takes
        // no part, the one two before (lane 0 after a match) only enters the table.
        let skip = b.add(pending, k.one);
        let base = b.sub(pos, skip);
        let x = b.add(base, p.lane);
        let in_page = b.lt(x, c.searchable);
        let idle = b.eq(c.lane_plus_one, skip);
        let takes_part = b.not(idle);
        let valid = b.and(in_page, takes_part);
        let safe_x = b.min(x, c.last);
        let (slot, word) = self.bucket(b, p, c, safe_x);
        // Lanes that take no part get distinct keys that no bucket can equal.
        let key = b.select(valid, slot, c.off_key);
        let same = b.match_any(key, Mask::FULL);
        let earlier = b.and(same, c.before);
        // The newest two earlier lanes with the same bucket: the highest set bits (31 − clz).
        let has_one = b.ne(earlier, k.zero);
        let leading = b.clz(earlier);
        let latest = b.sub(k.thirty_one, leading);
        let latest_bit = b.shl(k.one, latest);
        let latest_bit = b.select(has_one, latest_bit, k.zero);
        let rest = b.xor(earlier, latest_bit);
        let has_two = b.ne(rest, k.zero);
        let leading = b.clz(rest);
        let second = b.sub(k.thirty_one, leading);
        let pair = b.load(self.buckets(), slot);
        let newest = b.and(pair, c.empty);
        let older = b.shr(pair, c.sixteen);
        let in_step = b.add(base, latest);
        let c0 = b.select(has_one, in_step, newest);
        let in_step2 = b.add(base, second);
        let from_table = b.select(has_one, newest, older);
        let c1 = b.select(has_two, in_step2, from_table);
        let v0 = self.verifies(b, p, c, c0, word);
        let v1 = self.verifies(b, p, c, c1, word);
        let either = b.or(v0, v1);
        let tries = b.ge(p.lane, skip);
        let hit = b.and(valid, tries);
        let hit = b.and(hit, either);
        let candidate = b.select(v0, c0, c1);
        let (f, any) = first_lane(b, hit, k.zero);
        // The positions tried or entered: valid lanes up to `f`, or every valid lane when none has a
        // candidate. (Lanes that are not valid have keys of their own: they are in no other lane's
        // `same`.)
        let limit = b.select(any, f, k.thirty_one);
        let upto = b.le(p.lane, limit);
        let writers = b.shl(k.two, limit);
        let writers = b.sub(writers, k.one);
        let later = b.and(same, writers);
        let later = b.and(later, c.after);
        let is_last = b.eq(later, k.zero);
        let writes = b.and(upto, is_last);
        let writes = b.and(writes, valid);
        // Every lane has read the bucket before any lane writes it.
        b.warp_sync(Mask::FULL);
        b.if_(writes, |b| {
            let older = b.shl(c0, c.sixteen);
            let pair = b.or(older, x);
            b.store(self.buckets(), slot, pair);
        });
        b.warp_sync(Mask::FULL);
        let from = b.min(f, k.thirty_one);
        let candidate = broadcast(b, candidate, from);
        // The byte before the match is the low byte of the word of the lane before it (`f ≥ 1`).
        let prev = b.sub(from, k.one);
        let word_before = broadcast(b, word, prev);
        let x = b.add(base, from);
        let backward = self.extends_backward(b, p, (x, any), candidate, word_before);
        StepResult {
            base,
            any,
            x,
            candidate,
            backward,
        }
    }

    /// Whether the match at `x` from `q` (uniform; `found`: there is one) extends backward: `x` is
    /// past the anchor, `q` past the page's first byte, and the bytes before them (the low byte of
    /// `word_before` for `x`) agree.
    fn extends_backward(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        (x, found): (Val<U32>, Val<Bool>),
        q: Val<U32>,
        word_before: Val<U32>,
    ) -> Val<Bool> {
        let k = p.page.k;
        let anchor = b.read(self.anchor);
        let room = b.gt(x, anchor);
        let room = b.and(room, found);
        let q_room = b.gt(q, k.zero);
        let room = b.and(room, q_room);
        let q1 = b.sub(q, k.one);
        let q1 = b.select(room, q1, k.zero);
        let bq = p.page.byte(b, q1);
        let bx = b.and(word_before, k.ff);
        let same = b.eq(bx, bq);
        let can = b.and(room, same);
        b.vote(VoteMode::Any, can, Mask::FULL)
    }
}
