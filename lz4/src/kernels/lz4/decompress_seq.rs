//! The decompress kernel's sequence loop and the one-sequence path, with the copies both paths share
//! (see `decompress_kernel.rs` for the whole kernel).
//!
//! Each iteration of the loop decodes a window of sequences in the fast path (`decompress_window.rs`),
//! then, if the window stopped at a sequence it does not take, that sequence alone
//! ([`Dec::sequence`]). The one-sequence path handles every sequence: short ones (literals and match
//! of at most 32 bytes each, a valid offset, more block after it) through one test and a branch-free
//! copy; everything else (long copies, every error, the last sequence) through the slow branches,
//! which make the same checks in the same order as [`super::lz4_decompress_block`] and stop with the
//! same status — with one difference kept from the kernel before this one: a length that grows past
//! a page while it is read stops with OVERFLOW at once, where the CPU decoder reads on and reports
//! literals past the block's end (both reject the block).

use super::decompress_layout::{decode_status, Dec};
use super::warp_ops::for_step;
use super::PAGE_SIZE;
use warpforge_ir::builder::{KernelBuilder, Val, U32};
use warpforge_ir::{Mask, ShuffleMode};

/// Constants the kernel uses everywhere, defined once at its top (the simulator and the emitters
/// would otherwise count and emit them again in every loop iteration).
pub(super) struct Consts {
    pub zero: Val<U32>,
    pub one: Val<U32>,
    pub two: Val<U32>,
    pub three: Val<U32>,
    pub four: Val<U32>,
    pub eight: Val<U32>,
    pub fifteen: Val<U32>,
    pub sixteen: Val<U32>,
    pub nineteen: Val<U32>,
    pub thirty_one: Val<U32>,
    pub thirty_two: Val<U32>,
    pub c128: Val<U32>,
    pub c255: Val<U32>,
    pub page: Val<U32>,
    pub c65535: Val<U32>,
    /// [`IN_PLACE_GAP`](super::IN_PLACE_GAP): a sequence may write the page up to
    /// `s − obase − gap`, `s` the next unread block byte.
    pub gap: Val<U32>,
}

impl Consts {
    pub fn new(b: &mut KernelBuilder) -> Consts {
        Consts {
            zero: b.u32(0),
            one: b.u32(1),
            two: b.u32(2),
            three: b.u32(3),
            four: b.u32(4),
            eight: b.u32(8),
            fifteen: b.u32(15),
            sixteen: b.u32(16),
            nineteen: b.u32(19),
            thirty_one: b.u32(31),
            thirty_two: b.u32(32),
            c128: b.u32(128),
            c255: b.u32(255),
            page: b.u32(PAGE_SIZE as u32),
            c65535: b.u32(0xffff),
            gap: b.u32(super::IN_PLACE_GAP),
        }
    }
}

/// Per-page values of the parse.
#[derive(Clone, Copy)]
pub(super) struct Seq {
    pub lane: Val<U32>,
    /// The warp's page in `decoded`, and the lane's byte of it.
    pub obase: Val<U32>,
    pub lane_out: Val<U32>,
    /// Block byte 0 in `decoded`, and one past the block's last byte.
    pub ibase: Val<U32>,
    pub send: Val<U32>,
    /// The warp's last and second-to-last byte in `decoded` (the staged groups' end, less 1 and 2):
    /// the window parse clamps its reads there ([`Dec::window`]).
    pub end_less_one: Val<U32>,
    pub end_less_two: Val<U32>,
    /// Lane `l` holds `⌈65536 / l⌉` (lane 0 that of 1; see [`Dec::match_source`], which reads lanes
    /// 1–31).
    pub recips: Val<U32>,
}

/// [`Seq::recips`] for the calling lane: one division per lane and page, none per sequence.
pub(super) fn lane_reciprocal(b: &mut KernelBuilder, c: &Consts, lane: Val<U32>) -> Val<U32> {
    let k = b.max(lane, c.one);
    let r = b.add(k, c.c65535);
    b.div(r, k)
}

/// A sequence's match: its offset and its length.
#[derive(Clone, Copy)]
pub(super) struct Matched {
    pub offset: Val<U32>,
    pub ml: Val<U32>,
}

/// One sequence's parsed fields (`s`: just after the literal length; `s2`: the offset's first byte).
#[derive(Clone, Copy)]
struct Fields {
    s: Val<U32>,
    d: Val<U32>,
    lit: Val<U32>,
    s2: Val<U32>,
    d2: Val<U32>,
}

impl Dec {
    /// Byte `at` of the staged block. Every lane reads the same byte, so the parse is uniform; the
    /// value is broadcast from lane 0 so that the uniformity analysis (which treats shared loads as
    /// divergent) proves it too, as WebGPU requires of the branches around `warp_sync`.
    fn byte(&self, b: &mut KernelBuilder, c: &Consts, at: Val<U32>) -> Val<U32> {
        let byte = b.load_byte(self.buf, at);
        b.shuffle(ShuffleMode::Index, byte, c.zero, Mask::FULL)
    }

    /// The little-endian 16-bit offset at `at` (broadcast like [`Dec::byte`]).
    fn offset_at(&self, b: &mut KernelBuilder, c: &Consts, at: Val<U32>) -> Val<U32> {
        let lo = b.load_byte(self.buf, at);
        let next = b.add(at, c.one);
        let hi = b.load_byte(self.buf, next);
        let hi = b.shl(hi, c.eight);
        let offset = b.or(lo, hi);
        b.shuffle(ShuffleMode::Index, offset, c.zero, Mask::FULL)
    }

    /// Stops decoding with `code`, the parse at `at`.
    fn fail_at(&self, b: &mut KernelBuilder, code: u32, at: Val<U32>) {
        let code = b.u32(code);
        b.assign(self.code, code);
        b.assign(self.s, at);
        b.break_();
    }

    fn break_if_failed(&self, b: &mut KernelBuilder, c: &Consts) {
        let code = b.read(self.code);
        let failed = b.ne(code, c.zero);
        b.if_(failed, |b| b.break_());
    }

    /// Adds a length continuation to `len` (which holds 15), advancing `s`; on a block that ends
    /// first sets `code` (TRUNCATED) and leaves `s` at the missing byte.
    fn read_length(&self, b: &mut KernelBuilder, c: &Consts, p: &Seq) {
        b.loop_(|b| {
            let s = b.read(self.s);
            let past = b.ge(s, p.send);
            b.if_(past, |b| {
                let code = b.u32(decode_status::TRUNCATED);
                b.assign(self.code, code);
                b.break_();
            });
            let byte = self.byte(b, c, s);
            let next = b.add(s, c.one);
            b.assign(self.s, next);
            let len = b.read(self.len);
            let sum = b.add(len, byte);
            b.assign(self.len, sum);
            let last = b.ne(byte, c.c255);
            b.if_(last, |b| b.break_());
            // A page never needs a length above the page size: stop runaway inputs early.
            let absurd = b.gt(sum, c.page);
            b.if_(absurd, |b| {
                let code = b.u32(decode_status::OVERFLOW);
                b.assign(self.code, code);
                b.break_();
            });
        });
    }

    /// Decodes the block's sequences: a window of them at a time in the fast path
    /// ([`Dec::fast_sequences`]), and any sequence it does not take — a long length, the last
    /// sequence, any error — one at a time ([`Dec::sequence`]).
    pub(super) fn sequences(&self, b: &mut KernelBuilder, c: &Consts, p: &Seq) {
        b.loop_(|b| {
            if self.window {
                let stopped = self.fast_sequences(b, c, p);
                b.if_(stopped, |b| self.sequence(b, c, p));
            } else {
                self.sequence(b, c, p);
            }
        });
    }

    /// One sequence at `s`, with every check of the CPU decoder; leaves the enclosing loop (`break`)
    /// at the block's end and on any error.
    fn sequence(&self, b: &mut KernelBuilder, c: &Consts, p: &Seq) {
        let s = b.read(self.s);
        let d = b.read(self.d);
        let token = self.byte(b, c, s);
        let lit = b.shr(token, c.four);
        let s1 = b.add(s, c.one);
        b.assign(self.s, s1);
        b.assign(self.len, lit);
        let long = b.eq(lit, c.fifteen);
        b.if_(long, |b| {
            self.read_length(b, c, p);
            self.break_if_failed(b, c);
        });
        let lit = b.read(self.len);
        let s = b.read(self.s);
        let s2 = b.add(s, lit);
        let d2 = b.add(d, lit);
        let f = Fields { s, d, lit, s2, d2 };
        // The block ends within the literals or the offset: the last sequence, or an error.
        let s3 = b.add(s2, c.two);
        let last = b.ge(s3, p.send);
        b.if_(last, |b| self.last_sequence(b, c, p, &f, token));
        let offset = self.offset_at(b, c, s2);
        let nibble = b.and(token, c.fifteen);
        b.assign(self.len, nibble);
        b.assign(self.s, s3);
        let long = b.eq(nibble, c.fifteen);
        b.if_(long, |b| self.long_match_length(b, c, p, &f, offset, s3));
        let ml = b.read(self.len);
        let ml = b.add(ml, c.four);
        // One test for everything the short path does not handle: output overflow (literals or
        // match), the page reaching into the unread block, a bad offset, literals or a match
        // longer than 32 bytes.
        let d3 = b.add(d2, ml);
        let next = b.read(self.s);
        // (`obase + gap` is not kept for the whole page: one register less, which on sm_90
        // is the difference between 40 and 48 warps per SM.)
        let room = b.sub(next, p.obase);
        let room = b.sub(room, c.gap);
        let limit = b.min(room, c.page);
        let overflow = b.gt(d3, limit);
        let longest = b.max(lit, ml);
        let long_copy = b.gt(longest, c.thirty_two);
        let offset_less_one = b.sub(offset, c.one);
        let bad_offset = b.ge(offset_less_one, d2);
        let m = Matched { offset, ml };
        let rare = b.or(overflow, long_copy);
        let rare = b.or(rare, bad_offset);
        b.if_else(
            rare,
            |b| self.long_sequence(b, c, p, &f, &m, room),
            |b| self.short_sequence(b, c, p, &f, &m),
        );
        b.assign(self.d, d3);
    }

    /// A match length of 15 or more: its first extension byte (inside the block: the sequence is
    /// not the last), then any further ones. A length that cannot be read and a match that ends the
    /// block stop the parse, after the checks the CPU decoder makes first (literals, offset, length).
    fn long_match_length(
        &self,
        b: &mut KernelBuilder,
        c: &Consts,
        p: &Seq,
        f: &Fields,
        offset: Val<U32>,
        s3: Val<U32>,
    ) {
        let extra = self.byte(b, c, s3);
        let sum = b.add(c.fifteen, extra);
        b.assign(self.len, sum);
        let s4 = b.add(s3, c.one);
        b.assign(self.s, s4);
        let more = b.eq(extra, c.c255);
        b.if_(more, |b| {
            self.read_length(b, c, p);
            let code = b.read(self.code);
            let failed = b.ne(code, c.zero);
            b.if_(failed, |b| {
                self.check_literals(b, c, f);
                self.check_offset(b, c, f, offset);
                b.break_();
            });
        });
        let s = b.read(self.s);
        let at_end = b.eq(s, p.send);
        b.if_(at_end, |b| {
            self.check_literals(b, c, f);
            self.check_offset(b, c, f, offset);
            let ml = b.read(self.len);
            let ml = b.add(ml, c.four);
            let left = b.sub(c.page, f.d2);
            let over = b.gt(ml, left);
            b.if_(over, |b| self.fail_at(b, decode_status::OVERFLOW, s));
            self.fail_at(b, decode_status::BAD_END, s);
        });
    }

    /// Literals past the page's end (OVERFLOW), stopped where the CPU decoder stops: just after the
    /// literal length. (Literals past the block's end take [`Dec::last_sequence`].)
    fn check_literals(&self, b: &mut KernelBuilder, c: &Consts, f: &Fields) {
        let left = b.sub(c.page, f.d);
        let over = b.gt(f.lit, left);
        b.if_(over, |b| self.fail_at(b, decode_status::OVERFLOW, f.s));
    }

    /// A match offset of 0 or one reaching before the page (BAD_OFFSET at the offset's first byte).
    fn check_offset(&self, b: &mut KernelBuilder, c: &Consts, f: &Fields, offset: Val<U32>) {
        let offset_less_one = b.sub(offset, c.one);
        let bad = b.ge(offset_less_one, f.d2);
        b.if_(bad, |b| self.fail_at(b, decode_status::BAD_OFFSET, f.s2));
    }

    /// The block ends within this sequence's literals or offset: literals past the block
    /// (TRUNCATED) or the page (OVERFLOW); the block's proper end (the literals are copied and the
    /// parse stops); an offset cut off (TRUNCATED); or an offset ending the block, so the sequence's
    /// match is the block's end (BAD_OFFSET, TRUNCATED for a length that cannot be read, OVERFLOW,
    /// else BAD_END). Always leaves the loop.
    fn last_sequence(
        &self,
        b: &mut KernelBuilder,
        c: &Consts,
        p: &Seq,
        f: &Fields,
        token: Val<U32>,
    ) {
        let left_in = b.sub(p.send, f.s);
        let past = b.gt(f.lit, left_in);
        b.if_(past, |b| self.fail_at(b, decode_status::TRUNCATED, f.s));
        self.check_literals(b, c, f);
        self.copy_literals(b, c, p, f);
        let end = b.eq(f.s2, p.send);
        b.if_(end, |b| {
            b.assign(self.s, f.s2);
            b.assign(self.d, f.d2);
            b.break_();
        });
        let s3 = b.add(f.s2, c.two);
        let cut = b.gt(s3, p.send);
        b.if_(cut, |b| self.fail_at(b, decode_status::TRUNCATED, f.s2));
        // The offset is the block's last two bytes.
        let offset = self.offset_at(b, c, f.s2);
        self.check_offset(b, c, f, offset);
        let nibble = b.and(token, c.fifteen);
        let long = b.eq(nibble, c.fifteen);
        b.if_(long, |b| self.fail_at(b, decode_status::TRUNCATED, s3));
        let ml = b.add(nibble, c.four);
        let left = b.sub(c.page, f.d2);
        let over = b.gt(ml, left);
        b.if_(over, |b| self.fail_at(b, decode_status::OVERFLOW, s3));
        self.fail_at(b, decode_status::BAD_END, s3);
    }

    /// Lanes copy the literals 32 bytes at a time. The page is at least [`IN_PLACE_GAP`](super::IN_PLACE_GAP) bytes behind
    /// the literals, so a round does not write what it reads; a later round may write what an
    /// earlier one read, so each round starts with a `warp_sync`.
    fn copy_literals(&self, b: &mut KernelBuilder, c: &Consts, p: &Seq, f: &Fields) {
        let src = b.add(f.s, p.lane);
        let dst = b.add(p.lane_out, f.d);
        for_step(b, self.round, c.zero, f.lit, c.thirty_two, |b, k| {
            b.warp_sync(Mask::FULL);
            let in_range = b.add(k, p.lane);
            let in_range = b.lt(in_range, f.lit);
            b.if_(in_range, |b| {
                let from = b.add(src, k);
                let byte = b.load_byte(self.buf, from);
                let to = b.add(dst, k);
                b.store_byte(self.buf, to, byte);
            });
        });
    }

    /// The source of lane `k`'s byte (`k` < 32) of a match of an offset below 32 whose first byte
    /// goes to `to − k`: `to − offset · (⌊k / offset⌋ + 1)`, within the `offset` bytes before the
    /// match, and equal to the byte `k mod offset` of them. `⌊k / offset⌋` by a reciprocal (no
    /// division per byte or sequence): with `r = ⌈65536 / offset⌉`, `⌊k · r / 65536⌋ = ⌊k / offset⌋`
    /// for every `k` below 32 and offset ≥ 1, as the error `k · (r − 65536 / offset) / 65536` is
    /// below 1/2048, less than the gap `1 / offset` to the next integer for offsets up to 2048. `r` is
    /// a shuffle of [`Seq::recips`] from lane `offset` — instead of a division per sequence, which
    /// is about 18 SASS instructions on sm_90, one of them a quarter-rate `MUFU.RCP`. (An offset of
    /// 32 or more needs none of it: [`Dec::match_round`] reads `offset` bytes back.)
    fn match_source(
        &self,
        b: &mut KernelBuilder,
        c: &Consts,
        p: &Seq,
        m: &Matched,
        to: Val<U32>,
    ) -> Val<U32> {
        let r = b.shuffle(ShuffleMode::Index, p.recips, m.offset, Mask::FULL);
        let q = b.mul(p.lane, r);
        let q = b.shr(q, c.sixteen);
        let back = b.mul(q, m.offset);
        let back = b.add(back, m.offset);
        b.sub(to, back)
    }

    /// The common sequence: literals and match of at most 32 bytes, checked already.
    fn short_sequence(&self, b: &mut KernelBuilder, c: &Consts, p: &Seq, f: &Fields, m: &Matched) {
        let at = (f.lit, f.d, f.d2);
        self.literals_then_match(b, c, p, at, m, |b| b.add(f.s, p.lane));
    }

    /// At most 32 literals (lane `l` copies the one at `lit_from(b)`, evaluated only where some lane
    /// copies) to the page at `d`, then the first round of the match at `d2`
    /// ([`Dec::match_round`], whose destination it returns). `(lit, d, d2)`: the literal length
    /// and where literals and match go.
    pub(super) fn literals_then_match(
        &self,
        b: &mut KernelBuilder,
        c: &Consts,
        p: &Seq,
        (lit, d, d2): (Val<U32>, Val<U32>, Val<U32>),
        m: &Matched,
        lit_from: impl FnOnce(&mut KernelBuilder) -> Val<U32>,
    ) -> Val<U32> {
        let copies = b.lt(p.lane, lit);
        b.if_(copies, |b| {
            let from = lit_from(b);
            let byte = b.load_byte(self.buf, from);
            let to = b.add(p.lane_out, d);
            b.store_byte(self.buf, to, byte);
        });
        // The match may read the literals other lanes just wrote.
        b.warp_sync(Mask::FULL);
        self.match_round(b, c, p, d2, m)
    }

    /// The first 32 bytes of the sequence's match. With an offset of 32 or more (most matches) every
    /// lane reads `offset` bytes back, all of it written before this round; shorter offsets repeat
    /// their bytes ([`Dec::match_source`]).
    pub(super) fn match_round(
        &self,
        b: &mut KernelBuilder,
        c: &Consts,
        p: &Seq,
        d2: Val<U32>,
        m: &Matched,
    ) -> Val<U32> {
        let to = b.add(p.lane_out, d2);
        let copies = b.lt(p.lane, m.ml);
        let copy = |b: &mut KernelBuilder, from: Val<U32>| {
            b.if_(copies, |b| {
                let byte = b.load_byte(self.buf, from);
                b.store_byte(self.buf, to, byte);
            });
        };
        let far = b.gt(m.offset, c.thirty_one);
        b.if_else(
            far,
            |b| {
                let from = b.sub(to, m.offset);
                copy(b, from);
            },
            |b| {
                let from = self.match_source(b, c, p, m, to);
                copy(b, from);
            },
        );
        to
    }

    /// Any other sequence: its checks in the CPU decoder's order, then whether the page would reach
    /// into the unread block (`room`: how far the page may grow, see [`IN_PLACE_GAP`](super::IN_PLACE_GAP); only a
    /// malformed block gets there), then the copies in rounds of 32.
    fn long_sequence(
        &self,
        b: &mut KernelBuilder,
        c: &Consts,
        p: &Seq,
        f: &Fields,
        m: &Matched,
        room: Val<U32>,
    ) {
        let Matched { offset, ml } = *m;
        self.check_literals(b, c, f);
        self.check_offset(b, c, f, offset);
        let left = b.sub(c.page, f.d2);
        let over = b.gt(ml, left);
        let s = b.read(self.s);
        b.if_(over, |b| self.fail_at(b, decode_status::OVERFLOW, s));
        let d3 = b.add(f.d2, ml);
        let overrun = b.gt(d3, room);
        b.if_(overrun, |b| self.fail_at(b, decode_status::OVERRUN, f.s));
        self.copy_literals(b, c, p, f);
        b.warp_sync(Mask::FULL);
        let to = self.match_round(b, c, p, f.d2, m);
        self.match_rest(b, c, p, to, m);
    }

    /// A match's bytes past its first 32 (none for a match of at most 32), lane `l` of the round
    /// at `k` writing `to + k`: each round reads `period` bytes back, the smallest multiple of the
    /// offset of at least 32, so within what earlier rounds (or earlier sequences) wrote, and equal
    /// by periodicity.
    pub(super) fn match_rest(
        &self,
        b: &mut KernelBuilder,
        c: &Consts,
        p: &Seq,
        to: Val<U32>,
        m: &Matched,
    ) {
        let Matched { offset, ml } = *m;
        let rounds = b.add(offset, c.thirty_one);
        let rounds = b.div(rounds, offset);
        let period = b.mul(rounds, offset);
        for_step(b, self.round, c.thirty_two, ml, c.thirty_two, |b, k| {
            b.warp_sync(Mask::FULL);
            let k_lane = b.add(k, p.lane);
            let copies = b.lt(k_lane, ml);
            b.if_(copies, |b| {
                let to = b.add(to, k);
                let from = b.sub(to, period);
                let byte = b.load_byte(self.buf, from);
                b.store_byte(self.buf, to, byte);
            });
        });
    }
}
