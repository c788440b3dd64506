//! The LZ4 block format's constants as warpforge uses them (a 4 KiB page, a 12-bit hash), the hash,
//! and [`Lz4Error`].

use std::fmt;

/// Bytes in a memory page: the unit the kernels compress.
pub const PAGE_SIZE: usize = 4096;
/// The shortest match LZ4 can encode.
pub const LZ4_MIN_MATCH: usize = 4;
/// The longest match a page can hold under the end-of-block rules: it must start at offset ≥ 1 and end
/// before the last 5 literals (`4096 − 5 − 1`). Longer inputs allow longer matches; lengths of any size
/// are encoded.
pub const LZ4_MAX_MATCH: usize = PAGE_SIZE - LZ4_LAST_LITERALS - 1;
/// Bits of the hash: the table has `1 << LZ4_HASH_BITS` entries.
pub const LZ4_HASH_BITS: u32 = 12;
/// Entries in the hash table (each a 16-bit position in shared memory).
pub const LZ4_HASH_SIZE: usize = 1 << LZ4_HASH_BITS;
/// Knuth's multiplicative hash constant (2^32 / φ), as in liblz4.
pub const LZ4_HASH_MULT: u32 = 2_654_435_761;
/// The largest offset the LZ4 format can encode (a page only ever needs 4095).
pub const LZ4_MAX_OFFSET: usize = 65_535;
/// The last 5 bytes of a block are always literals.
pub const LZ4_LAST_LITERALS: usize = 5;
/// No match starts within the last 12 bytes of a block.
pub const LZ4_MF_LIMIT: usize = 12;

/// The hash of a little-endian 4-byte word: its top [`LZ4_HASH_BITS`] bits after multiplying by
/// [`LZ4_HASH_MULT`].
pub const fn lz4_hash(word: u32) -> u32 {
    word.wrapping_mul(LZ4_HASH_MULT) >> (32 - LZ4_HASH_BITS)
}

/// Why a block could not be compressed or decompressed. Offsets are byte positions in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lz4Error {
    /// The output buffer is too small.
    OutputTooSmall {
        /// Bytes needed (at least).
        needed: usize,
        /// Bytes available.
        available: usize,
    },
    /// The input is longer than the format's 64 KiB window allows for one block here.
    InputTooLarge {
        /// The input length.
        len: usize,
    },
    /// The compressed block is malformed.
    Malformed {
        /// Byte offset in the compressed block where decoding failed.
        at: usize,
        /// What was wrong.
        reason: &'static str,
    },
}

impl fmt::Display for Lz4Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Lz4Error::OutputTooSmall { needed, available } => {
                write!(
                    f,
                    "output buffer too small: {needed} bytes needed, {available} available"
                )
            }
            Lz4Error::InputTooLarge { len } => {
                write!(f, "input of {len} bytes exceeds the 65536-byte block limit")
            }
            Lz4Error::Malformed { at, reason } => {
                write!(f, "malformed LZ4 block at byte {at}: {reason}")
            }
        }
    }
}

impl std::error::Error for Lz4Error {}
