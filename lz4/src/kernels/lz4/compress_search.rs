//! The compress kernel's match search: the per-lane probe for the first position with a verified chain
//! entry, the warp-wide longest match at one position, the lazy steps, and the forward and backward
//! extensions. Chain entry `k` of `x` is `sorted[scratch[x] − 1 − k]` (see [`super::compress_chains`]).

use super::compress_emit::Window;
use super::compress_kernel::{hash, Ctx, PageCtx, SEARCHABLE};
use super::warp_ops::{first_lane, PageConsts, WordRead};
use warpforge_ir::builder::{Bool, KernelBuilder, Val, U32};
use warpforge_ir::{Mask, ShuffleMode, VoteMode};

impl Ctx {
    /// Chain entry `k` of the position whose slot is `slot` (`top` is `slot - 1`, which the caller
    /// computes once for its loop), whether there is one, and whether this lane read it (there is one
    /// and the lane is `active`). A lane that did not read the oldest position of the bucket's first
    /// slot instead: idle lanes read one shared slot, which costs no bank conflict.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn entry(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        slot: Val<U32>,
        top: Val<U32>,
        k: Val<U32>,
        active: Option<Val<Bool>>,
    ) -> (Val<U32>, Val<Bool>, Val<Bool>) {
        let in_chain = b.lt(k, slot);
        let at = b.sub(top, k);
        let zero = b.u32(0);
        let reads = match active {
            Some(active) => b.and(in_chain, active),
            None => in_chain,
        };
        let at = b.select(reads, at, zero);
        let at = b.add(p.table_base, at);
        let q = b.load(self.sorted(), at);
        (b.zext::<U32, _>(q), in_chain, reads)
    }

    /// `slot - 1`, the index of a slot's newest chain entry, for [`Ctx::entry`].
    pub(super) fn top_of(b: &mut KernelBuilder, slot: Val<U32>) -> Val<U32> {
        let one = b.u32(1);
        b.sub(slot, one)
    }

    /// Whether one of the first `depth` chain entries of `x` (this lane's position, whose slot is
    /// `slot`) verifies. Lanes walk their chains until an entry verifies, the bucket ends or the depth
    /// is reached.
    pub(super) fn probe(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        x: Val<U32>,
        slot: Val<U32>,
        valid: Val<Bool>,
    ) -> Val<Bool> {
        let wx = p.page.word_at(b, x);
        let hx = hash(b, wx);
        let zero = b.u32(0);
        let no = b.bool(false);
        b.assign(self.found, no);
        b.assign(self.alive, valid);
        b.assign(self.step, zero);
        let top = Self::top_of(b, slot);
        b.loop_(|b| {
            let k = b.read(self.step);
            let depth = b.u32(self.level.depth());
            let deep = b.ge(k, depth);
            b.if_(deep, |b| b.break_());
            let alive = b.read(self.alive);
            let any = b.vote(VoteMode::Any, alive, Mask::FULL);
            let none = b.not(any);
            b.if_(none, |b| b.break_());
            // `reads`: this lane is alive and `k` is in its chain.
            let (q, _, reads) = self.entry(b, p, slot, top, k, Some(alive));
            let wq = p.page.read_word_if(b, q, reads).word;
            let same = b.eq(wq, wx);
            let hit = b.and(reads, same);
            let hq = hash(b, wq);
            let in_bucket = b.eq(hq, hx);
            let not_same = b.not(same);
            let goes_on = b.and(in_bucket, not_same);
            let still = b.and(reads, goes_on);
            b.assign(self.alive, still);
            let found = b.read(self.found);
            let found = b.or(found, hit);
            b.assign(self.found, found);
            let one = b.u32(1);
            let next = b.add(k, one);
            b.assign(self.step, next);
        });
        b.read(self.found)
    }

    /// At position `x` (warp-uniform; its chain slot `slot`), where the probe found a verified entry:
    /// the longest match there and after the lazy steps, extended backward, written as a sequence;
    /// the parse moves past it.
    pub(super) fn match_at(&self, b: &mut KernelBuilder, p: &PageCtx, x: Val<U32>, slot: Val<U32>) {
        let (lazy, nice) = (self.level.lazy(), self.level.nice());
        // The match at `x` itself (the probe verified an entry: at least 4 bytes long).
        let (len, q) = self.longest(b, p, x, Some(slot), None);
        b.assign(self.start, x);
        b.assign(self.best_len, len);
        b.assign(self.best_q, q);
        if lazy > 0 {
            // Lazy steps 1..=lazy look further while the match is short; a longer one starts there.
            let one = b.u32(1);
            b.assign(self.kk, one);
            b.loop_(|b| {
                let k = b.read(self.kk);
                let lazy = b.u32(lazy);
                let past = b.gt(k, lazy);
                b.if_(past, |b| b.break_());
                let x = b.read(self.start);
                let at = b.add(x, k);
                let len = b.read(self.best_len);
                let nice = b.u32(nice);
                let long_enough = b.ge(len, nice);
                let searchable = b.u32(SEARCHABLE);
                let outside = b.ge(at, searchable);
                let stop = b.or(long_enough, outside);
                b.if_(stop, |b| b.break_());
                // Only a match longer than `len` moves the start: the search leaves out the
                // entries that cannot be.
                let (len2, q2) = self.longest(b, p, at, None, Some(len));
                let longer = b.gt(len2, len);
                b.if_else(
                    longer,
                    |b| {
                        b.assign(self.start, at);
                        b.assign(self.best_len, len2);
                        b.assign(self.best_q, q2);
                        let one = b.u32(1);
                        b.assign(self.kk, one);
                    },
                    |b| {
                        let one = b.u32(1);
                        let next = b.add(k, one);
                        b.assign(self.kk, next);
                    },
                );
            });
        }
        let x = b.read(self.start);
        let q = b.read(self.best_q);
        let len = b.read(self.best_len);
        self.take_match(b, p, (x, q, len), None);
    }

    /// The match of `len` bytes at `x` from `q` (all warp-uniform), extended backward over pending
    /// literals and written as a sequence; the parse moves past it. `step`: the throughput level's
    /// step, which knows whether the bytes before `x` and `q` agree (within the literals and the
    /// page) and holds the words the sequence writer can take literals from.
    pub(super) fn take_match(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        (x, q, len): (Val<U32>, Val<U32>, Val<U32>),
        step: Option<(Val<Bool>, Window)>,
    ) {
        let (backward, window) = step.unzip();
        let k = p.page.k;
        let anchor = b.read(self.anchor);
        // Most matches do not extend backward: one byte decides, and only then the lanes count.
        let can = match backward {
            Some(can) => can,
            None => self.bytes_before_agree(b, p, (x, q), anchor),
        };
        b.assign(self.ext, k.zero);
        b.if_(can, |b| {
            self.extend_backward(b, p, x, q, anchor);
        });
        let back = b.read(self.ext);
        let start = b.sub(x, back);
        let from = b.sub(q, back);
        let len = b.add(len, back);
        let lit = b.sub(start, anchor);
        let offset = b.sub(start, from);
        // The parse moves past the match (the sequence writer moves it past the page if it gives up).
        let next = b.add(start, len);
        b.assign(self.pos, next);
        b.assign(self.anchor, next);
        self.emit_sequence(b, p, anchor, lit, Some((offset, len)), window);
    }

    /// Whether a match at `x` from `q` (uniform) extends backward by a byte: there are bytes before
    /// both ([`backward_room`]) and they agree. Warp-uniform.
    fn bytes_before_agree(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        (x, q): (Val<U32>, Val<U32>),
        anchor: Val<U32>,
    ) -> Val<Bool> {
        let k = p.page.k;
        let room = backward_room(b, &k, (x, q), anchor);
        let x1 = b.sub(x, k.one);
        let x1 = b.select(room, x1, k.zero);
        let bx = p.page.byte(b, x1);
        let q1 = b.sub(q, k.one);
        let q1 = b.select(room, q1, k.zero);
        let bq = p.page.byte(b, q1);
        let same = b.eq(bx, bq);
        let can = b.and(room, same);
        b.vote(VoteMode::Any, can, Mask::FULL)
    }

    /// Lane-wise: extends this lane's `len` (4 when `ok`) 4 bytes per step while the words at `q + len`
    /// and `x + len` agree and `len < limit`; a differing word adds its equal low bytes. Leaves the
    /// length in `len`. Lanes that are still going all have the same `len`, so lane `len / 4` of
    /// `x_words` holds the word of `x` to compare. `q` is what [`PageWords::read_word_if`] read at the
    /// entry: each step loads one aligned word and reuses the one before (starting from `q.hi`), and
    /// lanes that stopped read the page's first word (no bank conflicts for idle lanes).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn compare_words(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        q: WordRead,
        ok: Val<Bool>,
        x_words: Val<U32>,
        limit: Val<U32>,
        len: Val<U32>,
    ) {
        b.assign(self.len, len);
        let one = b.u32(1);
        let going = b.lt(len, limit);
        let going = b.and(ok, going);
        b.assign(self.alive, going);
        b.assign(self.step, one);
        b.assign(self.carry, q.hi);
        let shift = q.shift;
        // A lane still going at step `j` has matched `len = 4j` bytes, so the next aligned word to load
        // is `(q + len) / 4 + 1 = q / 4 + 1 + j`, `q.hi_at + j`: `q.hi_at` is not clamped for such a
        // lane (`q + 4 < x + limit <= END_LIMIT`, so `q / 4 + 1 <= 1022`).
        let q_next = q.hi_at;
        b.loop_(|b| {
            let alive = b.read(self.alive);
            let any = b.vote(VoteMode::Any, alive, Mask::FULL);
            let none = b.not(any);
            b.if_(none, |b| b.break_());
            let j = b.read(self.step);
            let xw = b.shuffle(ShuffleMode::Index, x_words, j, Mask::FULL);
            let len = b.read(self.len);
            // In the page: `q + len < x + limit <= END_LIMIT` while a lane goes on, so the word after
            // `(q + len) / 4` is in the page too; a stopped lane reads word 0.
            let next = b.add(q_next, j);
            let at = b.select(alive, next, p.page.base);
            let new_hi = b.load(p.page.words, at);
            let lo = b.read(self.carry);
            b.assign(self.carry, new_hi);
            let qw = p.page.join(b, lo, new_hi, shift);
            let diff = b.xor(xw, qw);
            let zero = b.u32(0);
            let equal = b.eq(diff, zero);
            let low = b.ffs(diff);
            let three = b.u32(3);
            let bytes = b.shr(low, three);
            let four = b.u32(4);
            let add = b.select(equal, four, bytes);
            let longer = b.add(len, add);
            let len = b.select(alive, longer, len);
            b.assign(self.len, len);
            let below = b.lt(len, limit);
            let still = b.and(alive, equal);
            let still = b.and(still, below);
            b.assign(self.alive, still);
            let next = b.add(j, one);
            b.assign(self.step, next);
        });
    }

    /// Counts up from `start` while lanes agree: each step, lane `l` tests position `count + l`
    /// (`agrees` returns its verdict); the first lane that disagrees ends the count there, otherwise the
    /// count moves on by 32. The result is warp-uniform.
    fn count_agreeing(
        &self,
        b: &mut KernelBuilder,
        k: &PageConsts,
        start: Val<U32>,
        agrees: impl FnOnce(&mut KernelBuilder, Val<U32>) -> Val<warpforge_ir::builder::Bool>,
    ) -> Val<U32> {
        b.assign(self.ext, start);
        b.loop_(|b| {
            let count = b.read(self.ext);
            let ok = agrees(b, count);
            let stop = b.not(ok);
            let (f, any) = first_lane(b, stop, k.zero);
            b.if_else(
                any,
                |b| {
                    let total = b.add(count, f);
                    b.assign(self.ext, total);
                    b.break_();
                },
                |b| {
                    let more = b.add(count, k.thirty_two);
                    b.assign(self.ext, more);
                },
            );
        });
        b.read(self.ext)
    }

    /// The match length at `x` from `q` (both uniform) whose first `known` bytes agree, ending at or
    /// before END_LIMIT.
    pub(super) fn extend_forward(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        x: Val<U32>,
        q: Val<U32>,
        known: Val<U32>,
    ) -> Val<U32> {
        let k = p.page.k;
        self.count_agreeing(b, &k, known, |b, e| {
            let i = b.add(e, p.lane);
            let xi = b.add(x, i);
            let inside = b.lt(xi, k.end_limit);
            let safe_x = b.min(xi, k.page_last);
            let qi = b.add(q, i);
            let safe_q = b.min(qi, k.page_last);
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
        let k = p.page.k;
        self.count_agreeing(b, &k, k.zero, |b, d| {
            let lane1 = b.add(p.lane, k.one);
            let i = b.add(d, lane1);
            let room = b.sub(x, anchor);
            let within_literals = b.le(i, room);
            let within_page = b.le(i, q);
            let inside = b.and(within_literals, within_page);
            let xi = b.sub(x, i);
            let qi = b.sub(q, i);
            let safe_x = b.select(inside, xi, k.zero);
            let safe_q = b.select(inside, qi, k.zero);
            let bx = p.page.byte(b, safe_x);
            let bq = p.page.byte(b, safe_q);
            let same = b.eq(bx, bq);
            b.and(inside, same)
        })
    }
}

/// Whether a match at `x` from `q` (uniform) has a byte before it to extend backward into: `x` past
/// the pending literals' start `anchor`, `q` past the page's first byte.
pub(super) fn backward_room(
    b: &mut KernelBuilder,
    k: &PageConsts,
    (x, q): (Val<U32>, Val<U32>),
    anchor: Val<U32>,
) -> Val<Bool> {
    let after_anchor = b.gt(x, anchor);
    let q_room = b.gt(q, k.zero);
    b.and(after_anchor, q_room)
}
