//! IR building blocks shared by the LZ4 warp kernels: counted loops, byte and unaligned-word reads
//! from a page held as 32-bit words (in shared memory, or where the caller has it), and warp-wide
//! "first lane where" helpers.

use warpforge_ir::builder::{AnyArray, Bool, KernelBuilder, Local, Val, U32};
use warpforge_ir::{Mask, ShuffleMode};

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

/// A page of 1024 words in an array (the shared copy the chain levels make, or the input itself:
/// at the throughput level, in the from-input kernel, for a device function's shared page), starting
/// at word `base`, with the constants its reads use (built once,
/// before the kernel's loops).
#[derive(Clone, Copy)]
pub(crate) struct PageWords {
    pub words: AnyArray<U32>,
    pub base: Val<U32>,
    /// `4 × base`: byte 0 of the page in `words` seen as bytes (for [`PageWords::byte`]).
    pub byte_base: Val<U32>,
    pub k: PageConsts,
}

/// Constants the LZ4 kernels use everywhere, defined once at the top of the kernel so that loops do
/// not rebuild them.
#[derive(Clone, Copy)]
pub(crate) struct PageConsts {
    pub zero: Val<U32>,
    pub one: Val<U32>,
    pub two: Val<U32>,
    pub three: Val<U32>,
    pub four: Val<U32>,
    pub eight: Val<U32>,
    pub fifteen: Val<U32>,
    pub thirty_one: Val<U32>,
    pub thirty_two: Val<U32>,
    pub ff: Val<U32>,
    pub last_word: Val<U32>,
    pub page_last: Val<U32>,
    pub end_limit: Val<U32>,
}

impl PageConsts {
    pub fn new(b: &mut KernelBuilder) -> PageConsts {
        PageConsts {
            zero: b.u32(0),
            one: b.u32(1),
            two: b.u32(2),
            three: b.u32(3),
            four: b.u32(4),
            eight: b.u32(8),
            fifteen: b.u32(15),
            thirty_one: b.u32(31),
            thirty_two: b.u32(32),
            ff: b.u32(0xff),
            last_word: b.u32(1023),
            page_last: b.u32(super::PAGE_SIZE as u32 - 1),
            end_limit: b.u32((super::PAGE_SIZE - super::LZ4_LAST_LITERALS) as u32),
        }
    }
}

impl PageWords {
    /// Byte `i` of the page (a `u32` in 0..=255).
    pub fn byte(self, b: &mut KernelBuilder, i: Val<U32>) -> Val<U32> {
        let at = b.add(self.byte_base, i);
        b.load_byte(self.words, at)
    }

    /// The little-endian 32-bit word at byte `i` (any alignment; `i + 4 <= 4096`).
    pub fn word_at(self, b: &mut KernelBuilder, i: Val<U32>) -> Val<U32> {
        self.word(b, i, true)
    }

    /// [`word_at`](Self::word_at) for `i + 8 <= 4096` (every match start: `i + 12 <= 4096`), where the
    /// word after `i`'s is in the page and needs no clamp.
    pub fn word_at_start(self, b: &mut KernelBuilder, i: Val<U32>) -> Val<U32> {
        self.word(b, i, false)
    }

    /// [`word_at`](Self::word_at) in lanes where `active` holds, with what a caller needs to read on
    /// from there ([`WordRead`]). Other lanes read the page's first two words, whatever their `i`:
    /// lanes reading one word share one access (a shared bank, or a global sector), so idle lanes cost
    /// no bank conflicts or extra sectors.
    pub fn read_word_if(self, b: &mut KernelBuilder, i: Val<U32>, active: Val<Bool>) -> WordRead {
        let i = b.select(active, i, self.k.zero);
        let (lo, hi, hi_at) = self.aligned_pair(b, i, true);
        let shift = self.shift_of(b, i);
        let word = self.join(b, lo, hi, shift);
        WordRead {
            word,
            hi,
            hi_at,
            shift,
        }
    }

    fn word(self, b: &mut KernelBuilder, i: Val<U32>, clamp: bool) -> Val<U32> {
        let (lo, hi, _) = self.aligned_pair(b, i, clamp);
        let shift = self.shift_of(b, i);
        self.join(b, lo, hi, shift)
    }

    /// The aligned words holding byte `i` and the 4 after it: word `i / 4` and the next (clamped to the
    /// page when `clamp`: it is only used when `i` is unaligned, and then it exists), and the second
    /// one's index in `words`.
    fn aligned_pair(
        self,
        b: &mut KernelBuilder,
        i: Val<U32>,
        clamp: bool,
    ) -> (Val<U32>, Val<U32>, Val<U32>) {
        let k = self.k;
        let word_index = b.shr(i, k.two);
        let at = b.add(self.base, word_index);
        let lo = b.load(self.words, at);
        let next_at = match clamp {
            true => {
                let next_index = b.add(word_index, k.one);
                let next_index = b.min(next_index, k.last_word);
                b.add(self.base, next_index)
            }
            false => b.add(at, k.one),
        };
        let hi = b.load(self.words, next_at);
        (lo, hi, next_at)
    }

    /// Bits to shift the aligned words of byte `i` by, for [`join`](Self::join): `8 * i`, which
    /// `funnel_shr` takes modulo 32, so `8 * (i % 4)`.
    pub fn shift_of(self, b: &mut KernelBuilder, i: Val<U32>) -> Val<U32> {
        b.shl(i, self.k.three)
    }

    /// The unaligned word made of aligned words `lo` and `hi`, `shift` bits into `lo`.
    pub fn join(
        self,
        b: &mut KernelBuilder,
        lo: Val<U32>,
        hi: Val<U32>,
        shift: Val<U32>,
    ) -> Val<U32> {
        b.funnel_shr(lo, hi, shift)
    }
}

/// A word [`PageWords::read_word_if`] read at byte `i`, and how to go on reading from there.
#[derive(Clone, Copy)]
pub(crate) struct WordRead {
    /// The little-endian word at byte `i`.
    pub word: Val<U32>,
    /// The second aligned word it was made of (the first one of the word at `i + 4`).
    pub hi: Val<U32>,
    /// `hi`'s index in the page's array: `base + i / 4 + 1`, clamped to the page's last word.
    pub hi_at: Val<U32>,
    /// The bits [`PageWords::join`] shifts by for any word at `i + 4n`.
    pub shift: Val<U32>,
}

/// The lowest lane whose `pred` holds, and whether any does (both warp-uniform); `zero` is the
/// constant 0, built once outside the caller's loops.
pub(crate) fn first_lane(
    b: &mut KernelBuilder,
    pred: Val<Bool>,
    zero: Val<U32>,
) -> (Val<U32>, Val<Bool>) {
    let mask = b.ballot(pred, Mask::FULL);
    first_set(b, mask, zero)
}

/// The lowest set bit of `mask` and whether there is one (`zero`: the constant 0).
pub(crate) fn first_set(
    b: &mut KernelBuilder,
    mask: Val<U32>,
    zero: Val<U32>,
) -> (Val<U32>, Val<Bool>) {
    let any = b.ne(mask, zero);
    (b.ffs(mask), any)
}

/// Lane `lane`'s `value`, in every lane.
pub(crate) fn broadcast(b: &mut KernelBuilder, value: Val<U32>, lane: Val<U32>) -> Val<U32> {
    b.shuffle(ShuffleMode::Index, value, lane, Mask::FULL)
}
