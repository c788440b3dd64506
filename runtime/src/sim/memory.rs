//! Global memory shared by every block of a launch (32-bit atomic words, so blocks on different cores
//! touch it without undefined behaviour; sub-word stores are atomic and/or on their word, so lanes
//! storing neighbouring bytes never clobber each other) and byte-addressed accesses on it and on a
//! block's shared memory.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use warpforge_ir::AtomicOp;

/// One global buffer: its words and its length in bytes (accesses are checked against the length).
pub(crate) struct GlobalBuffer {
    pub words: Vec<AtomicU32>,
    pub len: u64,
}

impl GlobalBuffer {
    pub fn new(bytes: &[u8]) -> Self {
        let words = bytes
            .chunks(4)
            .map(|c| {
                let mut w = [0u8; 4];
                w[..c.len()].copy_from_slice(c);
                AtomicU32::new(u32::from_le_bytes(w))
            })
            .collect();
        GlobalBuffer {
            words,
            len: bytes.len() as u64,
        }
    }

    /// Copies the contents into `out` (as long as the buffer).
    pub fn copy_to(&self, out: &mut [u8]) {
        for (chunk, word) in out.chunks_mut(4).zip(&self.words) {
            let bytes = word.load(Relaxed).to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
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
    let mut v = 0u64;
    for (i, b) in bytes[addr..addr + size as usize].iter().enumerate() {
        v |= u64::from(*b) << (8 * i);
    }
    v
}

/// Writes the low `size` bytes of `value` little-endian at `addr` of `bytes` (in bounds).
#[inline]
pub(crate) fn write_bytes(bytes: &mut [u8], addr: usize, size: u32, value: u64) {
    for (i, b) in bytes[addr..addr + size as usize].iter_mut().enumerate() {
        *b = (value >> (8 * i)) as u8;
    }
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
