//! The sequence writer of the compress kernel: sizes, the give-up rule, then either one store per lane
//! (a sequence without length bytes: token, literals and offset are at most 17 consecutive bytes) or
//! the token and length bytes by lane 0 and the literals by every lane.

use super::compress_kernel::{Ctx, PageCtx};
use super::warp_ops::{for_range, PageConsts};
use super::PAGE_SIZE;
use warpforge_ir::builder::{KernelBuilder, Val, U32, U64, U8};
use warpforge_ir::{Mask, ShuffleMode};

const PAGE: u32 = PAGE_SIZE as u32;

/// A sequence's literals (`anchor`, `lit`), its literal length's continuation bytes and its token.
#[derive(Clone, Copy)]
struct Fields {
    anchor: Val<U32>,
    lit: Val<U32>,
    lit_extra: Val<U32>,
    token: Val<U32>,
}

/// The throughput level's step, as the sequence writer can use it: lane `l` holds the little-endian
/// page word at `base + l` ([`super::compress_greedy`]), and `base_plus_one` is `base + 1`.
#[derive(Clone, Copy)]
pub(super) struct Window {
    pub(super) base_plus_one: Val<U32>,
    pub(super) word: Val<U32>,
}

impl Ctx {
    /// Writes one sequence at `out` (literals `anchor..anchor + lit`, then the match if any), or gives up
    /// (`raw = 1`, and the parse position moves past the page) when the block would not be shorter than
    /// the page.
    pub(super) fn emit_sequence(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        anchor: Val<U32>,
        lit: Val<U32>,
        matched: Option<(Val<U32>, Val<U32>)>,
        window: Option<Window>,
    ) {
        let k = p.page.k;
        let out = b.read(self.out);
        let Some((offset, len)) = matched else {
            return self.emit_general(b, p, out, (anchor, lit), None);
        };
        let ml = b.sub(len, k.four);
        // Most sequences have no length bytes: token, literals and offset are then `lit + 3 <= 17`
        // consecutive bytes, one per lane, in one store.
        let longest = b.max(lit, ml);
        let short = b.lt(longest, k.fifteen);
        b.if_else(
            short,
            |b| {
                let size = b.add(lit, k.three);
                let high = b.shl(lit, k.four);
                let token = b.or(high, ml);
                let f = Fields {
                    anchor,
                    lit,
                    lit_extra: k.zero,
                    token,
                };
                self.write_if_shorter(b, p, out, size, |b| {
                    self.write_short(b, p, (out, f, offset), window)
                });
            },
            |b| self.emit_general(b, p, out, (anchor, lit), Some((offset, ml))),
        );
    }

    /// Any sequence at `out`: its size with length bytes, then [`write_sequence`](Self::write_sequence)
    /// unless the block would not be shorter than the page. `matched`: offset and match length − 4.
    fn emit_general(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        out: Val<U32>,
        (anchor, lit): (Val<U32>, Val<U32>),
        matched: Option<(Val<U32>, Val<U32>)>,
    ) {
        let k = p.page.k;
        let lit_extra = length_bytes(b, &k, lit);
        let mut size = b.add(lit_extra, k.one);
        size = b.add(size, lit);
        if let Some((_, ml)) = matched {
            size = b.add(size, k.two);
            let ml_extra = length_bytes(b, &k, ml);
            size = b.add(size, ml_extra);
        }
        let lit_nibble = b.min(lit, k.fifteen);
        let ml_nibble = match matched {
            Some((_, ml)) => b.min(ml, k.fifteen),
            None => k.zero,
        };
        let high = b.shl(lit_nibble, k.four);
        let token = b.or(high, ml_nibble);
        let f = Fields {
            anchor,
            lit,
            lit_extra,
            token,
        };
        self.write_if_shorter(b, p, out, size, |b| {
            self.write_sequence(b, p, out, f, matched)
        });
    }

    /// Runs `write` and moves `out` past the `size` bytes it writes, or gives up (`raw = 1`, and the
    /// parse position moves past the page) when the block would then not be shorter than the page.
    fn write_if_shorter(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        out: Val<U32>,
        size: Val<U32>,
        write: impl FnOnce(&mut KernelBuilder),
    ) {
        let k = p.page.k;
        let end = b.add(out, size);
        let too_big = b.gt(end, k.page_last);
        b.if_else(
            too_big,
            |b| {
                b.assign(self.raw, k.one);
                // Ends the parse loop: its position is past every match start.
                let past = b.u32(PAGE);
                b.assign(self.pos, past);
            },
            |b| {
                write(b);
                b.assign(self.out, end);
            },
        );
    }

    /// A sequence without length bytes (`lit < 15`, match length below 19): lane `k` of the first
    /// `lit + 3` stores byte `out + k` — the token (lane 0), literal `k − 1`, or the offset's low
    /// and high byte (lanes `lit + 1`, `lit + 2`). With a `window` whose positions hold the literals
    /// (they start at or after its base: they end before the match, which starts inside it), lane
    /// `k` takes literal `k − 1` from the word of lane `anchor − base + k − 1` instead of the page.
    fn write_short(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        (out, f, offset): (Val<U32>, Fields, Val<U32>),
        window: Option<Window>,
    ) {
        let Some(w) = window else {
            return self.store_short(b, p, (out, f, offset), None);
        };
        let in_window = b.ge(f.anchor, w.base_plus_one);
        b.if_else(
            in_window,
            |b| {
                let lane = b.sub(f.anchor, w.base_plus_one);
                let lane = b.add(lane, p.lane);
                let word = b.shuffle(ShuffleMode::Index, w.word, lane, Mask::FULL);
                let literal = b.and(word, p.page.k.ff);
                self.store_short(b, p, (out, f, offset), Some(literal));
            },
            |b| self.store_short(b, p, (out, f, offset), None),
        );
    }

    /// [`write_short`](Self::write_short)'s stores, each lane's literal given or read from the page.
    fn store_short(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        (out, f, offset): (Val<U32>, Fields, Val<U32>),
        literal: Option<Val<U32>>,
    ) {
        let Fields {
            anchor, lit, token, ..
        } = f;
        let k = p.page.k;
        let bytes = b.add(lit, k.three);
        let writes = b.lt(p.lane, bytes);
        b.if_(writes, |b| {
            let j = p.lane_less_one;
            let literal = match literal {
                Some(literal) => literal,
                None => {
                    // Lane 0 (j wraps) and the offset's lanes read a byte they do not store: kept
                    // inside the page.
                    let src = b.add(anchor, j);
                    let src = b.min(src, k.page_last);
                    p.page.byte(b, src)
                }
            };
            let lo = b.and(offset, k.ff);
            let hi = b.shr(offset, k.eight);
            let at_lo = b.eq(j, lit);
            let header = b.select(at_lo, lo, hi);
            let header = b.select(p.lane_zero, token, header);
            let is_literal = b.lt(j, lit);
            let byte = b.select(is_literal, literal, header);
            let dst = b.add(out, p.lane);
            self.store_out(b, p, dst, byte);
        });
    }

    /// Any sequence: the token and length bytes by lane 0, the literals by every lane, 32 at a time.
    fn write_sequence(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        out: Val<U32>,
        f: Fields,
        matched: Option<(Val<U32>, Val<U32>)>,
    ) {
        let k = p.page.k;
        let Fields {
            anchor,
            lit,
            lit_extra,
            token,
        } = f;
        let first = b.eq(p.lane, k.zero);
        b.if_(first, |b| {
            self.store_out(b, p, out, token);
            let after = b.add(out, k.one);
            self.put_length(b, p, after, lit);
        });
        let after_token = b.add(out, k.one);
        let lit_start = b.add(after_token, lit_extra);
        // Literals, by every lane: the first 32 without a loop (most runs are shorter).
        let copy = |b: &mut KernelBuilder, j: Val<U32>| {
            let src = b.add(anchor, j);
            let byte = p.page.byte(b, src);
            let dst = b.add(lit_start, j);
            self.store_out(b, p, dst, byte);
        };
        let mine = b.lt(p.lane, lit);
        b.if_(mine, |b| copy(b, p.lane));
        let long = b.gt(lit, k.thirty_two);
        b.if_(long, |b| {
            let from = b.add(p.lane, k.thirty_two);
            for_range(b, self.i, from, lit, 32, copy);
        });
        if let Some((offset, ml)) = matched {
            b.if_(first, |b| {
                let at = b.add(lit_start, lit);
                let lo = b.and(offset, k.ff);
                self.store_out(b, p, at, lo);
                let hi = b.shr(offset, k.eight);
                let at_hi = b.add(at, k.one);
                self.store_out(b, p, at_hi, hi);
                let after = b.add(at, k.two);
                self.put_length(b, p, after, ml);
            });
        }
    }

    fn store_out(&self, b: &mut KernelBuilder, p: &PageCtx, at: Val<U32>, byte: Val<U32>) {
        let wide = b.zext::<U64, _>(at);
        let index = b.add(p.out_base, wide);
        let byte = b.trunc::<U8, _>(byte);
        b.store(self.output, index, byte);
    }

    /// Writes `byte` at `at` and advances `at` (lane 0 only).
    fn put_byte(&self, b: &mut KernelBuilder, p: &PageCtx, byte: Val<U32>) {
        let at = b.read(self.at);
        self.store_out(b, p, at, byte);
        let next = b.add(at, p.page.k.one);
        b.assign(self.at, next);
    }

    /// The length continuation of a 4-bit field holding `len`, written from `at` (nothing when
    /// `len < 15`).
    fn put_length(&self, b: &mut KernelBuilder, p: &PageCtx, at: Val<U32>, len: Val<U32>) {
        let fifteen = p.page.k.fifteen;
        let long = b.ge(len, fifteen);
        b.if_(long, |b| {
            b.assign(self.at, at);
            let rest = b.sub(len, fifteen);
            b.assign(self.rem, rest);
            b.loop_(|b| {
                let rest = b.read(self.rem);
                let ff = p.page.k.ff;
                let more = b.ge(rest, ff);
                b.if_else(
                    more,
                    |b| {
                        self.put_byte(b, p, ff);
                        let left = b.sub(rest, ff);
                        b.assign(self.rem, left);
                    },
                    |b| {
                        self.put_byte(b, p, rest);
                        b.break_();
                    },
                );
            });
        });
    }
}

/// Bytes of length continuation for a 4-bit field holding `len`: `(len − 15) / 255 + 1` when `len ≥ 15`.
fn length_bytes(b: &mut KernelBuilder, k: &PageConsts, len: Val<U32>) -> Val<U32> {
    let long = b.ge(len, k.fifteen);
    let rest = b.sub(len, k.fifteen);
    let q = b.div(rest, k.ff);
    let n = b.add(q, k.one);
    b.select(long, n, k.zero)
}
