//! The LZ4 page-compression kernel in the IR: one warp per 4 KiB page, byte-identical to
//! [`super::encode_page_level`]. See the [module docs](super) for the algorithm; this file is its warp
//! form, [`super::compress_chains`] builds the chains and [`super::compress_search`] searches them.
//!
//! Parameters: `input` (pages as little-endian 32-bit words, 1024 per page, read-only), `output` (one
//! 4096-byte slot per page for its LZ4 block), `meta` (4 words per page: kind, block length, pattern
//! low word, pattern high word), `scratch` (chain levels: 4096 × u16 per page, see
//! [`compress_scratch_bytes`]; the throughput level does not touch it), `pages` (how many pages). Per
//! warp, the chain levels keep the page (4 KiB) and `sorted` (4096 × u16) in shared memory: 12 KiB, so
//! 16 warps fit in an sm_90 SM ([`lz4_compress_kernel_from_input`] reads the page from the input
//! instead: 8 KiB, 24 warps); the throughput level reads the page where it is (the input) and keeps
//! only `buckets` ([`FAST_BUCKETS`] words, 7,040 bytes): 32 warps.
//!
//! Phases, all warp-cooperative: (1) load the page, `vote all` for same-filled pages (kind 2);
//! (2) the chains: every searchable position sorted by hash, stably (a counting sort: `match_any` ranks
//! positions of a chunk, a warp scan turns counts into bucket starts), so `sorted` lists each chain
//! oldest first and `scratch[p]` (global memory) is `p`'s slot in it — chain entry `k` of `p` is
//! `sorted[scratch[p] − 1 − k]`, read by lane `k` without walking; (3) the parse: each lane probes one position (walks its chain
//! until an entry verifies, the bucket ends or the depth is reached), `ballot` + `ffs` picks the first
//! hit; there lanes compare 32 chain entries at a time word by word up to the nice length and a
//! warp-wide maximum picks the longest (then the most recent); the lazy steps repeat that one or two
//! positions ahead; the winner is extended forward (32 bytes per step) past the nice length and
//! backward over pending literals; lane 0 writes tokens and lengths while all lanes copy literals. A
//! block that would not be shorter than the page is abandoned and the page reported raw (kind 1).
//! Every branch that guards a warp collective depends only on ballots, broadcasts and parameters, so
//! with one warp per block the kernel is block-uniform as WebGPU requires.

use super::warp_ops::{broadcast, first_set, for_range, PageConsts, PageWords};
use super::{
    Lz4Level, FAST_BUCKETS, LZ4_HASH_BITS, LZ4_HASH_MULT, LZ4_LAST_LITERALS, LZ4_MF_LIMIT,
    PAGE_SIZE,
};
use warpforge_ir::builder::{
    AnyArray, Bool, KernelBuilder, Local, SharedArr, Val, U16, U32, U64, U8,
};
use warpforge_ir::{Access, Kernel, Mask, VoteMode};

/// Positions that may start a match: `p + 12 <= 4096`.
pub(super) const SEARCHABLE: u32 = (PAGE_SIZE - LZ4_MF_LIMIT + 1) as u32;
/// Matches end at or before this byte.
pub(super) const END_LIMIT: u32 = (PAGE_SIZE - LZ4_LAST_LITERALS) as u32;
pub(super) const PAGE: u32 = PAGE_SIZE as u32;

/// Bytes of the compress kernel's `scratch` buffer for a batch of `pages` pages at `level`: every
/// position's slot in its chain (u16) for the chain levels, one unused group of 16 bytes for the
/// throughput level (a buffer is never empty). Its contents need no initialization: a lane reads only
/// slots it wrote itself.
pub fn compress_scratch_bytes(level: Lz4Level, pages: usize) -> usize {
    match level.uses_chains() {
        true => pages * PAGE_SIZE * 2,
        false => 16,
    }
}

/// Builds the compress kernel at the default level with `warps_per_block` warps (pages) per block.
pub fn lz4_compress_kernel(warps_per_block: u32) -> Kernel {
    lz4_compress_kernel_level(warps_per_block, Lz4Level::DEFAULT)
}

/// Builds the compress kernel at `level` with `warps_per_block` warps (pages) per block. Every level
/// has the same entry point and parameters; the search and the shared arrays differ.
pub fn lz4_compress_kernel_level(warps_per_block: u32, level: Lz4Level) -> Kernel {
    build(warps_per_block, level, PageHome::SharedCopy)
}

/// The compress kernel at `level` reading its page where it is (the `input` buffer, through the
/// read-only data cache on CUDA) instead of a copy in shared memory, as the throughput level always
/// does: the chain levels then keep only `sorted` in shared memory, 8 KiB per warp instead of 12 KiB
/// (24 warps per sm_90 SM instead of 16 in blocks of 4 warps), and every page read is a global load
/// where it was a shared one. Same parameters and the same bytes as [`lz4_compress_kernel_level`];
/// entry point `lz4_compress_pages_from_input`. Which of the two is faster is for a GPU to say
/// (`gpu-check.sh perf` times both; `docs/lz4.md`). At the throughput level, which always reads its
/// input, it is that level's kernel under this name. A launch covers at most 2^20 pages (4 GiB: the
/// page's byte offsets in `input` are 32-bit, as at the throughput level; the batch API's batches
/// are at most 2^19 pages).
pub fn lz4_compress_kernel_from_input(warps_per_block: u32, level: Lz4Level) -> Kernel {
    build(warps_per_block, level, PageHome::Input)
}

/// Where the chain levels read the page from (the throughput level always reads `input`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PageHome {
    /// A copy in shared memory, made when the page is loaded.
    SharedCopy,
    /// The input array itself.
    Input,
}

/// The entry point of [`lz4_compress_kernel_level`] (every level).
pub(crate) const COMPRESS_ENTRY: &str = "lz4_compress_pages";
/// The entry point of [`lz4_compress_kernel_from_input`].
pub(crate) const COMPRESS_FROM_INPUT_ENTRY: &str = "lz4_compress_pages_from_input";

fn build(warps_per_block: u32, level: Lz4Level, home: PageHome) -> Kernel {
    let name = match home {
        PageHome::SharedCopy => COMPRESS_ENTRY,
        PageHome::Input => COMPRESS_FROM_INPUT_ENTRY,
    };
    let mut b = KernelBuilder::new(name, 32 * warps_per_block);
    let io = PageIo {
        input: AnyArray::of(b.buffer::<U32>("input", Access::ReadOnly)),
        output: AnyArray::of(b.buffer::<U8>("output", Access::ReadWrite)),
        meta: AnyArray::of(b.buffer::<U32>("meta", Access::ReadWrite)),
        scratch: Some(AnyArray::of(b.buffer::<U16>("scratch", Access::ReadWrite))),
    };
    let pages = b.scalar_param::<U32>("pages");
    let k = Ctx::declare(&mut b, io, level, home);
    let pages = b.param(pages);
    let g = k.page_index(&mut b, warps_per_block);
    let in_range = b.lt(g, pages);
    b.if_(in_range, |b| k.compress_page(b, Place::Batch(g)));
    b.finish().expect("the LZ4 compress kernel verifies")
}

/// Where a page is read from and written to in the [`PageIo`] arrays.
#[derive(Clone, Copy)]
pub(super) enum Place {
    /// The batch kernel's page `g`: words `1024 g..`, bytes (and scratch slots) `4096 g..`, meta words
    /// `4 g..` (each index built where it is used, as the kernel always has).
    Batch(Val<U32>),
    /// A device function's page: its first word, first output byte, first scratch slot and first meta
    /// word.
    At {
        first_word: Val<U32>,
        out_base: Val<U64>,
        slots_base: Val<U64>,
        meta_base: Val<U32>,
    },
}

/// The arrays a page is compressed from and into: kernel parameters for the batch kernel, any buffer
/// or shared array for the device function ([`super::device`]).
#[derive(Clone, Copy)]
pub(super) struct PageIo {
    /// The page as 1024 little-endian words.
    pub(super) input: AnyArray<U32>,
    /// Room for the block: 4096 bytes.
    pub(super) output: AnyArray<U8>,
    /// Four words: kind, block length, pattern low and high word.
    pub(super) meta: AnyArray<U32>,
    /// Chain levels: 4096 u16 slots per page (the throughput level has none).
    pub(super) scratch: Option<AnyArray<U16>>,
}

/// Handles to everything the kernel declares.
#[derive(Clone, Copy)]
pub(super) struct Ctx {
    pub(super) input: AnyArray<U32>,
    pub(super) output: AnyArray<U8>,
    pub(super) meta: AnyArray<U32>,
    /// Chain levels: every position's slot in `sorted`, 4096 per page (global memory: 8 KiB less shared
    /// memory per page; each lane reads back only the slots it wrote).
    scratch: Option<AnyArray<U16>>,
    /// The chain levels' shared copy of the page; `None` where the page is read from `input` (the
    /// throughput level, [`lz4_compress_kernel_from_input`], a device function's shared page).
    pub(super) page_words: Option<SharedArr<U32>>,
    /// The throughput level: one word per bucket, its newest position in the low half, the older one
    /// in the high half.
    pub(super) buckets: Option<SharedArr<U32>>,
    /// Chain levels only (the throughput level has no chains): the hash counts and bucket starts while
    /// the chains are built, then every chain, oldest entry first.
    pub(super) sorted: Option<SharedArr<U16>>,
    pub(super) level: Lz4Level,
    pub(super) i: Local<U32>,
    pub(super) j: Local<U32>,
    pub(super) diff: Local<U32>,
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
    pub(super) run: Local<U32>,
    pub(super) start: Local<U32>,
    pub(super) step: Local<U32>,
    pub(super) found: Local<Bool>,
    pub(super) alive: Local<Bool>,
    pub(super) len: Local<U32>,
    pub(super) key: Local<U32>,
    pub(super) match_len: Local<U32>,
    /// The compare loop's last aligned word (the first of the next word's two).
    pub(super) carry: Local<U32>,
    /// [`Ctx::longest`]'s chosen entry.
    pub(super) chosen: Local<U32>,
    /// The throughput level's step state ([`super::compress_greedy`]).
    greedy: Option<GreedyLocals>,
    /// The chain levels' last probed window: its first position, its lanes' verdicts (a ballot) and
    /// slots (lane `l`: position `base + l`'s), which do not depend on the parse, so a sequence that
    /// starts inside it needs no new probe, nor its slot read again.
    probed: Option<(Local<U32>, Local<U32>, Local<U32>)>,
}

/// The throughput level's step state, all warp-uniform ([`super::compress_greedy`]).
#[derive(Clone, Copy)]
pub(super) struct GreedyLocals {
    /// 1 when the last step ended with a match whose position two bytes before its end the next step
    /// enters in the table.
    pub(super) pending: Local<U32>,
    /// The step's lanes entered in the table so far, one bit each.
    pub(super) entered: Local<U32>,
    /// The step's first lane to try.
    pub(super) from: Local<U32>,
}

/// Per-page values every phase uses.
#[derive(Clone, Copy)]
pub(super) struct PageCtx {
    pub(super) lane: Val<U32>,
    /// `lane − 1` (wrapping) and `lane == 0`, built once.
    pub(super) lane_less_one: Val<U32>,
    pub(super) lane_zero: Val<Bool>,
    pub(super) page: PageWords,
    /// This warp's first element of `sorted` (chain levels) or `buckets` (throughput level).
    pub(super) table_base: Val<U32>,
    /// This page's first element of `scratch`.
    pub(super) slots_base: Val<U64>,
    pub(super) out_base: Val<U64>,
    pub(super) place: Place,
}

impl Ctx {
    /// Declares the shared arrays (sized for every warp of the block) and locals of one page's
    /// compression from and into `io`.
    pub(super) fn declare(
        b: &mut KernelBuilder,
        io: PageIo,
        level: Lz4Level,
        home: PageHome,
    ) -> Ctx {
        assert!(
            io.scratch.is_some() || !level.uses_chains(),
            "the chain levels need a scratch array"
        );
        let warps = b.threads_per_block() / 32;
        Ctx {
            input: io.input,
            output: io.output,
            meta: io.meta,
            scratch: io.scratch,
            page_words: (level.uses_chains() && home == PageHome::SharedCopy)
                .then(|| b.shared("page", warps * 1024, 16)),
            buckets: (!level.uses_chains())
                .then(|| b.shared("buckets", warps * FAST_BUCKETS as u32, 16)),
            sorted: level
                .uses_chains()
                .then(|| b.shared("sorted", warps * PAGE, 4)),
            level,
            i: b.local("i"),
            j: b.local("j"),
            diff: b.local("diff"),
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
            run: b.local("run"),
            start: b.local("start"),
            step: b.local("step"),
            found: b.local("found"),
            alive: b.local("alive"),
            len: b.local("len"),
            key: b.local("key"),
            match_len: b.local("match_len"),
            carry: b.local("carry"),
            chosen: b.local("chosen"),
            probed: level.uses_chains().then(|| {
                let base = b.local("probed_base");
                let hits = b.local("probed_hits");
                (base, hits, b.local("probed_slots"))
            }),
            greedy: (!level.uses_chains()).then(|| GreedyLocals {
                pending: b.local("pending"),
                entered: b.local("entered"),
                from: b.local("from"),
            }),
        }
    }

    /// The throughput level's `buckets` array.
    pub(super) fn buckets(&self) -> SharedArr<U32> {
        self.buckets.expect("only the throughput level has buckets")
    }

    /// The throughput level's step state.
    pub(super) fn greedy(&self) -> GreedyLocals {
        self.greedy
            .expect("only the throughput level steps through a hash table")
    }

    /// The chain levels' `scratch` array.
    pub(super) fn scratch(&self) -> AnyArray<U16> {
        self.scratch.expect("chain levels have a scratch array")
    }

    /// The chain levels' `sorted` array.
    pub(super) fn sorted(&self) -> SharedArr<U16> {
        self.sorted.expect("only chain levels search sorted chains")
    }

    fn page_index(&self, b: &mut KernelBuilder, warps: u32) -> Val<U32> {
        let block = b.block_index();
        let w = b.u32(warps);
        let first = b.mul(block, w);
        let warp = b.warp_index();
        b.add(first, warp)
    }

    /// Compresses the page at `place`: reads its words from `input`, writes its block to `output`
    /// and its four meta words to `meta`. The whole warp calls it, with warp-uniform arguments.
    pub(super) fn compress_page(&self, b: &mut KernelBuilder, place: Place) {
        if let Place::At { .. } = place {
            // A device function may run in a loop: the previous page's last reads of the shared
            // arrays (the chain levels' page copy, the table) come before this page overwrites
            // them. (The batch kernel compresses one page per warp: nothing before, and its PTX
            // stays as it was.)
            b.warp_sync(Mask::FULL);
        }
        let k = PageConsts::new(b);
        let lane = b.lane_id();
        let warp = b.warp_index();
        let words = b.u32(1024);
        let (words, base) = match self.page_words {
            Some(shared) => (AnyArray::of(shared), b.mul(warp, words)),
            None => (self.input, self.first_word(b, place, words)),
        };
        let byte_base = b.shl(base, k.two);
        let page = PageWords {
            words,
            base,
            byte_base,
            k,
        };
        let entries = match self.level.uses_chains() {
            true => PAGE,
            false => FAST_BUCKETS as u32,
        };
        let entries = b.u32(entries);
        let table_base = b.mul(warp, entries);
        let (out_base, slots_base) = match place {
            Place::Batch(g) => {
                let page_bytes = b.u32(PAGE);
                let out_base = b.mul_wide(g, page_bytes);
                (out_base, out_base)
            }
            Place::At {
                out_base,
                slots_base,
                ..
            } => (out_base, slots_base),
        };
        let p = PageCtx {
            lane,
            lane_less_one: b.sub(lane, k.one),
            lane_zero: b.eq(lane, k.zero),
            page,
            table_base,
            slots_base,
            out_base,
            place,
        };
        self.load_page(b, &p);
        let diff = b.read(self.diff);
        let lane_same = b.eq(diff, p.page.k.zero);
        let all_same = b.vote(VoteMode::All, lane_same, Mask::FULL);
        b.if_else(
            all_same,
            |b| self.write_same_filled(b, &p),
            |b| match self.level.uses_chains() {
                true => {
                    self.build_chains(b, &p);
                    self.parse(b, &p);
                }
                false => self.parse_greedy(b, &p),
            },
        );
        if let Place::At { .. } = place {
            // Every lane's last read of the caller's page (read in place) comes before the call
            // returns, so the caller may write its next page there at once.
            b.warp_sync(Mask::FULL);
        }
    }

    /// The page's first word in `input` (`words`: the constant 1024).
    fn first_word(&self, b: &mut KernelBuilder, place: Place, words: Val<U32>) -> Val<U32> {
        match place {
            Place::Batch(g) => b.mul(g, words),
            Place::At { first_word, .. } => first_word,
        }
    }

    /// Reads the page, 16 bytes per lane and load, into shared memory (the chain levels), and leaves
    /// in `diff` the OR of this lane's words XOR the page's first 8 bytes (zero when they all repeat
    /// them).
    fn load_page(&self, b: &mut KernelBuilder, p: &PageCtx) {
        let k = p.page.k;
        let words = b.u32(1024);
        let first_word = self.first_word(b, p.place, words);
        // Same-filled: word i must equal word (i & 1) of the page (4-word groups start at even words).
        let w0 = b.load(self.input, first_word);
        let second = b.add(first_word, k.one);
        let w1 = b.load(self.input, second);
        b.assign(self.diff, k.zero);
        let start = b.shl(p.lane, k.two);
        for_range(b, self.i, start, words, 128, |b, i| {
            let src = b.add(first_word, i);
            let group = b.load_wide::<4, _>(self.input, src);
            if let Some(shared) = self.page_words {
                let dst = b.add(p.page.base, i);
                b.store_wide(shared, dst, group);
            }
            let [a, b1, c, d] = group;
            let da = b.xor(a, w0);
            let db = b.xor(b1, w1);
            let dc = b.xor(c, w0);
            let dd = b.xor(d, w1);
            let diff = b.or(da, db);
            let diff = b.or(diff, dc);
            let diff = b.or(diff, dd);
            // An OR across the loop, not a flag cleared under a branch: CUDA 13.0's ptxas
            // (sm_90, also the 580 driver's JIT) compiled the flag form of this kernel with the
            // `vote.all` reading the flag's negation (docs/gpu.md, "A ptxas miscompile").
            let acc = b.read(self.diff);
            let acc = b.or(acc, diff);
            b.assign(self.diff, acc);
        });
        b.warp_sync(Mask::FULL);
    }

    fn write_meta(&self, b: &mut KernelBuilder, p: &PageCtx, values: [Val<U32>; 4]) {
        let zero = b.u32(0);
        let first = b.eq(p.lane, zero);
        b.if_(first, |b| {
            let base = match p.place {
                Place::Batch(g) => {
                    let four = b.u32(4);
                    b.mul(g, four)
                }
                Place::At { meta_base, .. } => meta_base,
            };
            for (k, v) in values.into_iter().enumerate() {
                let k = b.u32(k as u32);
                let at = b.add(base, k);
                b.store(self.meta, at, v);
            }
        });
    }

    fn write_same_filled(&self, b: &mut KernelBuilder, p: &PageCtx) {
        let w0 = b.load(p.page.words, p.page.base);
        let one = b.u32(1);
        let second = b.add(p.page.base, one);
        let w1 = b.load(p.page.words, second);
        let kind = b.u32(2);
        let len = b.u32(8);
        self.write_meta(b, p, [kind, len, w0, w1]);
    }

    /// The chain levels' parse. Whether a position has a verified chain entry does not depend on the
    /// parse, so a probe's verdicts for its 32 positions stay good: the first hit at or after the
    /// parse position inside the last probed window starts the next match without a new probe, and
    /// a window is probed only when the parse has passed the last one's hits.
    fn parse(&self, b: &mut KernelBuilder, p: &PageCtx) {
        let k = p.page.k;
        let (probed_base, probed_hits, probed_slots) =
            self.probed.expect("chain levels keep a probed window");
        let searchable = b.u32(SEARCHABLE);
        let last = b.u32(SEARCHABLE - 1);
        let ones = b.u32(u32::MAX);
        self.start_parse(b);
        // No window yet: its base is past the page, so no position is inside it.
        let past = b.u32(PAGE);
        b.assign(probed_base, past);
        b.assign(probed_hits, k.zero);
        b.loop_(|b| {
            let pos = b.read(self.pos);
            let done = b.ge(pos, searchable);
            b.if_(done, |b| b.break_());
            let base = b.read(probed_base);
            let hits = b.read(probed_hits);
            let rel = b.sub(pos, base);
            let inside = b.lt(rel, k.thirty_two);
            let from_rel = b.shl(ones, rel);
            let ahead = b.and(hits, from_rel);
            let ahead = b.select(inside, ahead, k.zero);
            let (f, known) = first_set(b, ahead, k.zero);
            let unknown = b.not(known);
            b.if_(unknown, |b| {
                // Probe the next window: from the parse position, or after the last window when the
                // parse is still inside it (its later positions have no hit).
                let after = b.add(base, k.thirty_two);
                let start = b.select(inside, after, pos);
                b.assign(self.pos, start);
                let x = b.add(start, p.lane);
                let valid = b.lt(x, searchable);
                let safe_x = b.min(x, last);
                let slot = self.slot_window(b, p, start);
                let hit = self.probe(b, p, safe_x, slot, valid);
                let mask = b.ballot(hit, Mask::FULL);
                b.assign(probed_base, start);
                b.assign(probed_hits, mask);
                b.assign(probed_slots, slot);
                let none = b.eq(mask, k.zero);
                b.if_(none, |b| {
                    let next = b.add(start, k.thirty_two);
                    b.assign(self.pos, next);
                });
                b.continue_();
            });
            let x = b.add(base, f);
            // `x`'s slot, read by the probe: lane `f` of the window's.
            let slots = b.read(probed_slots);
            let slot = broadcast(b, slots, f);
            self.match_at(b, p, x, slot);
        });
        self.finish_parse(b, p);
    }

    /// Zeroes the parse state: position, anchor, output length, give-up flag.
    pub(super) fn start_parse(&self, b: &mut KernelBuilder) {
        for l in [self.pos, self.anchor, self.out, self.raw] {
            let zero = b.u32(0);
            b.assign(l, zero);
        }
    }

    /// After the parse: the last literals (unless it gave up) and the page's meta words.
    pub(super) fn finish_parse(&self, b: &mut KernelBuilder, p: &PageCtx) {
        let raw = b.read(self.raw);
        let zero = b.u32(0);
        let fits = b.eq(raw, zero);
        b.if_(fits, |b| {
            let anchor = b.read(self.anchor);
            let page = b.u32(PAGE);
            let lit = b.sub(page, anchor);
            self.emit_sequence(b, p, anchor, lit, None, None);
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
}

/// [`super::lz4_hash`] in the IR.
pub(super) fn hash(b: &mut KernelBuilder, word: Val<U32>) -> Val<U32> {
    let mult = b.u32(LZ4_HASH_MULT);
    let product = b.mul(word, mult);
    let shift = b.u32(32 - LZ4_HASH_BITS);
    b.shr(product, shift)
}
