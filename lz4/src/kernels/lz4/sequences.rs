//! Writing LZ4 sequences, and the match helpers both CPU encoders (`encode.rs`, `encode_fast.rs`)
//! share.

use super::{LZ4_MF_LIMIT, LZ4_MIN_MATCH};

pub(super) fn read32(data: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]])
}

/// "No earlier position" in [`links`].
pub(super) const NO_LINK: u16 = u16::MAX;

/// Positions that may start a match in an input of `n` bytes.
pub(super) fn searchable(n: usize) -> usize {
    (n + 1).saturating_sub(LZ4_MF_LIMIT)
}

/// Appends an LZ4 length continuation (bytes of 255, then the remainder).
fn push_length(out: &mut Vec<u8>, mut rest: usize) {
    while rest >= 255 {
        out.push(255);
        rest -= 255;
    }
    out.push(rest as u8);
}

/// Appends one sequence: `literals`, then (unless `matched` is `None`) a match of `(offset, length)`.
pub(super) fn push_sequence(out: &mut Vec<u8>, literals: &[u8], matched: Option<(usize, usize)>) {
    let lit = literals.len();
    let ml = matched.map_or(0, |(_, len)| len - LZ4_MIN_MATCH);
    let token = ((lit.min(15) as u8) << 4)
        | if matched.is_some() {
            ml.min(15) as u8
        } else {
            0
        };
    out.push(token);
    if lit >= 15 {
        push_length(out, lit - 15);
    }
    out.extend_from_slice(literals);
    if let Some((offset, _)) = matched {
        out.extend_from_slice(&(offset as u16).to_le_bytes());
        if ml >= 15 {
            push_length(out, ml - 15);
        }
    }
}

/// How many bytes before `x` equal those before `q` (`q < x`), without going below `anchor` or byte 0:
/// how far a match at `x` from `q` extends backward over the pending literals.
pub(super) fn agreeing_before(input: &[u8], x: usize, q: usize, anchor: usize) -> usize {
    let mut back = 0;
    while x - back > anchor && q - back > 0 && input[x - back - 1] == input[q - back - 1] {
        back += 1;
    }
    back
}

/// The worst-case compressed size of `n` bytes (all literals plus length bytes and a token).
pub const fn lz4_compress_bound(n: usize) -> usize {
    n + n / 255 + 16
}
