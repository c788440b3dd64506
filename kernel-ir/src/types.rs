//! Scalar types, buffer access modes and literals.

use std::fmt;

/// The scalar types a value, a buffer element or a shared-array element can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarType {
    /// A predicate (`pred` in PTX, `bool` in WGSL). Never stored in memory.
    Bool,
    /// Unsigned 8-bit integer.
    U8,
    /// Unsigned 16-bit integer.
    U16,
    /// Unsigned 32-bit integer.
    U32,
    /// Unsigned 64-bit integer.
    U64,
    /// Signed 32-bit integer.
    I32,
    /// Signed 64-bit integer.
    I64,
    /// IEEE 754 single precision.
    F32,
    /// IEEE 754 half precision (binary16). A storage and conversion type: the IR computes on it
    /// only through [`crate::CastKind::FloatConvert`] (the builder widens to `f32`, computes and
    /// rounds once); registers hold its bits zero-extended, as a `u16`'s.
    F16,
    /// bfloat16 (the upper half of an `f32`): a storage and conversion type, as [`ScalarType::F16`].
    BF16,
    /// IEEE 754 double precision: full arithmetic on the simulators and PTX; WGSL has no `f64`, so the
    /// WGSL emitter refuses a kernel that holds one, naming the statement.
    F64,
}

impl ScalarType {
    /// Every scalar type, in a fixed order (used by generators and parsers).
    pub const ALL: [ScalarType; 11] = [
        ScalarType::Bool,
        ScalarType::U8,
        ScalarType::U16,
        ScalarType::U32,
        ScalarType::U64,
        ScalarType::I32,
        ScalarType::I64,
        ScalarType::F32,
        ScalarType::F16,
        ScalarType::BF16,
        ScalarType::F64,
    ];

    /// Width in bits (`Bool` counts as 1).
    #[inline]
    pub const fn bits(self) -> u32 {
        match self {
            ScalarType::Bool => 1,
            ScalarType::U8 => 8,
            ScalarType::U16 | ScalarType::F16 | ScalarType::BF16 => 16,
            ScalarType::U32 | ScalarType::I32 | ScalarType::F32 => 32,
            ScalarType::U64 | ScalarType::I64 | ScalarType::F64 => 64,
        }
    }

    /// Size in bytes when stored in memory; `None` for `Bool`, which cannot be stored.
    #[inline]
    pub const fn size_bytes(self) -> Option<u32> {
        match self {
            ScalarType::Bool => None,
            other => Some(other.bits() / 8),
        }
    }

    /// Whether this is an integer type (signed or unsigned).
    #[inline]
    pub const fn is_integer(self) -> bool {
        self.is_unsigned() || self.is_signed()
    }

    /// Whether this is an unsigned integer type.
    #[inline]
    pub const fn is_unsigned(self) -> bool {
        matches!(
            self,
            ScalarType::U8 | ScalarType::U16 | ScalarType::U32 | ScalarType::U64
        )
    }

    /// Whether this is a signed integer type.
    #[inline]
    pub const fn is_signed(self) -> bool {
        matches!(self, ScalarType::I32 | ScalarType::I64)
    }

    /// Whether this is a floating-point type.
    #[inline]
    pub const fn is_float(self) -> bool {
        matches!(
            self,
            ScalarType::F16 | ScalarType::BF16 | ScalarType::F32 | ScalarType::F64
        )
    }

    /// Whether this is a 16-bit float (`f16`, `bf16`): stored and converted, computed on in `f32`.
    #[inline]
    pub const fn is_half(self) -> bool {
        matches!(self, ScalarType::F16 | ScalarType::BF16)
    }

    /// The keyword used in the text form (`u32`, `bool`, …).
    pub const fn name(self) -> &'static str {
        match self {
            ScalarType::Bool => "bool",
            ScalarType::U8 => "u8",
            ScalarType::U16 => "u16",
            ScalarType::U32 => "u32",
            ScalarType::U64 => "u64",
            ScalarType::I32 => "i32",
            ScalarType::I64 => "i64",
            ScalarType::F32 => "f32",
            ScalarType::F16 => "f16",
            ScalarType::BF16 => "bf16",
            ScalarType::F64 => "f64",
        }
    }

    /// Parses a type keyword of the text form.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a kernel may touch a global buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Loads only; stores and atomics are rejected by the verifier.
    ReadOnly,
    /// Loads, stores and atomics.
    ReadWrite,
}

crate::expr::keyword_table!(Access { ReadOnly => "read", ReadWrite => "read_write" });

/// A constant of a scalar type. Floats are kept as their bit pattern so that literals compare and hash
/// exactly (NaN payloads and `-0.0` survive the text form).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Literal {
    /// A predicate constant.
    Bool(bool),
    /// A `u8` constant.
    U8(u8),
    /// A `u16` constant.
    U16(u16),
    /// A `u32` constant.
    U32(u32),
    /// A `u64` constant.
    U64(u64),
    /// An `i32` constant.
    I32(i32),
    /// An `i64` constant.
    I64(i64),
    /// An `f32` constant, as its IEEE 754 bits.
    F32Bits(u32),
    /// An `f16` constant, as its bits.
    F16Bits(u16),
    /// A `bf16` constant, as its bits.
    BF16Bits(u16),
    /// An `f64` constant, as its IEEE 754 bits.
    F64Bits(u64),
}

impl Literal {
    /// An `f32` literal.
    pub fn f32(value: f32) -> Self {
        Literal::F32Bits(value.to_bits())
    }

    /// An `f64` literal.
    pub fn f64(value: f64) -> Self {
        Literal::F64Bits(value.to_bits())
    }

    /// An `f16` literal: `value` rounded to nearest, ties to even.
    pub fn f16(value: f64) -> Self {
        Literal::F16Bits(half::f16::from_f32(f32_round_to_odd(value)).to_bits())
    }

    /// A `bf16` literal: `value` rounded to nearest, ties to even.
    pub fn bf16(value: f64) -> Self {
        Literal::BF16Bits(half::bf16::from_f32(f32_round_to_odd(value)).to_bits())
    }

    /// The type of this literal.
    pub const fn ty(self) -> ScalarType {
        match self {
            Literal::Bool(_) => ScalarType::Bool,
            Literal::U8(_) => ScalarType::U8,
            Literal::U16(_) => ScalarType::U16,
            Literal::U32(_) => ScalarType::U32,
            Literal::U64(_) => ScalarType::U64,
            Literal::I32(_) => ScalarType::I32,
            Literal::I64(_) => ScalarType::I64,
            Literal::F32Bits(_) => ScalarType::F32,
            Literal::F16Bits(_) => ScalarType::F16,
            Literal::BF16Bits(_) => ScalarType::BF16,
            Literal::F64Bits(_) => ScalarType::F64,
        }
    }

    /// The literal's bits, zero-extended to 64 (signed values as two's complement of their width).
    pub const fn to_bits(self) -> u64 {
        match self {
            Literal::Bool(b) => b as u64,
            Literal::U8(v) => v as u64,
            Literal::U16(v) => v as u64,
            Literal::U32(v) => v as u64,
            Literal::U64(v) => v,
            Literal::I32(v) => v as u32 as u64,
            Literal::I64(v) => v as u64,
            Literal::F32Bits(v) => v as u64,
            Literal::F16Bits(v) | Literal::BF16Bits(v) => v as u64,
            Literal::F64Bits(v) => v,
        }
    }

    /// The literal of type `ty` whose bits are the low bits of `bits`.
    pub const fn from_bits(ty: ScalarType, bits: u64) -> Self {
        match ty {
            ScalarType::Bool => Literal::Bool(bits & 1 != 0),
            ScalarType::U8 => Literal::U8(bits as u8),
            ScalarType::U16 => Literal::U16(bits as u16),
            ScalarType::U32 => Literal::U32(bits as u32),
            ScalarType::U64 => Literal::U64(bits),
            ScalarType::I32 => Literal::I32(bits as u32 as i32),
            ScalarType::I64 => Literal::I64(bits as i64),
            ScalarType::F32 => Literal::F32Bits(bits as u32),
            ScalarType::F16 => Literal::F16Bits(bits as u16),
            ScalarType::BF16 => Literal::BF16Bits(bits as u16),
            ScalarType::F64 => Literal::F64Bits(bits),
        }
    }
}

/// `x` rounded to odd as an `f32`: truncated toward zero, the lowest bit set when that was inexact.
/// Rounding that to a half (to nearest even) is the correctly rounded half of `x`: an `f32` holds
/// more than twice a half's precision plus two bits. (`half`'s own `from_f64` drops the low 32 bits
/// of the significand before rounding, so a value just above a tie could round down.)
fn f32_round_to_odd(x: f64) -> f32 {
    let nearest = x as f32;
    if x.is_nan() || f64::from(nearest) == x {
        return nearest;
    }
    let mut bits = nearest.to_bits();
    if !nearest.is_finite() || f64::from(nearest).abs() > x.abs() {
        bits -= 1; // one step toward zero (∞ steps to the largest finite value)
    }
    f32::from_bits(bits | 1)
}

impl fmt::Display for Literal {
    /// Prints the value as the text form writes it (the type is printed separately). Finite floats use
    /// Rust's shortest round-trip form; infinities and NaNs print as `bits(0x…)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Literal::Bool(b) => write!(f, "{b}"),
            Literal::U8(v) => write!(f, "{v}"),
            Literal::U16(v) => write!(f, "{v}"),
            Literal::U32(v) => write!(f, "{v}"),
            Literal::U64(v) => write!(f, "{v}"),
            Literal::I32(v) => write!(f, "{v}"),
            Literal::I64(v) => write!(f, "{v}"),
            Literal::F32Bits(bits) => {
                let v = f32::from_bits(bits);
                if v.is_finite() {
                    write!(f, "{v:?}")
                } else {
                    write!(f, "bits(0x{bits:08x})")
                }
            }
            Literal::F64Bits(bits) => {
                let v = f64::from_bits(bits);
                if v.is_finite() {
                    write!(f, "{v:?}")
                } else {
                    write!(f, "bits(0x{bits:016x})")
                }
            }
            // A half prints as its value when the value reads back to the same bits (every finite
            // half does: its shortest f32 form rounds back), else as its bits.
            Literal::F16Bits(bits) => {
                let v = half::f16::from_bits(bits);
                if v.is_finite() {
                    write!(f, "{:?}", v.to_f32())
                } else {
                    write!(f, "bits(0x{bits:04x})")
                }
            }
            Literal::BF16Bits(bits) => {
                let v = half::bf16::from_bits(bits);
                if v.is_finite() {
                    write!(f, "{:?}", v.to_f32())
                } else {
                    write!(f, "bits(0x{bits:04x})")
                }
            }
        }
    }
}
