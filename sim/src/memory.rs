//! Global memory shared by every block of a launch (32-bit atomic words, so blocks on different cores
//! touch it without undefined behaviour; sub-word stores are atomic and/or on their word, so lanes
//! storing neighbouring bytes never clobber each other) and byte-addressed accesses on it and on a
//! block's shared memory.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use warpforge_ir::AtomicOp;

/// One global buffer: its words and its length in bytes (accesses are checked against the length).
pub(crate) struct GlobalBuffer {
    pub words: Vec<AtomicU32>,
    pub len: u64,
    /// racecheck across blocks (read-write buffers, sanitizer on): per byte, the last block that wrote
    /// it plus one (low 32 bits), a block that read it plus one (bits 32..63), and whether several
    /// blocks read it (bit 63).
    blocks: Vec<AtomicU64>,
    /// Serializes `f64` atomics, whose two words cannot be updated by one `u32` atomic.
    wide: std::sync::Mutex<()>,
}

/// Another block that touched a byte a block accesses without atomics: it wrote it, or read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OtherBlock {
    /// That block, when known (several readers are not named).
    pub block: Option<u32>,
    /// Whether it wrote the byte.
    pub wrote: bool,
}

impl GlobalBuffer {
    /// A buffer holding `bytes`; `track_blocks` keeps the cross-block shadow.
    pub fn with_tracking(bytes: &[u8], track_blocks: bool) -> Self {
        let mut buffer = Self::new(bytes);
        if track_blocks {
            buffer.blocks = (0..buffer.len).map(|_| AtomicU64::new(0)).collect();
        }
        buffer
    }

    /// Records an access by `block` to bytes `addr..addr + size` (`write`: a plain store; `atomic`: an
    /// atomic read-modify-write); returns another block that accessed one of them so that the two race:
    /// blocks run in no defined order, and only two atomics do not race.
    pub fn touch(
        &self,
        block: u32,
        addr: u64,
        size: u32,
        write: bool,
        atomic: bool,
        strong_read: bool,
    ) -> Option<OtherBlock> {
        if self.blocks.is_empty() {
            return None;
        }
        // Per byte: bits 0..31 the last writer + 1, bit 31 whether its write was atomic, bits 32..62 a
        // plain reader + 1, bit 62 several atomic writers, bit 63 several plain readers.
        const ATOMIC: u64 = 1 << 31;
        const ATOMICS: u64 = 1 << 62;
        const READERS: u64 = 1 << 63;
        let me = u64::from(block) + 1;
        let mut found = None;
        for byte in addr..addr + u64::from(size) {
            let cell = &self.blocks[byte as usize];
            let mut old = cell.load(Relaxed);
            loop {
                let writer = old & 0x7fff_ffff;
                let writer_atomic = old & ATOMIC != 0;
                let reader = (old >> 32) & 0x3fff_ffff;
                let other_writer = writer != 0 && writer != me;
                let other_reader = old & READERS != 0 || (reader != 0 && reader != me);
                // The last write was this block's atomic: every other block's atomic on the byte
                // came before it in the byte's modification order, and this block's later
                // accesses come after it (coherence) — ordered, whatever the fences.
                let after_my_atomic = writer == me && writer_atomic;
                if found.is_none() {
                    // A device-scope strong load meets atomic writers as an atomic does.
                    let by_writer = if atomic || strong_read {
                        other_writer && !writer_atomic
                    } else {
                        other_writer || (old & ATOMICS != 0 && !after_my_atomic)
                    };
                    if by_writer {
                        found = Some(OtherBlock {
                            block: Some((writer - 1) as u32),
                            wrote: true,
                        });
                    } else if (write || atomic) && other_reader {
                        found = Some(OtherBlock {
                            block: (old & READERS == 0).then(|| (reader - 1) as u32),
                            wrote: false,
                        });
                    }
                }
                // Strong loads are not recorded: they race with no later atomic or strong access (a
                // later plain write from another block is then not seen: a missed race, not a
                // false one).
                let new = if strong_read {
                    old
                } else if atomic {
                    let several = if other_writer && writer_atomic {
                        ATOMICS
                    } else {
                        0
                    };
                    (old & !0xffff_ffff) | me | ATOMIC | several
                } else if write && after_my_atomic {
                    // The atomic writers before it are ordered before this write (see above).
                    (old & !0xffff_ffff & !ATOMICS) | me
                } else if write {
                    (old & !0xffff_ffff) | me
                } else if reader == 0 {
                    old | me << 32
                } else if reader != me {
                    old | READERS
                } else {
                    old
                };
                if new == old {
                    break;
                }
                match cell.compare_exchange_weak(old, new, Relaxed, Relaxed) {
                    Ok(_) => break,
                    Err(now) => old = now,
                }
            }
        }
        found
    }

    pub fn new(bytes: &[u8]) -> Self {
        let whole = bytes.chunks_exact(4);
        let tail = whole.remainder();
        let mut words: Vec<AtomicU32> = Vec::with_capacity(bytes.len().div_ceil(4));
        words.extend(whole.map(|c| AtomicU32::new(u32::from_le_bytes(word(c, 0)))));
        if !tail.is_empty() {
            let mut w = [0u8; 4];
            w[..tail.len()].copy_from_slice(tail);
            words.push(AtomicU32::new(u32::from_le_bytes(w)));
        }
        GlobalBuffer {
            words,
            len: bytes.len() as u64,
            blocks: Vec::new(),
            wide: std::sync::Mutex::new(()),
        }
    }

    /// Copies the contents into `out` (as long as the buffer).
    pub fn copy_to(&self, out: &mut [u8]) {
        let last = out.len() / 4;
        let mut whole = out.chunks_exact_mut(4);
        for (chunk, word) in (&mut whole).zip(&self.words) {
            chunk.copy_from_slice(&word.load(Relaxed).to_le_bytes());
        }
        let tail = whole.into_remainder();
        if let Some(word) = self.words.get(last).filter(|_| !tail.is_empty()) {
            let bytes = word.load(Relaxed).to_le_bytes();
            tail.copy_from_slice(&bytes[..tail.len()]);
        }
    }

    /// Reads `size` (1, 2, 4 or 8) bytes at `addr` (in bounds, naturally aligned).
    #[inline]
    pub fn read(&self, addr: u64, size: u32) -> u64 {
        let word = (addr / 4) as usize;
        match size {
            8 => {
                let lo = self.words[word].load(Relaxed);
                let hi = self.words[word + 1].load(Relaxed);
                u64::from(lo) | u64::from(hi) << 32
            }
            4 => u64::from(self.words[word].load(Relaxed)),
            _ => {
                let shift = (addr % 4) * 8;
                let w = u64::from(self.words[word].load(Relaxed));
                (w >> shift) & ((1u64 << (size * 8)) - 1)
            }
        }
    }

    /// Writes the low `size` bytes of `value` at `addr` (in bounds, naturally aligned).
    #[inline]
    pub fn write(&self, addr: u64, size: u32, value: u64) {
        let word = (addr / 4) as usize;
        match size {
            8 => {
                self.words[word].store(value as u32, Relaxed);
                self.words[word + 1].store((value >> 32) as u32, Relaxed);
            }
            4 => self.words[word].store(value as u32, Relaxed),
            _ => {
                let shift = (addr % 4) * 8;
                let mask = (((1u64 << (size * 8)) - 1) << shift) as u32;
                let bits = ((value << shift) as u32) & mask;
                self.words[word].fetch_and(!mask, Relaxed);
                self.words[word].fetch_or(bits, Relaxed);
            }
        }
    }

    /// An atomic `f32` add at `addr` with subnormals flushed (CUDA's global float atomics);
    /// returns the old contents' bits.
    pub fn atomic_add_f32(&self, addr: u64, operand: u32) -> u32 {
        let w = &self.words[(addr / 4) as usize];
        let add = |old: u32| Some(float_add(true, old, operand));
        match w.fetch_update(Relaxed, Relaxed, add) {
            Ok(old) | Err(old) => old,
        }
    }

    /// An atomic `f64` add at `addr` (8-byte aligned): the two words under the buffer's lock (an `f64`
    /// atomic is one access on a GPU; the words are `u32` here), rounded as `atom.add.f64`; returns the
    /// old bits.
    pub fn atomic_add_f64(&self, addr: u64, operand: u64) -> u64 {
        let _one_at_a_time = self
            .wide
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let (lo, hi) = (
            &self.words[(addr / 4) as usize],
            &self.words[(addr / 4) as usize + 1],
        );
        let old = u64::from(lo.load(Relaxed)) | u64::from(hi.load(Relaxed)) << 32;
        let new = crate::ptx::f64_atomic_add(old, operand);
        lo.store(new as u32, Relaxed);
        hi.store((new >> 32) as u32, Relaxed);
        old
    }

    /// An atomic read-modify-write of the `u32` at `addr`; returns the old contents.
    pub fn atomic(&self, addr: u64, op: AtomicOp, operand: u32, compare: u32) -> u32 {
        let w = &self.words[(addr / 4) as usize];
        match op {
            AtomicOp::Add => w.fetch_add(operand, Relaxed),
            AtomicOp::Min => w.fetch_min(operand, Relaxed),
            AtomicOp::Max => w.fetch_max(operand, Relaxed),
            AtomicOp::And => w.fetch_and(operand, Relaxed),
            AtomicOp::Or => w.fetch_or(operand, Relaxed),
            AtomicOp::Exchange => w.swap(operand, Relaxed),
            AtomicOp::CompareExchange => {
                match w.compare_exchange(compare, operand, Relaxed, Relaxed) {
                    Ok(old) | Err(old) => old,
                }
            }
        }
    }
}

/// Reads `size` bytes little-endian at `addr` of `bytes` (in bounds).
#[inline]
pub(crate) fn read_bytes(bytes: &[u8], addr: usize, size: u32) -> u64 {
    match size {
        4 => return u64::from(u32::from_le_bytes(word(bytes, addr))),
        8 => return u64::from_le_bytes(word(bytes, addr)),
        1 => return u64::from(bytes[addr]),
        _ => {}
    }
    let mut v = 0u64;
    for (i, b) in bytes[addr..addr + size as usize].iter().enumerate() {
        v |= u64::from(*b) << (8 * i);
    }
    v
}

/// The `N` bytes at `addr` of `bytes` (in bounds).
#[inline(always)]
fn word<const N: usize>(bytes: &[u8], addr: usize) -> [u8; N] {
    bytes[addr..addr + N].try_into().expect("N bytes")
}

/// Writes the low `size` bytes of `value` little-endian at `addr` of `bytes` (in bounds).
#[inline]
pub(crate) fn write_bytes(bytes: &mut [u8], addr: usize, size: u32, value: u64) {
    match size {
        4 => return bytes[addr..addr + 4].copy_from_slice(&(value as u32).to_le_bytes()),
        8 => return bytes[addr..addr + 8].copy_from_slice(&value.to_le_bytes()),
        _ => {}
    }
    for (i, b) in bytes[addr..addr + size as usize].iter_mut().enumerate() {
        *b = (value >> (8 * i)) as u8;
    }
}

/// `old + operand` on `f32` bits, rounded to nearest, with subnormal operands and result flushed
/// to zero of the same sign when `ftz` (global memory) and a NaN result canonical (`0x7fffffff`):
/// the float atomic add of both simulators (the PTX one's `atom.add.f32` calls it).
pub(crate) fn float_add(ftz: bool, old: u32, operand: u32) -> u32 {
    let flush = |bits: u32| {
        if ftz && bits & 0x7f80_0000 == 0 {
            bits & 0x8000_0000
        } else {
            bits
        }
    };
    let sum = f32::from_bits(flush(old)) + f32::from_bits(flush(operand));
    if sum.is_nan() {
        // CUDA's canonical NaN, as the PTX simulator gives.
        return 0x7fff_ffff;
    }
    flush(sum.to_bits())
}

/// The new contents of a `u32` after an atomic `op` on `old`.
pub(crate) fn atomic_result(op: AtomicOp, old: u32, operand: u32, compare: u32) -> u32 {
    match op {
        AtomicOp::Add => old.wrapping_add(operand),
        AtomicOp::Min => old.min(operand),
        AtomicOp::Max => old.max(operand),
        AtomicOp::And => old & operand,
        AtomicOp::Or => old | operand,
        AtomicOp::Exchange => operand,
        AtomicOp::CompareExchange if old == compare => operand,
        AtomicOp::CompareExchange => old,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A buffer of any length gives back the bytes it was made from, the last partial word too.
    #[test]
    fn a_buffer_round_trips_every_length() {
        for len in 0..=13usize {
            let bytes: Vec<u8> = (0..len)
                .map(|i| (i as u8).wrapping_mul(37) ^ 0xa5)
                .collect();
            let buffer = GlobalBuffer::new(&bytes);
            assert_eq!(buffer.len, len as u64);
            assert_eq!(buffer.words.len(), len.div_ceil(4));
            let mut out = vec![0u8; len];
            buffer.copy_to(&mut out);
            assert_eq!(out, bytes, "length {len}");
            if len > 0 {
                assert_eq!(buffer.read(len as u64 - 1, 1), u64::from(bytes[len - 1]));
            }
        }
    }
}
