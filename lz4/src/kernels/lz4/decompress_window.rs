//! The decompress kernel's fast path: a window of sequences parsed by the whole warp at once, then
//! decoded one after another without re-reading the block (see `decompress_kernel.rs` for the whole
//! kernel, `decompress_seq.rs` for the one-sequence path it falls back to).
//!
//! An LZ4 block's parse is serial: a sequence starts where the previous one's lengths say. But each
//! lane can parse the sequence that *would* start at its own byte of the block — lane `l` the one at
//! `s + l` — and record where the next one would start. The real sequences are then a chain through
//! those 32 candidates, starting at lane 0: the warp walks it with shuffles (each step one shuffle per
//! field, no byte of the block read again), decoding each sequence as it goes, until the chain leaves
//! the window or reaches a sequence the fast path does not take.
//!
//! The fast path takes a sequence only when the one-sequence path ([`Dec::sequence`]) would decode it
//! without an error and copy the same bytes: literal length below 15, a match length with at most one
//! extension byte (below 255), more of the block after it, an offset within the page, the page not
//! overflowing and not reaching into the unread block. Any other sequence — and every error — is left
//! to the one-sequence path, which makes the CPU decoder's checks in its order, so a malformed block
//! stops with the same status and position as before.

use super::decompress_layout::Dec;
use super::decompress_seq::{Consts, Matched, Seq};
use warpforge_ir::builder::{Bool, KernelBuilder, Val, U32};
use warpforge_ir::{Mask, ShuffleMode};

/// Lane `l`'s candidate: the sequence that would start at block byte `s + l`.
#[derive(Clone, Copy)]
struct Window {
    /// Where its literals would start (`s + l + 1`); the sequence at lane `r` has its literal byte
    /// `j` at lane `j`'s `lit_from + r`.
    lit_from: Val<U32>,
    lit: Val<U32>,
    /// Match length (4 added) and offset.
    ml: Val<U32>,
    offset: Val<U32>,
    /// The most the page may hold after this sequence: the page size, or less where the page would
    /// reach into the unread block ([`IN_PLACE_GAP`](super::IN_PLACE_GAP)); 0 for a candidate the
    /// fast path does not take, so that the walk stops there.
    limit: Val<U32>,
    /// Where the next sequence would start, relative to `s` (the lane that holds it, if below 32).
    next: Val<U32>,
}

/// Sequences decoded per iteration of the fast path's loop: the loop's own statements (reading and
/// setting the parse position and page length) are paid once per this many sequences.
const UNROLL: usize = 4;

impl Dec {
    /// Every lane parses the sequence that would start at its byte `s + lane` of the block. Reads
    /// are clamped to the warp's staged bytes, which staging wrote and the page never reaches past
    /// `s`; a candidate whose bytes run past the block is not taken (`limit` 0).
    fn window(&self, b: &mut KernelBuilder, c: &Consts, p: &Seq, s: Val<U32>) -> Window {
        let at = b.add(s, p.lane);
        let lit_from = b.add(at, c.one);
        let at = b.min(at, p.end_less_one);
        let token = b.load_byte(self.buf, at);
        let lit = b.shr(token, c.four);
        let nibble = b.and(token, c.fifteen);
        let s2 = b.add(lit_from, lit);
        let lo_at = b.min(s2, p.end_less_two);
        let lo = b.load_byte(self.buf, lo_at);
        let hi_at = b.add(lo_at, c.one);
        let hi = b.load_byte(self.buf, hi_at);
        let hi = b.shl(hi, c.eight);
        let offset = b.or(lo, hi);
        let s3 = b.add(s2, c.two);
        let ext_at = b.min(s3, p.end_less_one);
        let ext = b.load_byte(self.buf, ext_at);
        let extended = b.eq(nibble, c.fifteen);
        let ml = b.add(nibble, c.four);
        let long_ml = b.add(ext, c.nineteen);
        let ml = b.select(extended, long_ml, ml);
        let s4 = b.add(s3, c.one);
        let next = b.select(extended, s4, s3);
        // Taken: literal length without extension bytes, at most one match-length extension byte
        // (a match length of 15 + 255 + 4 has more), a nonzero offset, and the next sequence inside
        // the block (so this one is not the last and its lengths end before the block does).
        let short_lit = b.ne(lit, c.fifteen);
        let inside = b.lt(next, p.send);
        let more_bytes = b.u32(15 + 255 + 4);
        let one_byte = b.ne(ml, more_bytes);
        let offset_ok = b.ne(offset, c.zero);
        let taken = b.and(short_lit, inside);
        let taken = b.and(taken, one_byte);
        let taken = b.and(taken, offset_ok);
        let room = b.sub(next, p.obase);
        let room = b.sub(room, c.gap);
        let limit = b.min(room, c.page);
        let limit = b.select(taken, limit, c.zero);
        let next = b.sub(next, s);
        Window {
            lit_from,
            lit,
            ml,
            offset,
            limit,
            next,
        }
    }

    /// Decodes the sequences of the window at `s`, [`UNROLL`] per loop iteration, until the chain
    /// leaves the window or reaches one the fast path does not take; advances `s` and `d` past those
    /// decoded.
    /// Returns whether it stopped at a sequence it did not take (which [`Dec::sequence`] then decodes
    /// or rejects) rather than at the window's end.
    pub(super) fn fast_sequences(&self, b: &mut KernelBuilder, c: &Consts, p: &Seq) -> Val<Bool> {
        let s = b.read(self.s);
        let w = self.window(b, c, p, s);
        b.assign(self.rel, c.zero);
        b.loop_(|b| {
            let mut r = b.read(self.rel);
            let mut d = b.read(self.d);
            for k in 0..UNROLL {
                // On a stop `rel` and `d` must hold the stopping sequence's start: they do for the
                // first sequence of an iteration, the others set them.
                let (at, page) = (r, d);
                (r, d) = self.fast_sequence(b, c, p, &w, (r, d), |b| {
                    if k > 0 {
                        b.assign(self.rel, at);
                        b.assign(self.d, page);
                    }
                });
                let past = b.ge(r, c.thirty_two);
                if k + 1 < UNROLL {
                    b.if_(past, |b| {
                        b.assign(self.rel, r);
                        b.assign(self.d, d);
                        b.break_();
                    });
                } else {
                    b.assign(self.rel, r);
                    b.assign(self.d, d);
                    b.if_(past, |b| b.break_());
                }
            }
        });
        let r = b.read(self.rel);
        let s = b.add(s, r);
        b.assign(self.s, s);
        b.lt(r, c.thirty_two)
    }

    /// The sequence at lane `r` of the window, the page at `d` (`(r, d)`): leaves the loop (after
    /// `on_stop`) if the fast path does not take it, else copies it. Returns where the next sequence
    /// starts (relative to the window) and the page's new length.
    fn fast_sequence(
        &self,
        b: &mut KernelBuilder,
        c: &Consts,
        p: &Seq,
        w: &Window,
        (r, d): (Val<U32>, Val<U32>),
        on_stop: impl FnOnce(&mut KernelBuilder),
    ) -> (Val<U32>, Val<U32>) {
        let field =
            |b: &mut KernelBuilder, v: Val<U32>| b.shuffle(ShuffleMode::Index, v, r, Mask::FULL);
        let lit = field(b, w.lit);
        let ml = field(b, w.ml);
        let offset = field(b, w.offset);
        let limit = field(b, w.limit);
        let next = field(b, w.next);
        let d2 = b.add(d, lit);
        let d3 = b.add(d2, ml);
        let over = b.gt(d3, limit);
        // (An offset of 0 is not taken: `limit` is 0.)
        let bad_offset = b.gt(offset, d2);
        let stop = b.or(over, bad_offset);
        b.if_(stop, |b| {
            on_stop(b);
            b.break_();
        });
        let m = Matched { offset, ml };
        let to = self.literals_then_match(b, c, p, (lit, d, d2), &m, |b| b.add(w.lit_from, r));
        let long = b.gt(ml, c.thirty_two);
        b.if_(long, |b| self.match_rest(b, c, p, to, &m));
        (next, d3)
    }
}
