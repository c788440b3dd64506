//! PTX virtual registers: one class per PTX register type, numbered in allocation order.
//!
//! IR types map to classes as follows: `bool` → `.pred`; `u8`, `u16`, `u32`, `i32` → `.b32` (8- and
//! 16-bit values are kept zero-extended, so their upper bits are always 0); `u64`, `i64` → `.b64`;
//! `f32` → `.f32`; `f64` → `.f64`; `f16`, `bf16` → `.b32` (their bits zero-extended, as a `u16`'s;
//! `.b16` registers are temporaries of the conversions only).

use std::fmt;

use warpforge_ir::ScalarType;

/// A PTX register class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegClass {
    /// `.pred`, `%p<n>`.
    Pred,
    /// `.b32`, `%r<n>`.
    B32,
    /// `.b64`, `%rd<n>`.
    B64,
    /// `.f32`, `%f<n>`.
    F32,
    /// `.f64`, `%fd<n>`.
    F64,
    /// `.b16`, `%rs<n>`: the operand of `cvt` to and from `.f16`.
    B16,
}

impl RegClass {
    /// Every class, in declaration order.
    pub const ALL: [RegClass; 6] = [
        RegClass::Pred,
        RegClass::B32,
        RegClass::B64,
        RegClass::F32,
        RegClass::F64,
        RegClass::B16,
    ];

    /// The class holding values of `ty`.
    pub fn of(ty: ScalarType) -> RegClass {
        match ty {
            ScalarType::Bool => RegClass::Pred,
            ScalarType::U8
            | ScalarType::U16
            | ScalarType::U32
            | ScalarType::I32
            | ScalarType::F16
            | ScalarType::BF16 => RegClass::B32,
            ScalarType::U64 | ScalarType::I64 => RegClass::B64,
            ScalarType::F32 => RegClass::F32,
            ScalarType::F64 => RegClass::F64,
        }
    }

    /// The PTX type of the declaration.
    pub fn ptx_type(self) -> &'static str {
        match self {
            RegClass::Pred => "pred",
            RegClass::B32 => "b32",
            RegClass::B64 => "b64",
            RegClass::F32 => "f32",
            RegClass::F64 => "f64",
            RegClass::B16 => "b16",
        }
    }

    /// The register name prefix.
    pub fn prefix(self) -> &'static str {
        match self {
            RegClass::Pred => "%p",
            RegClass::B32 => "%r",
            RegClass::B64 => "%rd",
            RegClass::F32 => "%f",
            RegClass::F64 => "%fd",
            RegClass::B16 => "%rs",
        }
    }

    fn slot(self) -> usize {
        self as usize
    }
}

/// A virtual register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reg {
    /// Its class.
    pub class: RegClass,
    /// Its number within the class.
    pub index: u32,
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.class.prefix(), self.index)
    }
}

/// Hands out registers in order; the counts become the `.reg` declarations.
#[derive(Clone, Debug, Default)]
pub struct RegAllocator {
    counts: [u32; RegClass::ALL.len()],
}

impl RegAllocator {
    /// A fresh register of `class`.
    pub fn fresh(&mut self, class: RegClass) -> Reg {
        let index = self.counts[class.slot()];
        self.counts[class.slot()] += 1;
        Reg { class, index }
    }

    /// How many registers of each class were handed out, in [`RegClass::ALL`] order.
    pub fn counts(&self) -> [u32; RegClass::ALL.len()] {
        self.counts
    }
}
