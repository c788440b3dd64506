//! The decoded form of the less common floating-point instructions ([`FloatX`], one
//! `Op::FloatX` variant): half-precision arithmetic, comparisons and conversions on `.f16`,
//! `.bf16` and their packed pairs `.f16x2`, `.bf16x2` (`decode_half.rs`, `exec_half.rs`), `set`,
//! `testp` and `copysign`.

use super::inst_types::{BoolOp, Cmp, Int, Rnd, R};

/// A 16-bit floating-point format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HFmt {
    F16,
    Bf16,
}

/// Half-precision arithmetic (each on one half, or on both halves of a packed pair).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HArith {
    Add,
    Sub,
    Mul,
    Fma,
    Min,
    Max,
    Neg,
    Abs,
    /// `ex2.approx` and `tanh.approx`: the function's value rounded to nearest (`exec_half.rs`).
    Ex2,
    Tanh,
}

/// Modifiers of half-precision arithmetic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct HMods {
    /// Subnormal inputs and results flushed to a zero of their sign.
    pub ftz: bool,
    /// Clamped to [0, 1], NaN to +0.
    pub sat: bool,
    /// Negative results to +0, NaN canonical.
    pub relu: bool,
    /// `min`/`max.NaN`: NaN when either operand is.
    pub nan: bool,
    /// `min`/`max.xorsign.abs`.
    pub xorsign_abs: bool,
}

/// A type of a conversion with a half on one side at least.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CvtTy {
    Int(Int),
    F32,
    F64,
    Half(HFmt),
}

/// Modifiers of such a conversion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CvtMods {
    pub ftz: bool,
    pub sat: bool,
    pub relu: bool,
    pub satfinite: bool,
    /// `.rni`/`.rzi`/`.rmi`/`.rpi`: to an integral value.
    pub integral: bool,
}

/// What a comparison reads: a half (one, or a packed pair), or another type of `set`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CmpSrc {
    Half { fmt: HFmt, packed: bool },
    Int(Int),
    F32,
    F64,
}

/// What `set` writes for "true" (false is 0 in every type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SetDst {
    /// All ones of this many bits (`.u16`/`.s16`: 16, `.u32`/`.s32`: 32); per half when packed.
    Ones(u32),
    /// `1.0` in this format (per half when packed).
    Half(HFmt),
    /// `1.0f`.
    F32,
}

/// The classes `testp` tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TestClass {
    Finite,
    Infinite,
    Number,
    NotANumber,
    Normal,
    Subnormal,
}

/// A less common floating-point instruction.
#[derive(Clone, Debug)]
pub(crate) enum FloatX {
    /// `add`, `sub`, `mul`, `fma`, `min`, `max`, `neg`, `abs`, `ex2`, `tanh` on halves (`b`, `c`
    /// are `a` where the operation has fewer operands).
    Arith {
        op: HArith,
        fmt: HFmt,
        packed: bool,
        mods: HMods,
        d: R,
        a: R,
        b: R,
        c: R,
    },
    /// `setp` on halves; on a packed pair `p` is the lower halves' result and `q` the upper's.
    Setp {
        cmp: Cmp,
        fmt: HFmt,
        packed: bool,
        ftz: bool,
        p: Option<R>,
        q: Option<R>,
        a: R,
        b: R,
        combine: Option<(BoolOp, R, bool)>,
    },
    /// `set`: the comparison (per half when the source is packed), as `dst`'s true or 0.
    Set {
        cmp: Cmp,
        src: CmpSrc,
        dst: SetDst,
        ftz: bool,
        d: R,
        a: R,
        b: R,
        combine: Option<(BoolOp, R, bool)>,
    },
    /// `cvt` with a half on one side; `b` is the second source of `cvt.f16x2.f32 d, a, b` (then
    /// `to` is the element format and `a` goes to the upper half).
    Cvt {
        to: CvtTy,
        from: CvtTy,
        rnd: Rnd,
        mods: CvtMods,
        d: R,
        a: R,
        b: Option<R>,
    },
    /// `testp.class.{f32,f64}`.
    Testp {
        class: TestClass,
        f64: bool,
        d: R,
        a: R,
    },
    /// `copysign.{f32,f64} d, a, b`: `b` with `a`'s sign.
    Copysign { f64: bool, d: R, a: R, b: R },
}
