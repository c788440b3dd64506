//! The reference of the throughput level ([`Lz4Level::THROUGHPUT`](super::Lz4Level::THROUGHPUT)): a
//! greedy parse against one two-way hash table.
//!
//! The table has [`FAST_BUCKETS`] buckets ([`fast_hash`] of the 4 bytes at a position) of two
//! entries: the two most recent positions written with that hash, newest first. From
//! the current position `p`, each position in turn is looked up (the first of its bucket's entries,
//! newest first, that holds the same 4 bytes) and then written to its bucket. The first position with
//! such an entry starts a match; it is extended forward as far as bytes agree (never past
//! `n − LZ4_LAST_LITERALS`) and backward over pending literals, and the sequence is written. As in
//! liblz4's fast parse, the position two bytes before the match's end is then written to the table, and
//! the parse resumes after the match; no other position inside a match is tried or written.
//!
//! The table uses the memory of a one-way table of `2 × FAST_BUCKETS` entries: on the development
//! corpus the two ways make the archive 0.07% smaller than one way with one more hash bit, enough to be
//! no larger than liblz4's default (`docs/lz4.md`). 1,760 buckets (not a power of two: the hash's 16
//! bits scaled) are as many as fit in 7,040 bytes, the shared memory per warp that lets 32 warps share
//! an sm_90 SM; on the development corpus they cost 0.01% of ratio against 2,048 (`docs/lz4.md`).
//!
//! The warp kernel computes the same thing 32 positions at a time: lane `l` tries `p + l`; its
//! candidates are the latest two earlier lanes with the same hash (`match_any`) among those the
//! sequential parse has written by then, then the bucket; the first lane with a verified candidate
//! starts the match, and the positions written (the lanes up to it, the one two before the match's
//! end, the ones tried after it while the step lasts) write the table, the last lane of each hash
//! winning — exactly the positions, and the order, of the sequential parse
//! ([`super::compress_greedy`]).

use super::sequences::{agreeing_before, push_sequence, read32, searchable, NO_LINK};
use super::{LZ4_HASH_MULT, LZ4_LAST_LITERALS, LZ4_MIN_MATCH};

/// Bits of the throughput level's multiplicative hash, before it is scaled to [`FAST_BUCKETS`].
pub const FAST_HASH_BITS: u32 = 16;
/// Buckets of the throughput level's table (two 16-bit entries each: 7,040 bytes).
pub const FAST_BUCKETS: usize = 1760;

/// The throughput level's bucket of a little-endian 4-byte word: the top [`FAST_HASH_BITS`] bits of
/// the product with [`LZ4_HASH_MULT`], scaled to [`FAST_BUCKETS`] (`h · buckets / 2^bits`).
pub const fn fast_hash(word: u32) -> u32 {
    let h = word.wrapping_mul(LZ4_HASH_MULT) >> (32 - FAST_HASH_BITS);
    (h * FAST_BUCKETS as u32) >> FAST_HASH_BITS
}

const _: () = assert!(
    (FAST_BUCKETS as u64) << FAST_HASH_BITS <= 1 << 32,
    "the scaling fits u32"
);
const _: () = assert!(
    FAST_BUCKETS % 4 == 0,
    "the kernel clears the table four words at a time"
);

/// The block of `input` (at most 64 KiB) at the throughput level.
pub(super) fn compress_greedy(input: &[u8]) -> Vec<u8> {
    let n = input.len();
    let searchable = searchable(n);
    let end_limit = n.saturating_sub(LZ4_LAST_LITERALS);
    let mut table = vec![[NO_LINK; 2]; FAST_BUCKETS];
    // Writes position `at` to its bucket, newest first; returns the bucket as it was.
    let mut write = |at: usize| -> [u16; 2] {
        let bucket = &mut table[fast_hash(read32(input, at)) as usize];
        let old = *bucket;
        *bucket = [at as u16, old[0]];
        old
    };
    let mut out = Vec::with_capacity(super::lz4_compress_bound(n));
    let (mut anchor, mut p) = (0usize, 0usize);
    while p < searchable {
        let word = read32(input, p);
        let entries = write(p);
        let verified = entries
            .into_iter()
            .find(|&e| e != NO_LINK && read32(input, usize::from(e)) == word);
        let Some(q) = verified.map(usize::from) else {
            p += 1;
            continue;
        };
        let mut len = LZ4_MIN_MATCH;
        while p + len < end_limit && input[q + len] == input[p + len] {
            len += 1;
        }
        let back = agreeing_before(input, p, q, anchor);
        let (start, from, len) = (p - back, q - back, len + back);
        push_sequence(&mut out, &input[anchor..start], Some((start - from, len)));
        p = start + len;
        anchor = p;
        if p - 2 < searchable {
            write(p - 2);
        }
    }
    push_sequence(&mut out, &input[anchor..], None);
    out
}
