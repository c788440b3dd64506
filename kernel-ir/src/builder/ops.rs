//! Arithmetic, bit, comparison and conversion methods of [`KernelBuilder`]. The trait bounds encode the
//! typing rules of [`crate::typing`], so an ill-typed call does not compile.

use super::typed::*;
use super::KernelBuilder;
use crate::expr::{BinaryOp, CastKind, CmpOp, Expr, UnaryOp};
use crate::kernel::Value;

// On `f16`/`bf16` operands each operation is computed in `f32` and rounded once (`super::half`).
macro_rules! binary {
    ($($(#[$doc:meta])* $name:ident: $bound:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        #[must_use]
        pub fn $name<T: $bound>(&mut self, a: Val<T>, b: Val<T>) -> Val<T> {
            let op = |v: &[Value]| Expr::Binary(BinaryOp::$op, v[0], v[1]);
            self.in_f32::<T, T>(&[a.value(), b.value()], op)
        }
    )*};
}

macro_rules! compare {
    ($($(#[$doc:meta])* $name:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        #[must_use]
        pub fn $name<T: Numeric>(&mut self, a: Val<T>, b: Val<T>) -> Val<Bool> {
            let op = |v: &[Value]| Expr::Compare(CmpOp::$op, v[0], v[1]);
            self.in_f32::<T, Bool>(&[a.value(), b.value()], op)
        }
    )*};
}

macro_rules! unary {
    ($($(#[$doc:meta])* $name:ident: $bound:ident -> $out:ty => $op:ident;)*) => {$(
        $(#[$doc])*
        #[must_use]
        pub fn $name<T: $bound>(&mut self, a: Val<T>) -> Val<$out> {
            let op = |v: &[Value]| Expr::Unary(UnaryOp::$op, v[0]);
            self.in_f32::<T, $out>(&[a.value()], op)
        }
    )*};
}

impl KernelBuilder {
    binary! {
        /// `a + b` (wrapping for integers).
        add: Numeric => Add;
        /// `a - b` (wrapping for integers).
        sub: Numeric => Sub;
        /// `a * b`, low half for integers.
        mul: Numeric => Mul;
        /// High half of `a * b`.
        mul_hi: MulHigh => MulHi;
        /// `a / b`; unsigned `x / 0 == x`.
        div: Divisible => Div;
        /// `a`'s magnitude with `b`'s sign.
        copysign: Float => CopySign;
        /// `a % b`; `x % 0 == 0`.
        rem: Unsigned => Rem;
        /// Bitwise (or logical) and.
        and: Bitwise => And;
        /// Bitwise (or logical) or.
        or: Bitwise => Or;
        /// Bitwise (or logical) exclusive or.
        xor: Bitwise => Xor;
        /// Minimum.
        min: Numeric => Min;
        /// Maximum.
        max: Numeric => Max;
    }

    compare! {
        /// `a == b`.
        eq => Eq;
        /// `a != b`.
        ne => Ne;
        /// `a < b`.
        lt => Lt;
        /// `a <= b`.
        le => Le;
        /// `a > b`.
        gt => Gt;
        /// `a >= b`.
        ge => Ge;
    }

    unary! {
        /// Bitwise (or logical) not.
        not: Bitwise -> T => Not;
        /// Negation (of a half: its sign bit flipped, NaNs too, as Rust's `-`).
        neg: Negatable -> T => Neg;
        /// Number of set bits.
        popcount: Word -> U32 => PopCount;
        /// Number of leading zeros.
        clz: Word -> U32 => CountLeadingZeros;
        /// Bits in reverse order.
        brev: Word -> T => BitReverse;
        /// Index of the lowest set bit, `0xffff_ffff` for zero.
        ffs: Word -> U32 => FindFirstSet;
        /// Absolute value (wrapping on integers; the sign bit cleared on floats).
        abs: Negatable -> T => Abs;
        /// `f32` rounded down to an integer.
        floor: Float -> T => Floor;
        /// `f32` rounded up to an integer.
        ceil: Float -> T => Ceil;
        /// `f32` rounded toward zero to an integer.
        ftrunc: Float -> T => FloatTrunc;
        /// `f32` rounded to the nearest integer, ties to even.
        round_even: Float -> T => RoundEven;
        /// `f32` square root (correctly rounded where the backend's is: see `UnaryOp::Sqrt`).
        sqrt: Float -> T => Sqrt;
        /// Whether an `f32` is a NaN.
        is_nan: Float -> Bool => IsNan;
        /// Whether an `f32` is neither infinite nor NaN.
        is_finite: Float -> Bool => IsFinite;
        /// `1 / x` (correctly rounded where the backend's division is: see `UnaryOp::Recip`).
        recip: Float -> T => Recip;
        /// `1 / sqrt(x)`, within the backend's bound (`UnaryOp::Rsqrt`).
        rsqrt: Transcendental -> T => Rsqrt;
        /// `log2(x)`, within the backend's bound (`UnaryOp::Log2`).
        log2: Transcendental -> T => Log2;
        /// The target's `2^x` without argument reduction (`UnaryOp::Exp2`); [`KernelBuilder::exp2`]
        /// is what kernels call.
        raw_exp2: Transcendental -> T => Exp2;
        /// The target's `sin(x)` without argument reduction (`UnaryOp::Sin`); [`KernelBuilder::sin`]
        /// is what kernels call.
        raw_sin: Transcendental -> T => Sin;
        /// The target's `cos(x)` without argument reduction (`UnaryOp::Cos`); [`KernelBuilder::cos`]
        /// is what kernels call.
        raw_cos: Transcendental -> T => Cos;
    }

    /// `a * b + c` with one rounding (Rust's `mul_add`; WGSL's may be unfused: `Expr::MulAdd`). On
    /// halves: fused in `f32`, then rounded to the half (two roundings, documented).
    #[must_use]
    pub fn mul_add<T: Float>(&mut self, a: Val<T>, b: Val<T>, c: Val<T>) -> Val<T> {
        let op = |v: &[Value]| Expr::MulAdd(v[0], v[1], v[2]);
        self.in_f32::<T, T>(&[a.value(), b.value(), c.value()], op)
    }

    /// `(hi:lo) >> (shift mod 32)`, the low 32 bits (`Expr::FunnelShr`; PTX `shf.r.wrap.b32`): the
    /// unaligned word `8·k` bits into the aligned words `lo`, `hi` in one operation.
    #[must_use]
    pub fn funnel_shr(&mut self, lo: Val<U32>, hi: Val<U32>, shift: Val<U32>) -> Val<U32> {
        self.bind(Expr::FunnelShr(lo.value(), hi.value(), shift.value()))
    }

    /// `a << amount` (amount modulo the width).
    #[must_use]
    pub fn shl<T: Int>(&mut self, a: Val<T>, amount: Val<U32>) -> Val<T> {
        self.bind(Expr::Binary(BinaryOp::Shl, a.value(), amount.value()))
    }

    /// `a >> amount` (amount modulo the width; arithmetic for signed types).
    #[must_use]
    pub fn shr<T: Int>(&mut self, a: Val<T>, amount: Val<U32>) -> Val<T> {
        self.bind(Expr::Binary(BinaryOp::Shr, a.value(), amount.value()))
    }

    /// Full-width product.
    #[must_use]
    pub fn mul_wide<T: WideMul>(&mut self, a: Val<T>, b: Val<T>) -> Val<T::Wide> {
        self.bind(Expr::MulWide(a.value(), b.value()))
    }

    /// `if cond { a } else { b }`.
    #[must_use]
    pub fn select<T: ScalarKind>(&mut self, cond: Val<Bool>, a: Val<T>, b: Val<T>) -> Val<T> {
        self.bind(Expr::Select {
            cond: cond.value(),
            if_true: a.value(),
            if_false: b.value(),
        })
    }

    fn cast<From, To: ScalarKind>(&mut self, kind: CastKind, a: Val<From>) -> Val<To> {
        self.bind(Expr::Cast(kind, a.value(), To::TYPE))
    }

    /// Zero-extends to a wider integer (or `bool` to 0/1). Widths are checked by the verifier.
    #[must_use]
    pub fn zext<To: Int, From: ScalarKind>(&mut self, a: Val<From>) -> Val<To> {
        self.cast(CastKind::ZeroExtend, a)
    }

    /// Sign-extends to a wider integer.
    #[must_use]
    pub fn sext<To: Int, From: Int>(&mut self, a: Val<From>) -> Val<To> {
        self.cast(CastKind::SignExtend, a)
    }

    /// Keeps the low bits in a narrower integer.
    #[must_use]
    pub fn trunc<To: Int, From: Int>(&mut self, a: Val<From>) -> Val<To> {
        self.cast(CastKind::Truncate, a)
    }

    /// Reinterprets the bits as another type of the same width.
    #[must_use]
    pub fn bitcast<To: Storable, From: Storable>(&mut self, a: Val<From>) -> Val<To> {
        self.cast(CastKind::Bitcast, a)
    }

    /// An integer as the nearest `f32` or `f64`, ties to even (Rust's `as f32`).
    #[must_use]
    pub fn int_to_float<To: Wide, From: Int>(&mut self, a: Val<From>) -> Val<To> {
        self.cast(CastKind::IntToFloat, a)
    }

    /// An `f32` or `f64` as an integer: truncated toward zero, saturated, NaN → 0 (Rust's `as`).
    #[must_use]
    pub fn float_to_int<To: Int, From: Wide>(&mut self, a: Val<From>) -> Val<To> {
        self.cast(CastKind::FloatToInt, a)
    }

    /// One float type as another: exact when widening, rounded to nearest even when narrowing
    /// (Rust's `as`; `CastKind::FloatConvert`).
    #[must_use]
    pub fn float_convert<To: Float, From: Float>(&mut self, a: Val<From>) -> Val<To> {
        self.cast(CastKind::FloatConvert, a)
    }
}
