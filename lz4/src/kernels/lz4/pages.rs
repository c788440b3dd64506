//! Deterministic synthetic memory pages of the kinds real systems swap, for tests, demos and fuzz seeds
//! that must run without the development corpus.

use super::PAGE_SIZE;

/// The kinds of page [`page`] makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PageKind {
    /// All zeros (6–20% of swapped pages in fleet reports).
    Zero,
    /// One 8-byte pattern repeated.
    SameFilled,
    /// English-like text with repeated words.
    Text,
    /// Structured binary: little arrays of small integers and repeated records.
    Binary,
    /// Uniform random bytes (incompressible).
    Random,
    /// A heap-like page: pointers with a common prefix, small integers, short strings, zero gaps.
    Process,
}

impl PageKind {
    /// Every kind, in a fixed order.
    pub const ALL: [PageKind; 6] = [
        PageKind::Zero,
        PageKind::SameFilled,
        PageKind::Text,
        PageKind::Binary,
        PageKind::Random,
        PageKind::Process,
    ];

    /// A short name (`zero`, `same-filled`, …).
    pub fn name(self) -> &'static str {
        match self {
            PageKind::Zero => "zero",
            PageKind::SameFilled => "same-filled",
            PageKind::Text => "text",
            PageKind::Binary => "binary",
            PageKind::Random => "random",
            PageKind::Process => "process",
        }
    }
}

/// A small deterministic generator (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const WORDS: [&str; 16] = [
    "the ",
    "page ",
    "warp ",
    "compress ",
    "memory ",
    "of ",
    "and ",
    "lane ",
    "block ",
    "kernel ",
    "zram ",
    "a ",
    "to ",
    "match ",
    "offset ",
    "literal ",
];

/// A page of `kind`, the same for the same `seed`.
pub fn page(kind: PageKind, seed: u64) -> [u8; PAGE_SIZE] {
    let mut rng = Rng(seed ^ (kind as u64).wrapping_mul(0xA076_1D64_78BD_642F));
    let mut p = [0u8; PAGE_SIZE];
    match kind {
        PageKind::Zero => {}
        PageKind::SameFilled => {
            let pattern = (rng.next() | 1).to_le_bytes();
            for chunk in p.chunks_mut(8) {
                chunk.copy_from_slice(&pattern);
            }
        }
        PageKind::Text => {
            let mut at = 0;
            while at < PAGE_SIZE {
                let w = WORDS[rng.below(WORDS.len() as u64) as usize].as_bytes();
                let n = w.len().min(PAGE_SIZE - at);
                p[at..at + n].copy_from_slice(&w[..n]);
                at += n;
            }
        }
        PageKind::Binary => {
            let record: Vec<u8> = (0..24).map(|_| rng.below(256) as u8).collect();
            for (i, chunk) in p.chunks_mut(24).enumerate() {
                if rng.below(4) == 0 {
                    let v = (i as u32 * 3 + rng.below(5) as u32).to_le_bytes();
                    for (j, b) in chunk.iter_mut().enumerate() {
                        *b = v[j % 4];
                    }
                } else {
                    chunk.copy_from_slice(&record[..chunk.len()]);
                }
            }
        }
        PageKind::Random => {
            for chunk in p.chunks_mut(8) {
                chunk.copy_from_slice(&rng.next().to_le_bytes());
            }
        }
        PageKind::Process => {
            let base = 0x0000_7f00_0000_0000u64 | (rng.below(1 << 20) << 12);
            for slot in p.chunks_mut(8) {
                let v = match rng.below(10) {
                    0..=3 => base + rng.below(1 << 16) * 16, // a pointer into the same heap
                    4..=5 => rng.below(256),                 // a small integer
                    6 => u64::from_le_bytes(*b"str_name"),   // a repeated short string
                    7 => rng.next(),                         // noise
                    _ => 0,                                  // padding
                };
                slot.copy_from_slice(&v.to_le_bytes());
            }
        }
    }
    p
}
