//! The compress kernel's search for the longest match at one position ([`Ctx::longest`]): 32 chain
//! entries per round, each lane comparing one entry word by word, the longest (then the most recent)
//! taken by one warp-wide maximum after the rounds.
//!
//! Only a match longer than a *floor* matters in a lazy step (a later start must be longer than the
//! current match) and, in a deep search, after the first round (an older entry must be longer than
//! the best so far to replace it). Such a round tests each entry's 4 bytes ending at byte `floor` first
//! (bytes `0..=floor` must agree for a length over `floor`); a round in which no entry passes costs
//! no compare, and a lazy step in which none passes no maximum.

use super::compress_kernel::{Ctx, PageCtx, END_LIMIT, PAGE};
use super::warp_ops::broadcast;
use warpforge_ir::builder::{Bool, KernelBuilder, Val, U32};
use warpforge_ir::{Mask, ShuffleMode, VoteMode};

/// What every round of one search reads (all warp-uniform but `x_words`).
#[derive(Clone, Copy)]
struct Search {
    x: Val<U32>,
    slot: Val<U32>,
    top: Val<U32>,
    /// [`x_words`], read once for the search (`None`: by each round that compares).
    x_words: Option<(Val<U32>, Val<U32>)>,
    /// Lengths are compared up to here: the nice length, or the room left before END_LIMIT.
    limit: Val<U32>,
}

/// A floor's test: an entry can be longer than the floor only if its word at `tail_off` is `wanted`.
#[derive(Clone, Copy)]
struct Floor {
    tail_off: Val<U32>,
    wanted: Val<U32>,
}

impl Ctx {
    /// The longest match at `x` (warp-uniform) among its first `depth` chain entries, 32 entries per
    /// round: lane `k` compares entry `k` word by word up to the nice length, a warp-wide maximum of
    /// `length << 16 | (0xFFFF − k)` picks the longest, then the most recent. A match reaching the nice
    /// length is extended as far as it goes. Length 0 when no entry verifies.
    ///
    /// `slot`: `x`'s chain slot when the caller has it. A lazy step passes its current match's length
    /// as `floor` (warp-uniform, at least 4): the result is the same whenever it is longer than
    /// `floor`; otherwise it is some length no longer than `floor` (0 when no entry could be longer).
    pub(super) fn longest(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        x: Val<U32>,
        slot: Option<Val<U32>>,
        floor: Option<Val<U32>>,
    ) -> (Val<U32>, Val<U32>) {
        let (depth, nice) = (self.level.depth(), self.level.nice());
        let k = p.page.k;
        // `x`'s slot (warp-uniform) where the caller does not know it: lane 0 asks for it, the
        // broadcast hands it to every lane.
        let slot = slot.unwrap_or_else(|| {
            let slot = self.slot_window(b, p, x);
            broadcast(b, slot, k.zero)
        });
        let top = Self::top_of(b, slot);
        // A lazy step reads `x`'s words only in a round that has an entry to compare (few do).
        let x_words = floor.is_none().then(|| x_words(b, p, x));
        let nice_v = b.u32(nice);
        let end = b.u32(END_LIMIT);
        let room = b.sub(end, x);
        let limit = b.min(nice_v, room);
        let s = Search {
            x,
            slot,
            top,
            x_words,
            limit,
        };
        b.assign(self.key, k.zero);
        b.assign(self.j, k.zero);
        // Rounds start below the depth and the chain's length.
        let depth_v = b.u32(depth);
        let rounds_end = b.min(slot, depth_v);
        match floor {
            Some(floor) => {
                let (f, rounds_end) = floor_test(b, p, &s, floor, rounds_end);
                self.rounds(b, p, &s, rounds_end, Some(f));
                // A lazy step in which no entry could beat the floor has found nothing: every
                // lane's key is still 0.
                b.assign(self.match_len, k.zero);
                b.assign(self.chosen, k.zero);
                let key = b.read(self.key);
                let found = b.ne(key, k.zero);
                let any = b.vote(VoteMode::Any, found, Mask::FULL);
                b.if_(any, |b| self.pick(b, p, &s));
            }
            None if depth > 64 => {
                // The first round compares every verified entry; later ones only those that can
                // beat its best (a floor of 3 when it had none: every verified entry). The extra
                // maximum pays off over three later rounds, not over one: level 3 (depth 128) went
                // from 185,897 to 179,812 warp-instructions per page, and level 2 (depth 64) would
                // go from 116,936 to 119,060 (the simulator's counters, first 128 development pages).
                let first_end = b.min(rounds_end, k.thirty_two);
                self.rounds(b, p, &s, first_end, None);
                let best = self.warp_max_key(b);
                b.assign(self.key, best);
                let sixteen = b.u32(16);
                let len = b.shr(best, sixteen);
                let floor = b.max(len, k.three);
                let (f, rounds_end) = floor_test(b, p, &s, floor, rounds_end);
                self.rounds(b, p, &s, rounds_end, Some(f));
                self.pick(b, p, &s);
            }
            None => {
                self.rounds(b, p, &s, rounds_end, None);
                self.pick(b, p, &s);
            }
        }
        (b.read(self.match_len), b.read(self.chosen))
    }

    /// The rounds from `j` up to `rounds_end`: each lane's best key in `key`. With a floor, only the
    /// entries that pass its test are compared.
    fn rounds(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        s: &Search,
        rounds_end: Val<U32>,
        floor: Option<Floor>,
    ) {
        let depth = self.level.depth();
        let k4 = p.page.k;
        b.loop_(|b| {
            let round = b.read(self.j);
            let done = b.ge(round, rounds_end);
            b.if_(done, |b| b.break_());
            let k = b.add(round, p.lane);
            let (q, in_chain, _) = self.entry(b, p, s.slot, s.top, k, None);
            let mut reads = in_chain;
            if depth % 32 != 0 {
                // Only the last round can reach past the depth.
                let depth_v = b.u32(depth);
                let in_depth = b.lt(k, depth_v);
                reads = b.and(reads, in_depth);
            }
            let next = b.add(round, k4.thirty_two);
            b.assign(self.j, next);
            let compare = |b: &mut KernelBuilder, reads: Val<Bool>| {
                self.compare_entries(b, p, s, (q, k), reads)
            };
            match floor {
                None => compare(b, reads),
                Some(f) => {
                    // `q + floor + 1 < x + floor + 1 <= END_LIMIT` for an entry of `x`'s bucket; one
                    // of the bucket before (which cannot verify) may lie anywhere in the page.
                    let last_word = b.u32(PAGE - 4);
                    let at = b.add(q, f.tail_off);
                    let at = b.min(at, last_word);
                    let tail = p.page.read_word_if(b, at, reads).word;
                    let agrees = b.eq(tail, f.wanted);
                    let can_beat = b.and(reads, agrees);
                    let any = b.vote(VoteMode::Any, can_beat, Mask::FULL);
                    b.if_(any, |b| compare(b, can_beat));
                }
            }
        });
    }

    /// One round's compare: entry `k` (at `q`) in the lanes where `reads` holds and its first word
    /// agrees, word by word up to the limit; each lane keeps its best key. A round in which an entry
    /// reached the limit is the last (levels deeper than one round).
    fn compare_entries(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        s: &Search,
        (q, k): (Val<U32>, Val<U32>),
        reads: Val<Bool>,
    ) {
        let k4 = p.page.k;
        let (x_words, wx) = s.x_words.unwrap_or_else(|| x_words(b, p, s.x));
        let read = p.page.read_word_if(b, q, reads);
        let same = b.eq(read.word, wx);
        let ok = b.and(reads, same);
        let len = b.select(ok, k4.four, k4.zero);
        self.compare_words(b, p, read, ok, x_words, s.limit, len);
        let len = b.read(self.len);
        let len = b.min(len, s.limit);
        let sixteen = b.u32(16);
        let high = b.shl(len, sixteen);
        let ffff = b.u32(0xFFFF);
        let recency = b.sub(ffff, k);
        let key = b.or(high, recency);
        let key = b.select(ok, key, k4.zero);
        // Each lane keeps its own best; the warp-wide maximum is taken after the rounds.
        let best = b.read(self.key);
        let best = b.max(best, key);
        b.assign(self.key, best);
        if self.level.depth() > 32 {
            // An entry that reached the limit cannot be beaten by a later round: no later entry is
            // longer, and on a tie the more recent (this round's) wins.
            let full = b.eq(len, s.limit);
            let full = b.and(ok, full);
            let any_full = b.vote(VoteMode::Any, full, Mask::FULL);
            b.if_(any_full, |b| b.break_());
        }
    }

    /// The warp-wide maximum of the lanes' keys, in every lane (broadcast, so that the uniformity
    /// analysis sees it).
    fn warp_max_key(&self, b: &mut KernelBuilder) -> Val<U32> {
        let mut key = b.read(self.key);
        for d in [16u32, 8, 4, 2, 1] {
            let dist = b.u32(d);
            let other = b.shuffle(ShuffleMode::Xor, key, dist, Mask::FULL);
            key = b.max(key, other);
        }
        let lane0 = b.u32(0);
        broadcast(b, key, lane0)
    }

    /// The best key's entry and length into `chosen` and `match_len`, extended past the nice length
    /// when it reached it.
    fn pick(&self, b: &mut KernelBuilder, p: &PageCtx, s: &Search) {
        let key = self.warp_max_key(b);
        let sixteen = b.u32(16);
        let len = b.shr(key, sixteen);
        let ffff = b.u32(0xFFFF);
        let recency = b.and(key, ffff);
        let k = b.sub(ffff, recency);
        let (q, _, _) = self.entry(b, p, s.slot, s.top, k, None);
        b.assign(self.chosen, q);
        let nice_v = b.u32(self.level.nice());
        let reached = b.eq(len, nice_v);
        b.assign(self.match_len, len);
        b.if_(reached, |b| {
            let full = self.extend_forward(b, p, s.x, q, nice_v);
            b.assign(self.match_len, full);
        });
    }
}

/// The words every entry is compared with: lane `j` holds the word at `x + 4j` (clamped to the page's
/// last word), and the word at `x` in every lane.
fn x_words(b: &mut KernelBuilder, p: &PageCtx, x: Val<U32>) -> (Val<U32>, Val<U32>) {
    let k = p.page.k;
    let ahead = b.mul(p.lane, k.four);
    let ahead = b.add(x, ahead);
    let last_word = b.u32(PAGE - 4);
    let ahead = b.min(ahead, last_word);
    let words = p.page.word_at(b, ahead);
    let wx = broadcast(b, words, k.zero);
    (words, wx)
}

/// The word of `x` that an entry longer than `floor` (at least 3) must have at `floor − 3`, and
/// the rounds' end: none when no entry can be longer (`floor` at the limit). The word is in the
/// page otherwise: `x + floor + 1 <= x + limit <= END_LIMIT`.
fn floor_test(
    b: &mut KernelBuilder,
    p: &PageCtx,
    s: &Search,
    floor: Val<U32>,
    rounds_end: Val<U32>,
) -> (Floor, Val<U32>) {
    let k = p.page.k;
    let hopeless = b.ge(floor, s.limit);
    let rounds_end = b.select(hopeless, k.zero, rounds_end);
    let tail_off = b.sub(floor, k.three);
    let at = b.add(s.x, tail_off);
    let at = b.select(hopeless, s.x, at);
    let wanted = p.page.word_at(b, at);
    (Floor { tail_off, wanted }, rounds_end)
}
