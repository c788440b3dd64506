//! Compression levels: how hard the parse looks for matches. Every level writes plain LZ4 blocks that
//! every decoder reads; a higher level finds longer matches at a higher kernel cost.

use std::fmt;

/// How hard the compressor searches: the chain depth, the lazy steps and the "nice" length.
///
/// At each match start the parse tries the first [`depth`](Self::depth) entries of the position's hash
/// chain (most recent first) and keeps the longest match, comparing lengths only up to
/// [`nice`](Self::nice) bytes (ties keep the most recent; a match reaching `nice` is then extended as
/// far as it goes). Before taking a match shorter than `nice`, it looks up to [`lazy`](Self::lazy)
/// positions ahead for a longer one and, when one is found, starts there instead.
///
/// The levels and what they buy on the development corpus are measured in `docs/lz4.md`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Lz4Level {
    number: u8,
    depth: u32,
    lazy: u32,
    nice: u32,
}

impl Lz4Level {
    /// Level 1: 8 chain entries, no lazy step; the cheapest kernel.
    pub const FAST: Lz4Level = Lz4Level {
        number: 1,
        depth: 8,
        lazy: 0,
        nice: 32,
    };
    /// Level 2, the default: 64 chain entries, one lazy step.
    pub const DEFAULT: Lz4Level = Lz4Level {
        number: 2,
        depth: 64,
        lazy: 1,
        nice: 32,
    };
    /// Level 3: 128 chain entries, two lazy steps, lengths compared up to 64 bytes.
    pub const HIGH: Lz4Level = Lz4Level {
        number: 3,
        depth: 128,
        lazy: 2,
        nice: 64,
    };
    /// Every level, lowest first.
    pub const ALL: [Lz4Level; 3] = [Lz4Level::FAST, Lz4Level::DEFAULT, Lz4Level::HIGH];

    /// The level with this number (1, 2 or 3).
    pub fn from_number(number: u8) -> Result<Lz4Level, UnknownLevel> {
        Lz4Level::ALL
            .into_iter()
            .find(|l| l.number == number)
            .ok_or(UnknownLevel(number))
    }

    /// A level with other settings, for measuring what they buy (`examples/level_sweep.rs`): `depth`
    /// 1..=4096 chain entries, `lazy` 0..=8 steps, `nice` 4..=128 bytes (the kernel's lanes hold the
    /// 128 bytes after a position). Its number is 0.
    pub fn custom(depth: u32, lazy: u32, nice: u32) -> Result<Lz4Level, String> {
        if !(1..=4096).contains(&depth) || lazy > 8 || !(4..=128).contains(&nice) {
            return Err(format!(
                "depth {depth}, lazy {lazy}, nice {nice}: a level needs depth 1..=4096, lazy 0..=8 \
                 and nice 4..=128"
            ));
        }
        Ok(Lz4Level {
            number: 0,
            depth,
            lazy,
            nice,
        })
    }

    /// The level's number (1 = fast, 2 = default, 3 = high; 0 for a [custom](Self::custom) one).
    pub const fn number(self) -> u8 {
        self.number
    }

    /// Chain entries tried at each match start.
    pub const fn depth(self) -> u32 {
        self.depth
    }

    /// Positions the parse looks ahead for a longer match before taking one.
    pub const fn lazy(self) -> u32 {
        self.lazy
    }

    /// Matches are compared up to this many bytes; one that long is taken as found.
    pub const fn nice(self) -> u32 {
        self.nice
    }
}

impl Default for Lz4Level {
    fn default() -> Self {
        Lz4Level::DEFAULT
    }
}

impl fmt::Display for Lz4Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.number {
            0 => write!(f, "custom level"),
            n => write!(f, "level {n}"),
        }?;
        write!(
            f,
            " (depth {}, lazy {}, nice {})",
            self.depth, self.lazy, self.nice
        )
    }
}

/// A level number that is not 1, 2 or 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownLevel(pub u8);

impl fmt::Display for UnknownLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no LZ4 level {}: the levels are 1 (fast), 2 (default) and 3 (high)",
            self.0
        )
    }
}

impl std::error::Error for UnknownLevel {}
