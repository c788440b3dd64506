//! Compression levels: how hard the parse looks for matches. Every level writes plain LZ4 blocks that
//! every decoder reads; a higher level finds longer matches at a higher kernel cost. Level 0 is the
//! throughput level: one hash table, no chains (see [`super::encode_fast`]).

use std::fmt;

/// How hard the compressor searches: the chain depth, the lazy steps and the "nice" length.
///
/// At each match start the parse tries the first [`depth`](Self::depth) entries of the position's hash
/// chain (most recent first) and keeps the longest match, comparing lengths only up to
/// [`nice`](Self::nice) bytes (ties keep the most recent; a match reaching `nice` is then extended as
/// far as it goes). Before taking a match shorter than `nice`, it looks up to [`lazy`](Self::lazy)
/// positions ahead for a longer one and, when one is found, starts there instead.
///
/// Level 0, [`THROUGHPUT`](Self::THROUGHPUT), searches differently: a greedy parse against one hash
/// table of the most recent position per hash (depth, lazy and nice do not apply).
///
/// The levels and what they buy on the development corpus are measured in `docs/lz4.md`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Lz4Level {
    number: u8,
    depth: u32,
    lazy: u32,
    nice: u32,
    chains: bool,
}

impl Lz4Level {
    /// Level 0, for speed over ratio: a greedy parse in which every position tried is looked up in,
    /// then written to, a hash table of the most recent position per hash (LZ4's fast parse without its
    /// skipping); a match is taken at the first position whose table entry holds the same 4 bytes and
    /// extended as far as it goes. The kernel tries 32 consecutive positions per warp step.
    pub const THROUGHPUT: Lz4Level = Lz4Level {
        number: 0,
        depth: 1,
        lazy: 0,
        nice: 4096,
        chains: false,
    };
    /// Level 1: 8 chain entries, no lazy step; the cheapest kernel.
    pub const FAST: Lz4Level = Lz4Level {
        number: 1,
        depth: 8,
        lazy: 0,
        nice: 32,
        chains: true,
    };
    /// Level 2, the default: 64 chain entries, one lazy step.
    pub const DEFAULT: Lz4Level = Lz4Level {
        number: 2,
        depth: 64,
        lazy: 1,
        nice: 32,
        chains: true,
    };
    /// Level 3: 128 chain entries, two lazy steps, lengths compared up to 64 bytes.
    pub const HIGH: Lz4Level = Lz4Level {
        number: 3,
        depth: 128,
        lazy: 2,
        nice: 64,
        chains: true,
    };
    /// Every level, lowest first.
    pub const ALL: [Lz4Level; 4] = [
        Lz4Level::THROUGHPUT,
        Lz4Level::FAST,
        Lz4Level::DEFAULT,
        Lz4Level::HIGH,
    ];
    /// The number of a [custom](Self::custom) level.
    pub const CUSTOM_NUMBER: u8 = u8::MAX;

    /// The level with this number (0, 1, 2 or 3).
    pub fn from_number(number: u8) -> Result<Lz4Level, UnknownLevel> {
        Lz4Level::ALL
            .into_iter()
            .find(|l| l.number == number)
            .ok_or(UnknownLevel(number))
    }

    /// A level with other settings, for measuring what they buy (`examples/level_sweep.rs`): `depth`
    /// 1..=4096 chain entries, `lazy` 0..=8 steps, `nice` 4..=128 bytes (the kernel's lanes hold the
    /// 128 bytes after a position). Its number is [`CUSTOM_NUMBER`](Self::CUSTOM_NUMBER).
    pub fn custom(depth: u32, lazy: u32, nice: u32) -> Result<Lz4Level, String> {
        if !(1..=4096).contains(&depth) || lazy > 8 || !(4..=128).contains(&nice) {
            return Err(format!(
                "depth {depth}, lazy {lazy}, nice {nice}: a level needs depth 1..=4096, lazy 0..=8 \
                 and nice 4..=128"
            ));
        }
        Ok(Lz4Level {
            number: Lz4Level::CUSTOM_NUMBER,
            depth,
            lazy,
            nice,
            chains: true,
        })
    }

    /// The level's number (0 = throughput, 1 = fast, 2 = default, 3 = high;
    /// [`CUSTOM_NUMBER`](Self::CUSTOM_NUMBER) for a [custom](Self::custom) one).
    pub const fn number(self) -> u8 {
        self.number
    }

    /// Whether the search walks hash chains (levels 1 to 3 and custom levels); `false` for the
    /// [throughput](Self::THROUGHPUT) level's single hash table.
    pub const fn uses_chains(self) -> bool {
        self.chains
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
            Lz4Level::CUSTOM_NUMBER => write!(f, "custom level"),
            0 => return write!(f, "level 0 (throughput: one hash table, greedy)"),
            n => write!(f, "level {n}"),
        }?;
        write!(
            f,
            " (depth {}, lazy {}, nice {})",
            self.depth, self.lazy, self.nice
        )
    }
}

/// A level number that is not 0, 1, 2 or 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownLevel(pub u8);

impl fmt::Display for UnknownLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no LZ4 level {}: the levels are 0 (throughput), 1 (fast), 2 (default) and 3 (high)",
            self.0
        )
    }
}

impl std::error::Error for UnknownLevel {}
