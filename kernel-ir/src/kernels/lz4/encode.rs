//! The reference compressor: candidates for every position, greedy parse, sequence encoding.

use super::{
    lz4_hash, Lz4Error, LZ4_CHAIN_DEPTH, LZ4_LAST_LITERALS, LZ4_MAX_OFFSET, LZ4_MF_LIMIT,
    LZ4_MIN_MATCH,
};

/// The largest input one block may hold here (LZ4's window).
const MAX_INPUT: usize = 65_536;

fn read32(data: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]])
}

/// The worst-case compressed size of `n` bytes (all literals plus length bytes and a token).
pub const fn lz4_compress_bound(n: usize) -> usize {
    n + n / 255 + 16
}

/// For every position `p` with `p + 12 <= input.len()`, the most recent earlier such position with the
/// same hash: exactly what the kernel's hash table and `match_any` compute. Following it repeatedly walks
/// the hash chain.
pub fn lz4_candidates(input: &[u8]) -> Vec<Option<u16>> {
    let searchable = (input.len() + 1).saturating_sub(LZ4_MF_LIMIT);
    let mut table: Vec<Option<u16>> = vec![None; super::LZ4_HASH_SIZE];
    let mut candidates = Vec::with_capacity(searchable);
    for p in 0..searchable {
        let h = lz4_hash(read32(input, p)) as usize;
        candidates.push(table[h]);
        table[h] = Some(p as u16);
    }
    candidates
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
fn push_sequence(out: &mut Vec<u8>, literals: &[u8], matched: Option<(usize, usize)>) {
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

/// Compresses `input` (at most 64 KiB; pages are 4 KiB) into one raw LZ4 block in `output`, returning
/// its size. See the module docs for the algorithm; the GPU kernels produce the same bytes.
pub fn lz4_compress_block(input: &[u8], output: &mut [u8]) -> Result<usize, Lz4Error> {
    let n = input.len();
    if n > MAX_INPUT {
        return Err(Lz4Error::InputTooLarge { len: n });
    }
    let candidates = lz4_candidates(input);
    let mut out = Vec::with_capacity(lz4_compress_bound(n));
    let (mut anchor, mut p) = (0usize, 0usize);
    let end_limit = n.saturating_sub(LZ4_LAST_LITERALS);
    while p < candidates.len() {
        // The longest of the first LZ4_CHAIN_DEPTH chain entries that really match; ties keep the
        // most recent (the first found).
        let mut best: Option<(usize, usize)> = None;
        let mut link = candidates[p];
        for _ in 0..LZ4_CHAIN_DEPTH {
            let Some(q) = link.map(usize::from) else {
                break;
            };
            if p - q <= LZ4_MAX_OFFSET && read32(input, q) == read32(input, p) {
                let mut len = LZ4_MIN_MATCH;
                while p + len < end_limit && input[q + len] == input[p + len] {
                    len += 1;
                }
                if best.is_none_or(|(_, longest)| len > longest) {
                    best = Some((q, len));
                }
            }
            link = candidates[q];
        }
        let Some((q, mut len)) = best else {
            p += 1;
            continue;
        };
        let (mut start, mut from) = (p, q);
        while start > anchor && from > 0 && input[start - 1] == input[from - 1] {
            start -= 1;
            from -= 1;
            len += 1;
        }
        push_sequence(&mut out, &input[anchor..start], Some((start - from, len)));
        p = start + len;
        anchor = p;
    }
    push_sequence(&mut out, &input[anchor..], None);
    if out.len() > output.len() {
        return Err(Lz4Error::OutputTooSmall {
            needed: out.len(),
            available: output.len(),
        });
    }
    output[..out.len()].copy_from_slice(&out);
    Ok(out.len())
}
