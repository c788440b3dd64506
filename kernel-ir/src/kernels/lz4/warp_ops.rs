//! IR building blocks shared by the LZ4 warp kernels: counted loops, byte and unaligned-word reads
//! from a page held in shared memory as 32-bit words, and warp-wide "first lane where" helpers.

use crate::builder::{Bool, KernelBuilder, Local, SharedArr, Val, U32};
use crate::{Mask, ShuffleMode};

/// `for i in (start..end).step_by(step) { body(i) }` with `counter` as the loop variable.
pub(crate) fn for_range(
    b: &mut KernelBuilder,
    counter: Local<U32>,
    start: Val<U32>,
    end: Val<U32>,
    step: u32,
    body: impl FnOnce(&mut KernelBuilder, Val<U32>),
) {
    counted_loop(b, counter, (start, end), |b| b.u32(step), body);
}

/// [`for_range`] with a step defined outside the loop (not rebuilt in every iteration).
pub(crate) fn for_step(
    b: &mut KernelBuilder,
    counter: Local<U32>,
    start: Val<U32>,
    end: Val<U32>,
    step: Val<U32>,
    body: impl FnOnce(&mut KernelBuilder, Val<U32>),
) {
    counted_loop(b, counter, (start, end), |_| step, body);
}

/// The counted loop behind [`for_range`] and [`for_step`]; `step` builds the increment after `body`.
fn counted_loop(
    b: &mut KernelBuilder,
    counter: Local<U32>,
    (start, end): (Val<U32>, Val<U32>),
    step: impl FnOnce(&mut KernelBuilder) -> Val<U32>,
    body: impl FnOnce(&mut KernelBuilder, Val<U32>),
) {
    b.assign(counter, start);
    b.loop_(|b| {
        let i = b.read(counter);
        let done = b.ge(i, end);
        b.if_(done, |b| b.break_());
        body(b, i);
        let step = step(b);
        let next = b.add(i, step);
        b.assign(counter, next);
    });
}

/// A page of 1024 words in a shared array, starting at word `base`.
#[derive(Clone, Copy)]
pub(crate) struct SharedPage {
    pub words: SharedArr<U32>,
    pub base: Val<U32>,
}

impl SharedPage {
    /// Byte `i` of the page (a `u32` in 0..=255).
    pub fn byte(self, b: &mut KernelBuilder, i: Val<U32>) -> Val<U32> {
        let two = b.u32(2);
        let word_index = b.shr(i, two);
        let at = b.add(self.base, word_index);
        let word = b.load(self.words, at);
        let three = b.u32(3);
        let in_word = b.and(i, three);
        let shift = b.shl(in_word, three);
        let shifted = b.shr(word, shift);
        let ff = b.u32(0xff);
        b.and(shifted, ff)
    }

    /// The little-endian 32-bit word at byte `i` (any alignment; `i + 4 <= 4096`).
    pub fn word_at(self, b: &mut KernelBuilder, i: Val<U32>) -> Val<U32> {
        let two = b.u32(2);
        let word_index = b.shr(i, two);
        let at = b.add(self.base, word_index);
        let lo = b.load(self.words, at);
        // The next word, clamped to the page (it is only used when `i` is unaligned, and then it exists).
        let one = b.u32(1);
        let last = b.u32(1023);
        let next_index = b.add(word_index, one);
        let next_index = b.min(next_index, last);
        let next_at = b.add(self.base, next_index);
        let hi = b.load(self.words, next_at);
        let three = b.u32(3);
        let in_word = b.and(i, three);
        let shift = b.shl(in_word, three);
        // `hi << (32 - shift)` as two shifts, so that an aligned `i` (shift 0) takes nothing from `hi`.
        let low_part = b.shr(lo, shift);
        let hi_once = b.shl(hi, one);
        let thirty_one = b.u32(31);
        let back = b.sub(thirty_one, shift);
        let high_part = b.shl(hi_once, back);
        b.or(low_part, high_part)
    }
}

/// The lowest lane whose `pred` holds, and whether any does (both warp-uniform).
pub(crate) fn first_lane(b: &mut KernelBuilder, pred: Val<Bool>) -> (Val<U32>, Val<Bool>) {
    let mask = b.ballot(pred, Mask::FULL);
    let zero = b.u32(0);
    let any = b.ne(mask, zero);
    (b.ffs(mask), any)
}

/// Lane `lane`'s `value`, in every lane.
pub(crate) fn broadcast(b: &mut KernelBuilder, value: Val<U32>, lane: Val<U32>) -> Val<U32> {
    b.shuffle(ShuffleMode::Index, value, lane, Mask::FULL)
}
