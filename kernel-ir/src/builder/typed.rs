//! Type-level markers for the builder: `Val<U32>` and `Val<F32>` are different Rust types, so mixing
//! them in one operation fails to compile.

use std::marker::PhantomData;

use crate::expr::CastKind;
use crate::kernel::{LocalId, ParamId, SharedId, Value};
use crate::stmt::{Mask, MemRef};
use crate::types::{Literal, ScalarType};

/// A scalar type known at compile time.
pub trait ScalarKind: 'static {
    /// The IR type.
    const TYPE: ScalarType;
    /// The Rust type of constants of this kind.
    type Rust: Copy;
    /// A literal from a Rust constant.
    fn literal(value: Self::Rust) -> Literal;
}

// The kinds of the Rust primitive types are those types themselves (`F32` is `f32`), so a generic
// kernel is instantiated as `k::<f32>()`. Rust has no stable `f16`/`bf16`: their kinds are marker types
// (also exported as `warpforge_ir::{f16, bf16}`), whose constants are given as `f32` or `f64`.
macro_rules! kinds {
    ($($(#[$doc:meta])* $name:ident = $ty:ident, $rust:ty, $lit:expr;)*) => {$(
        $(#[$doc])*
        pub type $name = $rust;
        impl ScalarKind for $rust {
            const TYPE: ScalarType = ScalarType::$ty;
            type Rust = $rust;
            fn literal(value: $rust) -> Literal {
                ($lit)(value)
            }
        }
    )*};
}

kinds! {
    /// `bool`
    Bool = Bool, bool, Literal::Bool;
    /// `u8`
    U8 = U8, u8, Literal::U8;
    /// `u16`
    U16 = U16, u16, Literal::U16;
    /// `u32`
    U32 = U32, u32, Literal::U32;
    /// `u64`
    U64 = U64, u64, Literal::U64;
    /// `i32`
    I32 = I32, i32, Literal::I32;
    /// `i64`
    I64 = I64, i64, Literal::I64;
    /// `f32`
    F32 = F32, f32, Literal::f32;
    /// `f64`
    F64 = F64, f64, Literal::f64;
}

macro_rules! half_kinds {
    ($($(#[$doc:meta])* $name:ident = $ty:ident, $lit:expr;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub enum $name {}
        impl ScalarKind for $name {
            const TYPE: ScalarType = ScalarType::$ty;
            type Rust = f32;
            fn literal(value: f32) -> Literal {
                ($lit)(f64::from(value))
            }
        }
    )*};
}

half_kinds! {
    /// `f16` (IEEE binary16): stored as 16 bits, computed on in `f32` and rounded once per operation.
    F16 = F16, Literal::f16;
    /// `bf16` (bfloat16): stored as 16 bits, computed on in `f32` and rounded once per operation.
    BF16 = BF16, Literal::bf16;
}

// Each marker trait carries the message rustc prints when a kind lacks it, so a misuse in the builder
// or in a `#[kernel]` body reads as the IR's typing rule.
macro_rules! marker {
    ($(#[$doc:meta])* $trait:ident: $($kind:ident),*; $message:literal) => {
        $(#[$doc])*
        #[diagnostic::on_unimplemented(message = $message)]
        pub trait $trait: ScalarKind {}
        $(impl $trait for $kind {})*
    };
}

marker!(/// Integers.
    Int: U8, U16, U32, U64, I32, I64; "`{Self}` is not an integer type here");
marker!(/// Unsigned integers.
    Unsigned: U8, U16, U32, U64;
    "`%` (remainder) is defined on unsigned integers in the IR, not on `{Self}`");
marker!(/// Types with add, sub, mul, min, max and comparisons: integers and floats.
    Numeric: U8, U16, U32, U64, I32, I64, F32, F64, F16, BF16;
    "`{Self}` has no arithmetic or ordering in the IR (integers and floats have)");
marker!(/// Types with division: unsigned integers and floats.
    Divisible: U8, U16, U32, U64, F32, F64, F16, BF16;
    "`/` is defined on unsigned integers and floats in the IR, not on `{Self}`");
marker!(/// Types with a high-half multiply.
    MulHigh: U32, U64, I32, I64; "`mul_hi` takes u32, u64, i32 or i64, not `{Self}`");
marker!(/// Types with negation.
    Negatable: I32, I64, F32, F64, F16, BF16; "`-` negates i32, i64 and floats, not `{Self}`");

/// Floating-point types: `f16`, `bf16`, `f32`, `f64`. The bound of a generic kernel's element type
/// (`fn k<F: Float>(x: &[F])`, instantiated as `k::<f32>()`): arithmetic, comparisons, the exact
/// functions (`sqrt`, `floor`, `mul_add`, …) and `as` to and from every float and integer type
/// (integers into a half only from `u8`/`u16`, which `f32` holds exactly).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a floating-point type (f16, bf16, f32 and f64 are)"
)]
pub trait Float:
    Numeric
    + Divisible
    + Negatable
    + Storable
    + CastTo<U8>
    + CastTo<U16>
    + CastTo<U32>
    + CastTo<U64>
    + CastTo<I32>
    + CastTo<I64>
    + CastTo<F32>
    + CastTo<F64>
    + CastTo<F16>
    + CastTo<BF16>
    + CastFrom<U8>
    + CastFrom<U16>
    + CastFrom<F32>
    + CastFrom<F64>
    + CastFrom<F16>
    + CastFrom<BF16>
{
    /// The constant a Rust float literal's digits (`"0.1"`, `"-2.5e3"`) denote in this type: the
    /// nearest value, ties to even (halves round from the nearest `f64`).
    fn literal_from_text(text: &str) -> Literal;
}

fn parse_f64(text: &str) -> f64 {
    text.parse()
        .unwrap_or_else(|_| panic!("`{text}` is not a float literal"))
}

impl Float for F32 {
    fn literal_from_text(text: &str) -> Literal {
        Literal::f32(
            text.parse()
                .unwrap_or_else(|_| panic!("`{text}` is not a float literal")),
        )
    }
}
impl Float for F64 {
    fn literal_from_text(text: &str) -> Literal {
        Literal::f64(parse_f64(text))
    }
}
impl Float for F16 {
    fn literal_from_text(text: &str) -> Literal {
        Literal::f16(parse_f64(text))
    }
}
impl Float for BF16 {
    fn literal_from_text(text: &str) -> Literal {
        Literal::bf16(parse_f64(text))
    }
}

marker!(/// The float types the IR computes on directly (`f32`, `f64`): integer conversions' ends.
    Wide: F32, F64; "`{Self}` is not f32 or f64 (the IR's integer conversions go to and from those)");

/// Floats with the transcendental functions (`exp`, `ln`, `sin`, `tanh`, `powf`, …): `f32`, and
/// `f16`/`bf16` computed in `f32` and rounded once. Not `f64`: the targets' approximate
/// instructions are `f32` only and the IR has no `f64` polynomials.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no transcendental functions in the IR: f32 has them, and f16/bf16 through f32",
    note = "the targets' approximate instructions are f32 only: convert an f64 or an integer with `as f32`"
)]
pub trait Transcendental: Float {}
impl Transcendental for F32 {}
impl Transcendental for F16 {}
impl Transcendental for BF16 {}

marker!(/// Types with bitwise and, or, xor, not: integers and `bool`.
    Bitwise: Bool, U8, U16, U32, U64, I32, I64;
    "`{Self}` has no bitwise operators (integers and bool have)");
marker!(/// Types with popcount, count-leading-zeros, bit-reverse and find-first-set.
    Word: U32, U64; "bit counting and reversal take u32 or u64, not `{Self}`");
marker!(/// Types that can live in memory (everything but `bool`).
    Storable: U8, U16, U32, U64, I32, I64, F32, F64, F16, BF16; "`{Self}` cannot be stored in memory");
marker!(/// Types that can be element indices.
    IndexKind: U32, U64; "an element index must be u32 or u64, not `{Self}`");
marker!(/// Element types of `atomic_add`.
    AtomicAdd: U32, F32, F64; "`atomic_add` works on u32, f32 and f64 elements, not `{Self}`");
marker!(/// Element types of wide (vector) accesses.
    Vector32: U32, I32, F32; "wide accesses (`load2`, `load4`, `store2`, `store4`) move u32, i32 or f32 elements, not `{Self}`");
marker!(/// Types a shuffle can move.
    Shufflable: U32, I32, F32; "a shuffle moves u32, i32 or f32, not `{Self}`");
marker!(/// Types `match_any` can compare.
    Matchable: U32, U64; "`match_any` compares u32 or u64, not `{Self}`");

/// Types with a full-width product.
pub trait WideMul: ScalarKind {
    /// The product type.
    type Wide: ScalarKind;
}
impl WideMul for U32 {
    type Wide = U64;
}
impl WideMul for I32 {
    type Wide = I64;
}

/// A value of kind `T`.
pub struct Val<T> {
    value: Value,
    marker: PhantomData<fn() -> T>,
}

impl<T> Val<T> {
    pub(crate) fn new(value: Value) -> Self {
        Val {
            value,
            marker: PhantomData,
        }
    }

    /// The untyped IR value.
    pub fn value(self) -> Value {
        self.value
    }
}

impl<T> Clone for Val<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Val<T> {}
impl<T> std::fmt::Debug for Val<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "%{}", self.value.index())
    }
}

impl From<Val<U32>> for Mask {
    fn from(v: Val<U32>) -> Mask {
        Mask::Dynamic(v.value)
    }
}

macro_rules! typed_handle {
    ($(#[$doc:meta])* $name:ident($inner:ty)) => {
        $(#[$doc])*
        pub struct $name<T> {
            pub(crate) id: $inner,
            marker: PhantomData<fn() -> T>,
        }
        impl<T> $name<T> {
            pub(crate) fn new(id: $inner) -> Self {
                $name { id, marker: PhantomData }
            }
            /// The untyped IR handle.
            pub fn id(self) -> $inner {
                self.id
            }
        }
        impl<T> Clone for $name<T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<T> Copy for $name<T> {}
    };
}

typed_handle!(/// A global buffer parameter holding `T`.
    GlobalBuf(ParamId));
typed_handle!(/// A shared array holding `T`.
    SharedArr(SharedId));
typed_handle!(/// A scalar parameter of kind `T`.
    ScalarParam(ParamId));
typed_handle!(/// A mutable local of kind `T`.
    Local(LocalId));

/// An array of `T` in some address space: a [`GlobalBuf`] or a [`SharedArr`].
pub trait Array<T>: Copy {
    /// The IR memory reference.
    fn mem_ref(self) -> MemRef;
}
impl<T> Array<T> for GlobalBuf<T> {
    fn mem_ref(self) -> MemRef {
        MemRef::Global(self.id)
    }
}
impl<T> Array<T> for SharedArr<T> {
    fn mem_ref(self) -> MemRef {
        MemRef::Shared(self.id)
    }
}

/// A [`GlobalBuf`] or a [`SharedArr`], whichever it was made from: what a device function written
/// with the builder keeps when it stores the arrays it was given (`impl Array<T>` parameters are
/// distinct types, so a struct of handles needs one type for both).
pub struct AnyArray<T> {
    mem: MemRef,
    _elem: PhantomData<fn() -> T>,
}

impl<T> AnyArray<T> {
    /// The handle of `array`.
    pub fn of(array: impl Array<T>) -> AnyArray<T> {
        AnyArray {
            mem: array.mem_ref(),
            _elem: PhantomData,
        }
    }
}
impl<T> Clone for AnyArray<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for AnyArray<T> {}
impl<T> Array<T> for AnyArray<T> {
    fn mem_ref(self) -> MemRef {
        self.mem
    }
}

/// How `value as To` is computed, following Rust's `as`, as the IR conversions to emit in order (each
/// with the type it yields; none between a type and itself): between integers, a zero extension from
/// an unsigned (or `bool`) source, a sign extension from a signed one, a truncation to a narrower
/// type, a bit cast between types of the same width; between integers and `f32`/`f64`, `itof`
/// (nearest, ties to even) and `ftoi` (truncated, saturated, NaN → 0); between floats, `fconv`; a half
/// to an integer through `f32` (exact), an integer into a half only from `u8`/`u16` (exact in `f32`,
/// so rounded once). The conversions are data, so that [`Float`] can promise them.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be cast to `{To}` with `as` in a kernel",
    label = "no `as` conversion from `{Self}` to `{To}` in the IR",
    note = "integers convert among themselves and to and from f32 and f64, floats among themselves, halves to every integer and from u8/u16 (convert a wider integer through f32: `x as f32 as f16`), and `bool` to integers (Rust's `as`)"
)]
pub trait CastTo<To: ScalarKind>: ScalarKind {
    /// The conversions, in order, each with the type it yields.
    const STEPS: &'static [(CastKind, ScalarType)];
}

/// `value as Self` where `Self` is a generic kernel's type parameter: the same steps as [`CastTo`],
/// named from the target so that [`Float`]'s bounds can promise conversions into it.
pub trait CastFrom<From: ScalarKind>: ScalarKind {
    /// The conversions, in order, each with the type it yields.
    const STEPS: &'static [(CastKind, ScalarType)];
}

impl<From: CastTo<To>, To: ScalarKind> CastFrom<From> for To {
    const STEPS: &'static [(CastKind, ScalarType)] = <From as CastTo<To>>::STEPS;
}

macro_rules! casts {
    ($kind:ident: $($from:ident => $($to:ident),*;)*) => {$($(
        impl CastTo<$to> for $from {
            const STEPS: &'static [(CastKind, ScalarType)] =
                &[(CastKind::$kind, <$to as ScalarKind>::TYPE)];
        }
    )*)*};
}

macro_rules! identity {
    ($($kind:ident),*) => {$(
        impl CastTo<$kind> for $kind {
            const STEPS: &'static [(CastKind, ScalarType)] = &[];
        }
    )*};
}

identity!(Bool, U8, U16, U32, U64, I32, I64, F32, F64, F16, BF16);
casts! { ZeroExtend:
    Bool => U8, U16, U32, U64, I32, I64;
    U8 => U16, U32, U64, I32, I64;
    U16 => U32, U64, I32, I64;
    U32 => U64, I64;
}
// `i32 as u64` sign-extends in Rust.
casts! { SignExtend:
    I32 => I64, U64;
}
casts! { Truncate:
    U16 => U8;
    U32 => U8, U16;
    U64 => U8, U16, U32, I32;
    I32 => U8, U16;
    I64 => U8, U16, U32, I32;
}
casts! { Bitcast:
    U32 => I32;
    I32 => U32;
    U64 => I64;
    I64 => U64;
}
casts! { IntToFloat:
    U8 => F32, F64;
    U16 => F32, F64;
    U32 => F32, F64;
    U64 => F32, F64;
    I32 => F32, F64;
    I64 => F32, F64;
}
casts! { FloatToInt:
    F32 => U8, U16, U32, U64, I32, I64;
    F64 => U8, U16, U32, U64, I32, I64;
}
casts! { FloatConvert:
    F32 => F64, F16, BF16;
    F64 => F32, F16, BF16;
    F16 => F32, F64, BF16;
    BF16 => F32, F64, F16;
}

macro_rules! halves {
    ($($half:ident),*) => {$(
        halves!(@to $half: U8, U16, U32, U64, I32, I64);
        halves!(@from $half: U8, U16);
    )*};
    (@to $half:ident: $($int:ident),*) => {$(
        impl CastTo<$int> for $half {
            const STEPS: &'static [(CastKind, ScalarType)] = &[
                (CastKind::FloatConvert, ScalarType::F32),
                (CastKind::FloatToInt, <$int as ScalarKind>::TYPE),
            ];
        }
    )*};
    (@from $half:ident: $($int:ident),*) => {$(
        impl CastTo<$half> for $int {
            const STEPS: &'static [(CastKind, ScalarType)] = &[
                (CastKind::IntToFloat, ScalarType::F32),
                (CastKind::FloatConvert, <$half as ScalarKind>::TYPE),
            ];
        }
    )*};
}
halves!(F16, BF16);
