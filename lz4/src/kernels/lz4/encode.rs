//! The reference compressor: candidates for every position, the parse of a level, sequence encoding.

use super::{lz4_hash, Lz4Error, Lz4Level, LZ4_LAST_LITERALS, LZ4_MAX_OFFSET, LZ4_MIN_MATCH};

use super::sequences::{
    agreeing_before, lz4_compress_bound, push_sequence, read32, searchable, NO_LINK,
};

/// The largest input one block may hold here (LZ4's window).
const MAX_INPUT: usize = 65_536;

/// For every position `p` with `p + 12 <= input.len()`, the most recent earlier such position with the
/// same hash: exactly what the kernel's chains hold. Following it repeatedly walks the hash chain.
pub fn lz4_candidates(input: &[u8]) -> Vec<Option<u16>> {
    let words = words(input);
    links(&words, searchable(input.len()))
        .into_iter()
        .map(|q| (q != NO_LINK).then_some(q))
        .collect()
}

/// The little-endian word at every position that has 4 bytes.
fn words(input: &[u8]) -> Vec<u32> {
    input.windows(4).map(|w| read32(w, 0)).collect()
}

/// [`lz4_candidates`] with [`NO_LINK`] for none.
fn links(words: &[u32], searchable: usize) -> Vec<u16> {
    let mut table = vec![NO_LINK; super::LZ4_HASH_SIZE];
    words[..searchable]
        .iter()
        .enumerate()
        .map(|(p, &w)| std::mem::replace(&mut table[lz4_hash(w) as usize], p as u16))
        .collect()
}

/// Compresses `input` (at most 64 KiB; pages are 4 KiB) into one raw LZ4 block in `output` at the
/// default level, returning its size. See the module docs for the algorithm; the GPU kernels produce the
/// same bytes.
pub fn lz4_compress_block(input: &[u8], output: &mut [u8]) -> Result<usize, Lz4Error> {
    lz4_compress_block_level(input, output, Lz4Level::DEFAULT)
}

/// [`lz4_compress_block`] at `level`.
pub fn lz4_compress_block_level(
    input: &[u8],
    output: &mut [u8],
    level: Lz4Level,
) -> Result<usize, Lz4Error> {
    let n = input.len();
    if n > MAX_INPUT {
        return Err(Lz4Error::InputTooLarge { len: n });
    }
    if !level.uses_chains() {
        return finish(super::encode_fast::compress_greedy(input), output);
    }
    let words = words(input);
    let searchable = searchable(n);
    let search = Search {
        input,
        links: links(&words, searchable),
        words,
        end_limit: n.saturating_sub(LZ4_LAST_LITERALS),
        level,
    };
    let mut out = Vec::with_capacity(lz4_compress_bound(n));
    let (mut anchor, mut p) = (0usize, 0usize);
    while p < searchable {
        if !search.has_candidate(p) {
            p += 1;
            continue;
        }
        let (mut x, (mut q, mut len)) = (p, search.longest(p).expect("a verified candidate"));
        // Lazy steps: a longer match up to `lazy` positions later starts there instead.
        let (nice, lazy) = (level.nice() as usize, level.lazy() as usize);
        let mut k = 1;
        while k <= lazy && len < nice && x + k < searchable {
            match search.longest(x + k) {
                Some((q2, len2)) if len2 > len => {
                    (x, q, len) = (x + k, q2, len2);
                    k = 1;
                }
                _ => k += 1,
            }
        }
        let back = agreeing_before(input, x, q, anchor);
        let (start, from, len) = (x - back, q - back, len + back);
        push_sequence(&mut out, &input[anchor..start], Some((start - from, len)));
        p = start + len;
        anchor = p;
    }
    push_sequence(&mut out, &input[anchor..], None);
    finish(out, output)
}

/// Copies the finished block `out` into `output`, returning its size.
fn finish(out: Vec<u8>, output: &mut [u8]) -> Result<usize, Lz4Error> {
    if out.len() > output.len() {
        return Err(Lz4Error::OutputTooSmall {
            needed: out.len(),
            available: output.len(),
        });
    }
    output[..out.len()].copy_from_slice(&out);
    Ok(out.len())
}

/// The match search at one level over one input.
struct Search<'a> {
    input: &'a [u8],
    words: Vec<u32>,
    links: Vec<u16>,
    end_limit: usize,
    level: Lz4Level,
}

impl Search<'_> {
    /// The first `depth` chain entries of `p` that really match it (4 equal bytes within the offset
    /// limit), most recent first.
    fn verified(&self, p: usize) -> Verified<'_> {
        Verified {
            words: &self.words,
            links: &self.links,
            p,
            word: self.words[p],
            next: self.links[p],
            left: self.level.depth(),
        }
    }

    fn has_candidate(&self, p: usize) -> bool {
        self.verified(p).next().is_some()
    }

    /// How many bytes from `q` agree with those from `p`, counting from `from`, stopping at `cap` and
    /// at the end limit. Compares 8 bytes at a time.
    fn agree(&self, p: usize, q: usize, from: usize, cap: usize) -> usize {
        let stop = cap.min(self.end_limit - p);
        let mut len = from;
        while len + 8 <= stop {
            let a = u64::from_le_bytes(
                self.input[p + len..p + len + 8]
                    .try_into()
                    .expect("8 bytes"),
            );
            let b = u64::from_le_bytes(
                self.input[q + len..q + len + 8]
                    .try_into()
                    .expect("8 bytes"),
            );
            if a != b {
                return len + ((a ^ b).trailing_zeros() / 8) as usize;
            }
            len += 8;
        }
        while len < stop && self.input[q + len] == self.input[p + len] {
            len += 1;
        }
        len
    }

    /// The longest match at `p` among its verified chain entries, lengths compared up to `nice` (ties
    /// keep the most recent); one reaching `nice` is extended as far as it goes.
    fn longest(&self, p: usize) -> Option<(usize, usize)> {
        let nice = self.level.nice() as usize;
        let stop = nice.min(self.end_limit - p);
        let mut best: Option<(usize, usize)> = None;
        for q in self.verified(p) {
            if let Some((_, longest)) = best {
                // Only a strictly longer match replaces the best, and it must agree at `longest`.
                if longest >= stop {
                    break;
                }
                if self.input[q + longest] != self.input[p + longest] {
                    continue;
                }
            }
            let len = self.agree(p, q, LZ4_MIN_MATCH, nice);
            if best.is_none_or(|(_, longest)| len > longest) {
                best = Some((q, len));
            }
        }
        best.map(|(q, len)| match len == nice {
            true => (q, self.agree(p, q, len, usize::MAX)),
            false => (q, len),
        })
    }
}

/// [`Search::verified`]: walks the chain, yielding the entries whose word is `p`'s.
struct Verified<'a> {
    words: &'a [u32],
    links: &'a [u16],
    p: usize,
    word: u32,
    next: u16,
    left: u32,
}

impl Iterator for Verified<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        while self.left > 0 && self.next != NO_LINK {
            let q = usize::from(self.next);
            self.next = self.links[q];
            self.left -= 1;
            if self.words[q] == self.word && self.p - q <= LZ4_MAX_OFFSET {
                return Some(q);
            }
        }
        None
    }
}
