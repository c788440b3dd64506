//! The compress kernel's throughput level ([`Lz4Level::THROUGHPUT`](super::Lz4Level::THROUGHPUT)):
//! the greedy parse of [`super::encode_fast`], 32 positions per warp step against one two-way hash
//! table: `buckets[h]` holds the two most recent positions written with hash `h`, the newest in its
//! low 16 bits, the older in its high 16 bits, `0xFFFF` for none.
//!
//! A step gives lane `l` the position `base + l`: its word, its bucket, the lanes with the same bucket
//! (`match_any`) and the bucket's two entries, once. Then, as often as its lanes allow, it *tries*
//! the lanes from the parse position on: a lane's two candidates are the latest two earlier lanes with
//! the same bucket among those already *entered* in the table (the sequential parse's writes before
//! this position), completed from the bucket; the first lane with a verified candidate starts the
//! match. The match is extended and written; the sequential parse then enters the position two bytes
//! before its end and tries from its end, so when the end is still in the step, the step goes on from
//! there: the lanes entered are those up to the match's first lane, the lane two before the end, and
//! the lanes tried next. When the step is used up (a match ends past it, or no lane hits), the lanes
//! entered write the table, the last lane of each bucket with itself and its newest candidate.
//!
//! The words are read once too: a candidate inside the step is verified against its lane's word (a
//! shuffle), the bucket's two entries once per step, and the sequence writer takes a short
//! sequence's literals from the lanes' words ([`super::compress_emit::Window`]).
//!
//! A step's base is one position before the parse position (that lane takes no part), or two after a
//! match that ended past the previous step: lane 0 then enters the position two before the match's
//! end (the sequential write comes first), lane 1 takes no part, lanes 2–31 try.
//!
//! A match's first extension round ([`Ctx::first_round`]) also decides whether it extends backward:
//! lane 0 compares the bytes before it while lanes 1–31 compare bytes 4–34, so a try spends nothing on
//! the backward test.

use super::compress_emit::Window;
use super::compress_kernel::{Ctx, PageCtx, SEARCHABLE};
use super::compress_search::backward_room;
use super::encode_fast::FAST_HASH_BITS;
use super::warp_ops::{broadcast, for_range, PageConsts};
use super::{FAST_BUCKETS, LZ4_HASH_MULT};
use warpforge_ir::builder::{Bool, KernelBuilder, Val, U32};
use warpforge_ir::{Mask, ShuffleMode};

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
    /// Per lane, built once: this lane's bit, the lanes before it (`(1 << lane) − 1`), the lanes after
    /// it, its key when it takes no part (`marker + lane`), and `lane + 1`.
    lane_bit: Val<U32>,
    before: Val<U32>,
    after: Val<U32>,
    off_key: Val<U32>,
    lane_plus_one: Val<U32>,
    /// The first extension round's byte per lane ([`Ctx::first_round`]): lane 0 the byte before
    /// the match (`−1`, wrapping), lane `l ≥ 1` byte `l + 3`.
    round_byte: Val<U32>,
    /// All lanes but lane 0 (`!1`), and 35: the bytes the first round decides.
    not_lane_zero: Val<U32>,
    decided: Val<U32>,
    /// `0x7FFF_FFFF`: shifted right by a mask's `clz`, the bits below its highest.
    below_top: Val<U32>,
    /// Every lane's bit.
    all: Val<U32>,
}

/// What a step reads once for all its tries: per lane its position, whether it takes part, its word,
/// bucket and bucket entries, and the lanes with the same bucket (all of them, and those before it);
/// the step's base (lane 0's position) and first trying lane (uniform).
#[derive(Clone, Copy)]
struct StepWords {
    base: Val<U32>,
    base_plus_one: Val<U32>,
    skip: Val<U32>,
    x: Val<U32>,
    valid: Val<Bool>,
    word: Val<U32>,
    slot: Val<U32>,
    same: Val<U32>,
    same_before: Val<U32>,
    newest: Val<U32>,
    older: Val<U32>,
    /// Whether the bucket's newest and older entries hold this lane's word.
    newest_ok: Val<Bool>,
    older_ok: Val<Bool>,
}

/// What one try found (warp-uniform): whether no lane has a verified candidate, else the first
/// such lane, its position and candidate.
struct Tried {
    none: Val<Bool>,
    first: Val<U32>,
    x: Val<U32>,
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
            lane_bit,
            before,
            after: b.not(through),
            off_key: b.add(marker, p.lane),
            lane_plus_one: b.add(p.lane, k.one),
            round_byte: {
                let ahead = b.add(p.lane, k.three);
                let back = b.u32(u32::MAX);
                b.select(p.lane_zero, back, ahead)
            },
            not_lane_zero: b.u32(!1),
            decided: b.u32(35),
            below_top: b.u32(0x7FFF_FFFF),
            all: b.u32(u32::MAX),
        };
        let g = self.greedy();
        self.start_parse(b);
        b.assign(g.pending, k.zero);
        b.loop_(|b| {
            let pos = b.read(self.pos);
            let done = b.ge(pos, c.searchable);
            b.if_(done, |b| b.break_());
            let w = self.step_words(b, p, &c, pos);
            // Entered so far: every lane but the one that takes no part (lane `skip − 1`).
            let idle_lane = b.sub(w.skip, k.one);
            let idle_bit = b.shl(k.one, idle_lane);
            let entered = b.not(idle_bit);
            b.assign(g.entered, entered);
            b.assign(g.from, w.skip);
            b.loop_(|b| {
                let entered = b.read(g.entered);
                let from = b.read(g.from);
                let t = self.try_lanes(b, p, &c, &w, entered, from);
                b.if_(t.none, |b| {
                    // Every lane from `from` on was tried and is entered.
                    self.enter(b, p, &c, &w, entered);
                    let next = b.add(w.base, k.thirty_two);
                    b.assign(self.pos, next);
                    b.assign(g.pending, k.zero);
                    b.break_();
                });
                let (len, backward) = self.first_round(b, p, &c, t.x, t.candidate);
                let window = Window {
                    base_plus_one: w.base_plus_one,
                    word: w.word,
                };
                self.take_match(b, p, (t.x, t.candidate, len), Some((backward, window)));
                // The lanes up to the match's first stay entered; the lane two before its end is
                // entered; the parse goes on from its end (lane `rel`) while that is in the step.
                let end = b.read(self.pos);
                let rel = b.sub(end, w.base);
                let through = b.shl(k.two, t.first);
                let through = b.sub(through, k.one);
                let kept = b.and(entered, through);
                let before_end = b.sub(rel, k.two);
                let in_step = b.le(rel, k.thirty_one);
                b.if_(in_step, |b| {
                    // Lanes from `rel − 2` on, but `rel − 1` (`rel` is at least 5: the match
                    // starts after the base and is 4 bytes or more).
                    let onward = b.shl(c.all, before_end);
                    let idle = b.shl(k.two, before_end);
                    let onward = b.xor(onward, idle);
                    let entered = b.or(kept, onward);
                    b.assign(g.entered, entered);
                    b.assign(g.from, rel);
                    b.continue_();
                });
                // The step is used up: the position two before the end is entered here when it is in
                // the step, else by the next step.
                let end_in = b.le(before_end, k.thirty_one);
                let end_bit = b.shl(k.one, before_end);
                let end_bit = b.select(end_in, end_bit, k.zero);
                let entered = b.or(kept, end_bit);
                self.enter(b, p, &c, &w, entered);
                let pending = b.select(end_in, k.zero, k.one);
                b.assign(g.pending, pending);
                b.break_();
            });
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

    /// The step from `pos` (warp-uniform): its base is one position back, two after a match that
    /// left the position two before its end to enter.
    fn step_words(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        c: &StepConsts,
        pos: Val<U32>,
    ) -> StepWords {
        let k = p.page.k;
        let pending = b.read(self.greedy().pending);
        // Lanes below `skip` do not try their position: the one before `pos` (lane `skip − 1`) takes
        // no part, the one two before (lane 0 after a match) only enters the table.
        let skip = b.add(pending, k.one);
        let base = b.sub(pos, skip);
        let x = b.add(base, p.lane);
        let in_page = b.lt(x, c.searchable);
        let takes_part = b.ne(c.lane_plus_one, skip);
        let valid = b.and(in_page, takes_part);
        let safe_x = b.min(x, c.last);
        let (slot, word) = self.bucket(b, p, c, safe_x);
        // Lanes that take no part get distinct keys that no bucket can equal.
        let key = b.select(valid, slot, c.off_key);
        let same = b.match_any(key, Mask::FULL);
        let same_before = b.and(same, c.before);
        let pair = b.load(self.buckets(), slot);
        let newest = b.and(pair, c.empty);
        let older = b.shr(pair, c.sixteen);
        let newest_ok = self.verifies(b, p, c, newest, word);
        let older_ok = self.verifies(b, p, c, older, word);
        StepWords {
            base,
            base_plus_one: b.add(base, k.one),
            skip,
            x,
            valid,
            word,
            slot,
            same,
            same_before,
            newest,
            older,
            newest_ok,
            older_ok,
        }
    }

    /// Tries the lanes from `from` (uniform) against the table as the lanes in `entered` (uniform)
    /// left it.
    fn try_lanes(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        c: &StepConsts,
        w: &StepWords,
        entered: Val<U32>,
        from: Val<U32>,
    ) -> Tried {
        let k = p.page.k;
        // The newest two earlier lanes with the same bucket: the highest set bits (31 − clz).
        let n = newest_earlier(b, &k, w, entered);
        let (has_one, latest, c0) = (n.has_one, n.latest, n.candidate);
        // Without the newest: the bits below it (with none, `clz` is 32, the shift amount wraps to
        // 0 and the mask meets no bit).
        let below = b.shr(c.below_top, n.leading);
        let rest = b.and(n.earlier, below);
        let has_two = b.ne(rest, k.zero);
        let leading = b.clz(rest);
        let second = b.sub(k.thirty_one, leading);
        let in_step2 = b.add(w.base, second);
        let from_table = b.select(has_one, w.newest, w.older);
        let c1 = b.select(has_two, in_step2, from_table);
        // A candidate in the step is verified against its lane's word (shuffle lanes are taken
        // modulo 32), one from the bucket by what the step read.
        let word0 = b.shuffle(ShuffleMode::Index, w.word, latest, Mask::FULL);
        let same0 = b.eq(word0, w.word);
        let v0 = b.select(has_one, same0, w.newest_ok);
        let word1 = b.shuffle(ShuffleMode::Index, w.word, second, Mask::FULL);
        let same1 = b.eq(word1, w.word);
        let table_ok = b.select(has_one, w.newest_ok, w.older_ok);
        let v1 = b.select(has_two, same1, table_ok);
        let either = b.or(v0, v1);
        let tries = b.ge(p.lane, from);
        let hit = b.and(w.valid, tries);
        let hit = b.and(hit, either);
        let candidate = b.select(v0, c0, c1);
        // With no hit `first` is 0xFFFFFFFF (a shuffle takes it modulo 32), and nothing uses the
        // rest.
        let hits = b.ballot(hit, Mask::FULL);
        let none = b.eq(hits, k.zero);
        let first = b.ffs(hits);
        let candidate = broadcast(b, candidate, first);
        let x = b.add(w.base, first);
        Tried {
            none,
            first,
            x,
            candidate,
        }
    }

    /// The match at `x` from `q` (uniform; their first 4 bytes agree): its length, and whether the
    /// bytes before `x` and `q` agree too (`x` past the pending literals' start, `q` past the page's
    /// first byte), both from one round of byte compares: lane 0 compares the bytes before, lanes
    /// 1–31 bytes 4–34 of the match; only a match that runs through all of them takes more rounds
    /// ([`Ctx::extend_forward`]). (The backward test used to be its own compare in every try.)
    fn first_round(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        c: &StepConsts,
        x: Val<U32>,
        q: Val<U32>,
    ) -> (Val<U32>, Val<Bool>) {
        let k = p.page.k;
        let anchor = b.read(self.anchor);
        let back_ok = backward_room(b, &k, (x, q), anchor);
        let xb = b.add(p.page.byte_base, x);
        let qb = b.add(p.page.byte_base, q);
        let xi = b.add(x, c.round_byte);
        let ahead_ok = b.lt(xi, k.end_limit);
        let inside = b.select(p.lane_zero, back_ok, ahead_ok);
        let at = b.select(inside, c.round_byte, k.zero);
        let xa = b.add(xb, at);
        let bx = b.load_byte(p.page.words, xa);
        let qa = b.add(qb, at);
        let bq = b.load_byte(p.page.words, qa);
        let same = b.eq(bx, bq);
        let agree = b.and(inside, same);
        let agreeing = b.ballot(agree, Mask::FULL);
        let back_bit = b.and(agreeing, k.one);
        let backward = b.ne(back_bit, k.zero);
        let stops = b.not(agreeing);
        let stops = b.and(stops, c.not_lane_zero);
        let f = b.ffs(stops);
        let len = b.add(f, k.three);
        b.assign(self.ext, len);
        let through = b.eq(stops, k.zero);
        b.if_(through, |b| {
            let len = self.extend_forward(b, p, x, q, c.decided);
            b.assign(self.ext, len);
        });
        (b.read(self.ext), backward)
    }

    /// The lanes in `entered` (uniform) write the table: the last lane of each bucket, with itself and
    /// its newest candidate.
    fn enter(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        c: &StepConsts,
        w: &StepWords,
        entered: Val<U32>,
    ) {
        let k = p.page.k;
        let c0 = newest_earlier(b, &k, w, entered).candidate;
        let mine = b.and(entered, c.lane_bit);
        let is_in = b.ne(mine, k.zero);
        let later = b.and(w.same, entered);
        let later = b.and(later, c.after);
        let is_last = b.eq(later, k.zero);
        let writes = b.and(is_in, is_last);
        let writes = b.and(writes, w.valid);
        // Every lane has read the bucket before any lane writes it.
        b.warp_sync(Mask::FULL);
        b.if_(writes, |b| {
            let older = b.shl(c0, c.sixteen);
            let pair = b.or(older, w.x);
            b.store(self.buckets(), w.slot, pair);
        });
        b.warp_sync(Mask::FULL);
    }
}

/// A lane's newest candidate among the lanes in `entered`: the highest earlier lane with the same
/// bucket (`31 − clz` of their mask), else the bucket's newest entry.
struct NewestEarlier {
    earlier: Val<U32>,
    has_one: Val<Bool>,
    leading: Val<U32>,
    latest: Val<U32>,
    candidate: Val<U32>,
}

fn newest_earlier(
    b: &mut KernelBuilder,
    k: &PageConsts,
    w: &StepWords,
    entered: Val<U32>,
) -> NewestEarlier {
    let earlier = b.and(w.same_before, entered);
    let has_one = b.ne(earlier, k.zero);
    let leading = b.clz(earlier);
    let latest = b.sub(k.thirty_one, leading);
    let in_step = b.add(w.base, latest);
    let candidate = b.select(has_one, in_step, w.newest);
    NewestEarlier {
        earlier,
        has_one,
        leading,
        latest,
        candidate,
    }
}
