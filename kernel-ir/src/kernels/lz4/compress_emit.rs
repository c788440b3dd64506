//! The sequence writer of the compress kernel: sizes, the give-up rule, token and length bytes by lane
//! 0, literals by every lane.

use super::compress_kernel::{Ctx, PageCtx};
use super::warp_ops::for_range;
use super::PAGE_SIZE;
use crate::builder::{KernelBuilder, Val, U32, U64, U8};

const PAGE: u32 = PAGE_SIZE as u32;

impl Ctx {
    /// Writes one sequence at `out` (literals `anchor..anchor + lit`, then the match if any), or gives up
    /// (`raw = 1`) when the block would not be shorter than the page.
    pub(super) fn emit_sequence(
        &self,
        b: &mut KernelBuilder,
        p: &PageCtx,
        anchor: Val<U32>,
        lit: Val<U32>,
        matched: Option<(Val<U32>, Val<U32>)>,
    ) {
        let fifteen = b.u32(15);
        let four = b.u32(4);
        let lit_extra = length_bytes(b, lit);
        let ml = matched.map(|(_, len)| b.sub(len, four));
        let mut size = b.u32(1);
        size = b.add(size, lit_extra);
        size = b.add(size, lit);
        if let Some(ml) = ml {
            let two = b.u32(2);
            size = b.add(size, two);
            let ml_extra = length_bytes(b, ml);
            size = b.add(size, ml_extra);
        }
        let out = b.read(self.out);
        let end = b.add(out, size);
        let page = b.u32(PAGE);
        let too_big = b.ge(end, page);
        b.if_else(
            too_big,
            |b| {
                let one = b.u32(1);
                b.assign(self.raw, one);
            },
            |b| {
                let zero = b.u32(0);
                let first = b.eq(p.lane, zero);
                // Token and literal length, by lane 0.
                let lit_nibble = b.min(lit, fifteen);
                let ml_nibble = match ml {
                    Some(ml) => b.min(ml, fifteen),
                    None => b.u32(0),
                };
                b.if_(first, |b| {
                    let shift = b.u32(4);
                    let high = b.shl(lit_nibble, shift);
                    let token = b.or(high, ml_nibble);
                    b.assign(self.at, out);
                    self.put_byte(b, p, token);
                    self.put_length(b, p, lit);
                });
                // Literals, by every lane.
                let one = b.u32(1);
                let after_token = b.add(out, one);
                let lit_start = b.add(after_token, lit_extra);
                for_range(b, self.i, p.lane, lit, 32, |b, j| {
                    let src = b.add(anchor, j);
                    let byte = p.page.byte(b, src);
                    let dst = b.add(lit_start, j);
                    self.store_out(b, p, dst, byte);
                });
                if let (Some((offset, _)), Some(ml)) = (matched, ml) {
                    b.if_(first, |b| {
                        let after = b.add(lit_start, lit);
                        b.assign(self.at, after);
                        let ff = b.u32(0xff);
                        let lo = b.and(offset, ff);
                        self.put_byte(b, p, lo);
                        let eight = b.u32(8);
                        let hi = b.shr(offset, eight);
                        self.put_byte(b, p, hi);
                        self.put_length(b, p, ml);
                    });
                }
                b.assign(self.out, end);
            },
        );
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
        let one = b.u32(1);
        let next = b.add(at, one);
        b.assign(self.at, next);
    }

    /// The length continuation of a 4-bit field holding `len` (nothing when `len < 15`).
    fn put_length(&self, b: &mut KernelBuilder, p: &PageCtx, len: Val<U32>) {
        let fifteen = b.u32(15);
        let long = b.ge(len, fifteen);
        b.if_(long, |b| {
            let rest = b.sub(len, fifteen);
            b.assign(self.rem, rest);
            b.loop_(|b| {
                let rest = b.read(self.rem);
                let ff = b.u32(255);
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
fn length_bytes(b: &mut KernelBuilder, len: Val<U32>) -> Val<U32> {
    let fifteen = b.u32(15);
    let long = b.ge(len, fifteen);
    let rest = b.sub(len, fifteen);
    let ff = b.u32(255);
    let q = b.div(rest, ff);
    let one = b.u32(1);
    let n = b.add(q, one);
    let zero = b.u32(0);
    b.select(long, n, zero)
}
