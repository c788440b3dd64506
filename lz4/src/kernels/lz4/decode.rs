//! A safe LZ4 block decoder: every token, length and offset is checked against both buffers before any
//! byte moves. Malformed input is an error naming the byte offset, never a panic or an out-of-bounds
//! access.

use super::{Lz4Error, LZ4_MIN_MATCH};

fn malformed<T>(at: usize, reason: &'static str) -> Result<T, Lz4Error> {
    Err(Lz4Error::Malformed { at, reason })
}

/// Reads a length continuation starting at `*pos`, adding to `base`.
fn read_length(src: &[u8], pos: &mut usize, base: usize) -> Result<usize, Lz4Error> {
    let mut len = base;
    loop {
        let Some(&b) = src.get(*pos) else {
            return malformed(*pos, "length continues past the end of the block");
        };
        *pos += 1;
        len = len.checked_add(usize::from(b)).ok_or(Lz4Error::Malformed {
            at: *pos - 1,
            reason: "length overflows",
        })?;
        if b != 255 {
            return Ok(len);
        }
    }
}

/// Decodes one raw LZ4 block from `src` into `dst`, returning the number of bytes written.
pub fn lz4_decompress_block(src: &[u8], dst: &mut [u8]) -> Result<usize, Lz4Error> {
    let (mut s, mut d) = (0usize, 0usize);
    if src.is_empty() {
        return malformed(0, "empty block (a block holds at least one token)");
    }
    loop {
        let token_at = s;
        let token = src[s];
        s += 1;
        let mut lit = usize::from(token >> 4);
        if lit == 15 {
            lit = read_length(src, &mut s, lit)?;
        }
        if lit > src.len() - s {
            return malformed(s, "literals run past the end of the block");
        }
        if lit > dst.len() - d {
            return Err(Lz4Error::OutputTooSmall {
                needed: d + lit,
                available: dst.len(),
            });
        }
        dst[d..d + lit].copy_from_slice(&src[s..s + lit]);
        s += lit;
        d += lit;
        if s == src.len() {
            return Ok(d); // the last sequence: literals only
        }
        if src.len() - s < 2 {
            return malformed(s, "match offset cut off");
        }
        let offset = usize::from(u16::from_le_bytes([src[s], src[s + 1]]));
        if offset == 0 {
            return malformed(s, "match offset 0");
        }
        if offset > d {
            return malformed(s, "match offset points before the start of the output");
        }
        s += 2;
        let mut len = usize::from(token & 15);
        if len == 15 {
            len = read_length(src, &mut s, len)?;
        }
        len += LZ4_MIN_MATCH;
        if len > dst.len() - d {
            return Err(Lz4Error::OutputTooSmall {
                needed: d + len,
                available: dst.len(),
            });
        }
        if s == src.len() {
            return malformed(
                token_at,
                "the block ends with a match (the last sequence must be literals)",
            );
        }
        // Overlapping copies (offset < len) repeat the last `offset` bytes, byte by byte.
        let from = d - offset;
        if offset >= len {
            dst.copy_within(from..from + len, d);
        } else {
            for i in 0..len {
                dst[d + i] = dst[from + i];
            }
        }
        d += len;
    }
}
