//! The compress kernel's hash chains, as a stable counting sort of the page's searchable positions by
//! hash: afterwards `sorted` lists every bucket's positions oldest first and `table[p]` is `p`'s slot,
//! so chain entry `k` of `p` is `sorted[table[p] − 1 − k]` (an entry of the bucket before is never a
//! chain entry, and never verifies: its hash, hence its word, differs).

use super::compress_kernel::{hash, Ctx, PageCtx, SEARCHABLE};
use super::warp_ops::for_range;
use super::LZ4_HASH_SIZE;
use crate::builder::{KernelBuilder, Val, U16, U32};
use crate::{Mask, ShuffleMode};

impl Ctx {
    /// Builds `sorted` and the slot of every position in `table`.
    pub(super) fn build_chains(&self, b: &mut KernelBuilder, p: &PageCtx) {
        self.clear_table(b, p);
        self.count_and_rank(b, p);
        self.bucket_starts(b, p);
        self.slots(b, p);
        // `sorted[x]` holds `x`'s slot: move the slots to `table`, then place every position in its slot.
        let searchable = b.u32(SEARCHABLE);
        for_range(b, self.i, p.lane, searchable, 32, |b, i| {
            let from = b.add(p.sorted_base, i);
            let slot = b.load(self.sorted(), from);
            let to = b.add(p.table_base, i);
            b.store(self.table(), to, slot);
        });
        b.warp_sync(Mask::FULL);
        for_range(b, self.i, p.lane, searchable, 32, |b, i| {
            let from = b.add(p.table_base, i);
            let slot = b.load(self.table(), from);
            let slot = b.zext::<U32, _>(slot);
            let to = b.add(p.sorted_base, slot);
            let i16 = b.trunc::<U16, _>(i);
            b.store(self.sorted(), to, i16);
        });
        b.warp_sync(Mask::FULL);
    }

    fn clear_table(&self, b: &mut KernelBuilder, p: &PageCtx) {
        let entries = b.u32(LZ4_HASH_SIZE as u32);
        for_range(b, self.i, p.lane, entries, 32, |b, i| {
            let at = b.add(p.table_base, i);
            let zero = b.lit::<U16>(0);
            b.store(self.table(), at, zero);
        });
        b.warp_sync(Mask::FULL);
    }

    /// This lane's position `x` in the chunk and its hash (of the last searchable position's word when
    /// `x` is past the searchable range).
    fn chunk_hash(&self, b: &mut KernelBuilder, p: &PageCtx, chunk: Val<U32>) -> [Val<U32>; 2] {
        let x = b.add(chunk, p.lane);
        let last = b.u32(SEARCHABLE - 1);
        let safe_x = b.min(x, last);
        let word = p.page.word_at(b, safe_x);
        [x, hash(b, word)]
    }

    /// Counts every hash's positions in `table` and leaves each position's rank among the earlier
    /// positions of its hash in `sorted[x]`, 32 positions per step: `match_any` finds the earlier lanes
    /// of the chunk with the same hash, the table the earlier chunks, and the last lane of each hash
    /// adds the chunk's count.
    fn count_and_rank(&self, b: &mut KernelBuilder, p: &PageCtx) {
        let zero = b.u32(0);
        let chunks_end = b.u32(SEARCHABLE.div_ceil(32) * 32);
        for_range(b, self.j, zero, chunks_end, 32, |b, chunk| {
            let [x, h] = self.chunk_hash(b, p, chunk);
            let searchable = b.u32(SEARCHABLE);
            let valid = b.lt(x, searchable);
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
            let count = b.load(self.table(), slot);
            let count = b.zext::<U32, _>(count);
            let before = b.popcount(earlier);
            let rank = b.add(count, before);
            b.if_(valid, |b| {
                let at = b.add(p.sorted_base, x);
                let r16 = b.trunc::<U16, _>(rank);
                b.store(self.sorted(), at, r16);
            });
            b.warp_sync(Mask::FULL);
            let two = b.u32(2);
            let upto = b.shl(two, p.lane);
            let upto = b.sub(upto, one);
            let not_upto = b.not(upto);
            let later = b.and(same_hash, not_upto);
            let zero = b.u32(0);
            let is_last = b.eq(later, zero);
            let writes = b.and(valid, is_last);
            b.if_(writes, |b| {
                let in_chunk = b.popcount(same_hash);
                let total = b.add(count, in_chunk);
                let t16 = b.trunc::<U16, _>(total);
                b.store(self.table(), slot, t16);
            });
            b.warp_sync(Mask::FULL);
        });
    }

    /// Turns the counts in `table` into bucket starts (an exclusive prefix sum, 32 buckets per step).
    fn bucket_starts(&self, b: &mut KernelBuilder, p: &PageCtx) {
        let zero = b.u32(0);
        b.assign(self.run, zero);
        let entries = b.u32(LZ4_HASH_SIZE as u32);
        for_range(b, self.j, zero, entries, 32, |b, chunk| {
            let i = b.add(chunk, p.lane);
            let at = b.add(p.table_base, i);
            let count = b.load(self.table(), at);
            let count = b.zext::<U32, _>(count);
            let mut inclusive = count;
            for d in [1u32, 2, 4, 8, 16] {
                let dist = b.u32(d);
                let up = b.shuffle(ShuffleMode::Up, inclusive, dist, Mask::FULL);
                let has = b.ge(p.lane, dist);
                let zero = b.u32(0);
                let add = b.select(has, up, zero);
                inclusive = b.add(inclusive, add);
            }
            let run = b.read(self.run);
            let before = b.sub(inclusive, count);
            let start = b.add(run, before);
            let s16 = b.trunc::<U16, _>(start);
            b.store(self.table(), at, s16);
            let last = b.u32(31);
            let total = b.shuffle(ShuffleMode::Index, inclusive, last, Mask::FULL);
            let run = b.add(run, total);
            b.assign(self.run, run);
        });
        b.warp_sync(Mask::FULL);
    }

    /// `sorted[x]` becomes `x`'s slot: its bucket's start plus its rank.
    fn slots(&self, b: &mut KernelBuilder, p: &PageCtx) {
        let zero = b.u32(0);
        let chunks_end = b.u32(SEARCHABLE.div_ceil(32) * 32);
        for_range(b, self.j, zero, chunks_end, 32, |b, chunk| {
            let [x, h] = self.chunk_hash(b, p, chunk);
            let searchable = b.u32(SEARCHABLE);
            let valid = b.lt(x, searchable);
            b.if_(valid, |b| {
                let slot = b.add(p.table_base, h);
                let start = b.load(self.table(), slot);
                let start = b.zext::<U32, _>(start);
                let at = b.add(p.sorted_base, x);
                let rank = b.load(self.sorted(), at);
                let rank = b.zext::<U32, _>(rank);
                let mine = b.add(start, rank);
                let m16 = b.trunc::<U16, _>(mine);
                b.store(self.sorted(), at, m16);
            });
        });
        b.warp_sync(Mask::FULL);
    }
}
