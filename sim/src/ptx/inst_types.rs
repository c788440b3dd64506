//! The vocabulary of decoded instructions (`inst.rs`): register indices, integer and float types,
//! the arithmetic, comparison and rounding modifiers every instruction family shares.

/// A register index into a warp's register file.
pub(crate) type R = u32;

/// An integer type: its width in bits (1 for predicates) and signedness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Int {
    pub bits: u32,
    pub signed: bool,
}

impl Int {
    /// The low `bits` of `v`.
    #[inline]
    pub fn trunc(self, v: u64) -> u64 {
        if self.bits >= 64 {
            v
        } else {
            v & ((1u64 << self.bits) - 1)
        }
    }

    /// `v`'s low `bits` as a signed value (sign-extended when signed, zero-extended otherwise).
    #[inline]
    pub fn value(self, v: u64) -> i128 {
        if self.signed {
            let shift = 64 - self.bits;
            i128::from(((v << shift) as i64) >> shift)
        } else {
            i128::from(self.trunc(v))
        }
    }
}

/// A value type of a conversion or a memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    Int(Int),
    F32,
    F64,
}

impl Ty {
    /// Its width in bits.
    pub fn bits(self) -> u32 {
        match self {
            Ty::Int(i) => i.bits,
            Ty::F32 => 32,
            Ty::F64 => 64,
        }
    }
}

/// Two-operand integer operations (also `and`/`or`/`xor` on predicates, as 1-bit integers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntBin {
    Add,
    Sub,
    /// `add.sat.s32` / `sub.sat.s32`: clamped to the signed range.
    AddSat,
    SubSat,
    MulLo,
    MulHi,
    Div,
    Rem,
    Min,
    Max,
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

/// One-operand integer operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntUn {
    Neg,
    Not,
    /// `cnot`: 1 when the operand is 0, else 0.
    CNot,
    Abs,
    /// Results are `u32`.
    Popc,
    Clz,
    Brev,
    Bfind {
        shiftamt: bool,
    },
}

/// `mad`'s and `mul`'s product halves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Half {
    Lo,
    Hi,
    /// The full product, twice the operands' width.
    Wide,
}

/// Comparisons of `setp` (the unsigned and unordered ones included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Unordered float comparisons: true when either operand is NaN.
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    /// Both operands are numbers / either is NaN.
    Num,
    Nan,
}

/// How `setp` combines its comparison with a third predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BoolOp {
    And,
    Or,
    Xor,
}

/// What `setp` compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CmpTy {
    Int(Int),
    /// With `.ftz`: subnormal operands compare as zero.
    F32 {
        ftz: bool,
    },
    F64,
}

/// The floating-point type of an arithmetic instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FTy {
    F32,
    F64,
}

impl FTy {
    /// Its width in bits.
    pub fn bits(self) -> u32 {
        match self {
            FTy::F32 => 32,
            FTy::F64 => 64,
        }
    }
}

/// Floating-point operations with two operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FBin {
    Add,
    Sub,
    Mul,
    /// `div.rn`/`.rz`/`.rm`/`.rp` (IEEE, the rounding in [`FMods::rnd`]), `div.full` and
    /// `div.approx` (see `exec_float.rs`).
    Div(DivKind),
    Min,
    Max,
    /// `min.NaN` / `max.NaN`: NaN when either operand is.
    MinNan,
    MaxNan,
}

/// The flavours of `div.f32` (`div.f64` is always `Ieee`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DivKind {
    /// Correctly rounded in the instruction's rounding direction.
    Ieee,
    Full,
    Approx,
}

/// Floating-point operations with one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FUn {
    Neg,
    Abs,
    /// `sqrt.rnd` (and `sqrt.approx.f32`).
    Sqrt,
    /// `rcp.rnd` (and `rcp.approx.f32`).
    Rcp,
    /// `rcp.approx.ftz.f64`: the reciprocal of the operand's upper 32 bits (`exec_f64.rs`).
    RcpGross,
    /// The `.approx` functions (`approx.rs`).
    Ex2,
    Lg2,
    Sin,
    Cos,
    Rsqrt,
    Tanh,
}

/// Modifiers a floating-point arithmetic instruction may carry (`.ftz` and `.sat` on `f32` only).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct FMods {
    /// Flush subnormal inputs and results to sign-preserving zero.
    pub ftz: bool,
    /// Clamp the result to [0.0, 1.0] (NaN gives +0.0).
    pub sat: bool,
    /// The rounding direction (`None`: to nearest even, the default).
    pub rnd: Rnd,
}

/// A rounding direction: of an arithmetic instruction (`.rn`, `.rz`, `.rm`, `.rp`) or of a
/// conversion (those, or `.rni`, `.rzi`, `.rmi`, `.rpi` to an integral value).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Rnd {
    /// None given (integer conversions; float→float of one size without rounding; arithmetic
    /// without a modifier, which rounds to nearest even).
    #[default]
    None,
    /// To nearest even; `rni` for float→integer.
    Nearest,
    /// Toward zero; `rzi`.
    Zero,
    /// Toward −∞; `rmi`.
    Down,
    /// Toward +∞; `rpi`.
    Up,
}
