//! Integer and float literals as PTX writes them (`0f3F800000`, `0x10U`, `-7`).

/// How an integer literal was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Radix {
    /// `42`
    Decimal,
    /// `0x2a`
    Hex,
    /// `052`
    Octal,
    /// `0b101010`
    Binary,
}

impl Radix {
    /// The radix's name for messages.
    pub fn name(self) -> &'static str {
        match self {
            Radix::Decimal => "decimal",
            Radix::Hex => "hex",
            Radix::Octal => "octal",
            Radix::Binary => "binary",
        }
    }
}

/// An integer literal: sign, magnitude, how it was written, and PTX's `U` suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntImm {
    /// Written with a leading `-`.
    pub negative: bool,
    /// The digits' value.
    pub magnitude: u64,
    /// How the digits were written.
    pub radix: Radix,
    /// Written with the `U` suffix.
    pub unsigned: bool,
}

impl IntImm {
    /// A decimal literal of `value`.
    pub fn decimal(value: i64) -> IntImm {
        IntImm {
            negative: value < 0,
            magnitude: value.unsigned_abs(),
            radix: Radix::Decimal,
            unsigned: false,
        }
    }

    /// The value as 64 bits, two's complement (`0xffffffffffffffff` and `-1` are the same bits).
    pub fn value(&self) -> i64 {
        let v = self.magnitude as i64;
        if self.negative {
            v.wrapping_neg()
        } else {
            v
        }
    }
}

/// A float literal.
#[derive(Clone, Debug, PartialEq)]
pub enum FloatImm {
    /// `0f3F800000`: an `f32`'s bits.
    F32Bits(u32),
    /// `0d3FF0000000000000`: an `f64`'s bits.
    F64Bits(u64),
    /// A decimal literal as written (`1.5`, `-2e3`).
    Decimal(String),
}

impl FloatImm {
    /// The value as `f64` (a decimal literal that does not read as a number gives NaN).
    pub fn value(&self) -> f64 {
        match self {
            FloatImm::F32Bits(bits) => f64::from(f32::from_bits(*bits)),
            FloatImm::F64Bits(bits) => f64::from_bits(*bits),
            FloatImm::Decimal(text) => text.parse().unwrap_or(f64::NAN),
        }
    }
}
