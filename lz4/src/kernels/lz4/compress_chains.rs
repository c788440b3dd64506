//! The compress kernel's hash chains, as a stable counting sort of the page's searchable positions by
//! hash: afterwards `sorted` lists every bucket's positions oldest first and `scratch[p]` is `p`'s slot,
//! so chain entry `k` of `p` is `sorted[scratch[p] − 1 − k]` (an entry of the bucket before is never a
//! chain entry, and never verifies: its hash, hence its word, differs).
//!
//! While the chains are built, `sorted` holds the per-hash counts, then the bucket starts (4096 hashes
//! fit the 4096 slots). Lane `l` handles the positions `x ≡ l (mod 32)` in every pass, so the slots in
//! `scratch` (global memory) are written and read back by the same lane: no fence is needed between
//! lanes, on any backend. [`Ctx::slot_window`] hands other lanes their slots through a shuffle.

use super::compress_kernel::{hash, Ctx, PageCtx, SEARCHABLE};
use super::warp_ops::for_range;
use super::{LZ4_HASH_SIZE, PAGE_SIZE};
use warpforge_ir::builder::{KernelBuilder, Val, U16, U32, U64};
use warpforge_ir::{Mask, ShuffleMode};

// The counts and bucket starts live in `sorted` while the chains are built.
const _: () = assert!(LZ4_HASH_SIZE <= PAGE_SIZE);

impl Ctx {
    /// Builds `sorted` and the slot of every position in `scratch`.
    pub(super) fn build_chains(&self, b: &mut KernelBuilder, p: &PageCtx) {
        self.clear_counts(b, p);
        self.for_chunks(b, p, |b, p, chunk| {
            self.count_chunk(b, p, chunk, false);
        });
        self.bucket_starts(b, p);
        self.for_chunks(b, p, |b, p, chunk| {
            self.count_chunk(b, p, chunk, true);
        });
        // Every slot is known: place each position in its slot (the starts are no longer read).
        let searchable = b.u32(SEARCHABLE);
        for_range(b, self.i, p.lane, searchable, 32, |b, x| {
            let slot = self.own_slot(b, p, x);
            let to = b.add(p.table_base, slot);
            let x16 = b.trunc::<U16, _>(x);
            b.store(self.sorted(), to, x16);
        });
        b.warp_sync(Mask::FULL);
    }

    fn clear_counts(&self, b: &mut KernelBuilder, p: &PageCtx) {
        let entries = b.u32(LZ4_HASH_SIZE as u32);
        for_range(b, self.i, p.lane, entries, 32, |b, i| {
            let at = b.add(p.table_base, i);
            let zero = b.lit::<U16>(0);
            b.store(self.sorted(), at, zero);
        });
        b.warp_sync(Mask::FULL);
    }

    /// Runs `body` on every chunk of 32 positions from 0 (lane `l` holds position `chunk + l`).
    fn for_chunks(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        body: impl Fn(&mut KernelBuilder, &PageCtx, Val<U32>),
    ) {
        let zero = b.u32(0);
        let chunks_end = b.u32(SEARCHABLE.div_ceil(32) * 32);
        for_range(b, self.j, zero, chunks_end, 32, |b, chunk| {
            body(b, p, chunk)
        });
    }

    /// One chunk of the counting sort. `sorted[h]` holds hash `h`'s count of earlier positions
    /// (counting) or its next free slot (`scatter`): lanes with the same hash (`match_any`) take
    /// consecutive values from it in lane order, the last of them moves it past the chunk, and when
    /// scattering each valid lane writes its slot to `scratch`.
    fn count_chunk(&self, b: &mut KernelBuilder, p: &PageCtx, chunk: Val<U32>, scatter: bool) {
        let k = p.page.k;
        let x = b.add(chunk, p.lane);
        let last = b.u32(SEARCHABLE - 1);
        let safe_x = b.min(x, last);
        let word = p.page.word_at(b, safe_x);
        let h = hash(b, word);
        let searchable = b.u32(SEARCHABLE);
        let valid = b.lt(x, searchable);
        // Lanes past the end get distinct keys that no hash can equal.
        let marker = b.u32(1 << 16);
        let off_key = b.add(marker, p.lane);
        let key = b.select(valid, h, off_key);
        let same_hash = b.match_any(key, Mask::FULL);
        let at = b.add(p.table_base, h);
        let base = b.load(self.sorted(), at);
        let base = b.zext::<U32, _>(base);
        if scatter {
            let my_bit = b.shl(k.one, p.lane);
            let below = b.sub(my_bit, k.one);
            let earlier = b.and(same_hash, below);
            let before = b.popcount(earlier);
            let slot = b.add(base, before);
            b.if_(valid, |b| {
                let x64 = b.zext::<U64, _>(x);
                let to = b.add(p.slots_base, x64);
                let s16 = b.trunc::<U16, _>(slot);
                b.store(self.scratch(), to, s16);
            });
        }
        // Every lane of a hash has read its base before the last one moves it.
        b.warp_sync(Mask::FULL);
        let upto = b.shl(k.two, p.lane);
        let upto = b.sub(upto, k.one);
        let not_upto = b.not(upto);
        let later = b.and(same_hash, not_upto);
        let is_last = b.eq(later, k.zero);
        let writes = b.and(valid, is_last);
        b.if_(writes, |b| {
            let in_chunk = b.popcount(same_hash);
            let total = b.add(base, in_chunk);
            let t16 = b.trunc::<U16, _>(total);
            b.store(self.sorted(), at, t16);
        });
        b.warp_sync(Mask::FULL);
    }

    /// Turns the counts in `sorted` into bucket starts (an exclusive prefix sum, 32 buckets per step).
    fn bucket_starts(&self, b: &mut KernelBuilder, p: &PageCtx) {
        let zero = b.u32(0);
        b.assign(self.run, zero);
        let entries = b.u32(LZ4_HASH_SIZE as u32);
        for_range(b, self.j, zero, entries, 32, |b, chunk| {
            let i = b.add(chunk, p.lane);
            let at = b.add(p.table_base, i);
            let count = b.load(self.sorted(), at);
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
            b.store(self.sorted(), at, s16);
            let last = b.u32(31);
            let total = b.shuffle(ShuffleMode::Index, inclusive, last, Mask::FULL);
            let run = b.add(run, total);
            b.assign(self.run, run);
        });
        b.warp_sync(Mask::FULL);
    }

    /// The slot of `x`, a position this lane wrote (`x ≡ lane (mod 32)`, `x < SEARCHABLE`).
    fn own_slot(&self, b: &mut KernelBuilder, p: &PageCtx, x: Val<U32>) -> Val<U32> {
        let x64 = b.zext::<U64, _>(x);
        let at = b.add(p.slots_base, x64);
        let slot = b.load(self.scratch(), at);
        b.zext::<U32, _>(slot)
    }

    /// The slot of position `base + lane` (`base` warp-uniform): each lane loads the one position of
    /// the window it wrote itself, a shuffle hands it to the lane that asked. Lanes whose position is
    /// past the searchable range get some valid slot of the page.
    pub(super) fn slot_window(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        base: Val<U32>,
    ) -> Val<U32> {
        let lanes = p.page.k.thirty_one;
        let rel = b.sub(p.lane, base);
        let rel = b.and(rel, lanes);
        let mine = b.add(base, rel);
        let searchable = b.u32(SEARCHABLE);
        let ok = b.lt(mine, searchable);
        let mine = b.select(ok, mine, p.lane);
        let slot = self.own_slot(b, p, mine);
        let src = b.add(base, p.lane);
        let src = b.and(src, lanes);
        b.shuffle(ShuffleMode::Index, slot, src, Mask::FULL)
    }
}
