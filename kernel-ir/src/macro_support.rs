//! Support for the code `#[warpforge_ir::kernel]` and `#[warpforge_ir::device]` expand to. Not a public
//! API: names and signatures here change with the macros.
//!
//! The macros turn each Rust operation into one typed [`KernelBuilder`] call, spanned at the user's
//! tokens, so rustc reports a type error at the user's expression. The helpers here cover what the
//! builder does not say in one call: Rust's `as` casts ([`cast`]), shift amounts of any integer type
//! ([`shift_amount`]) and declarations that need a name not yet taken ([`local`], [`shared`]).

use crate::builder::{
    Bool, KernelBuilder, Local, ScalarKind, SharedArr, Storable, Val, BF16, F16, F32, F64, I32,
    I64, U16, U32, U64, U8,
};

/// How `value as To` is computed, following Rust's `as`: between integers, a zero extension from an
/// unsigned (or `bool`) source, a sign extension from a signed one, a truncation to a narrower type, a
/// bit cast between types of the same width, nothing between a type and itself; between integers
/// and `f32`, the IR's `itof` (nearest, ties to even) and `ftoi` (truncated, saturated, NaN → 0).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be cast to `{To}` with `as` in a kernel",
    label = "no `as` conversion from `{Self}` to `{To}` in the IR",
    note = "integers convert among themselves and to and from f32 and f64, floats among themselves, halves to every integer and from u8/u16 (convert a wider integer through f32: `x as f32 as f16`), and `bool` to integers (Rust's `as`)"
)]
pub trait CastTo<To: ScalarKind>: ScalarKind + Sized {
    /// Emits the conversion.
    fn cast(b: &mut KernelBuilder, value: Val<Self>) -> Val<To>;
}

macro_rules! casts {
    ($how:ident: $($from:ident => $($to:ident),*;)*) => {$($(
        impl CastTo<$to> for $from {
            fn cast(b: &mut KernelBuilder, value: Val<$from>) -> Val<$to> {
                b.$how::<$to, $from>(value)
            }
        }
    )*)*};
}

macro_rules! identity {
    ($($kind:ident),*) => {$(
        impl CastTo<$kind> for $kind {
            fn cast(_: &mut KernelBuilder, value: Val<$kind>) -> Val<$kind> {
                value
            }
        }
    )*};
}

identity!(Bool, U8, U16, U32, U64, I32, I64, F32, F64, F16, BF16);
casts! { zext:
    Bool => U8, U16, U32, U64, I32, I64;
    U8 => U16, U32, U64, I32, I64;
    U16 => U32, U64, I32, I64;
    U32 => U64, I64;
}
casts! { sext:
    I32 => I64;
}
// `i32 as u64` sign-extends in Rust.
impl CastTo<U64> for I32 {
    fn cast(b: &mut KernelBuilder, value: Val<I32>) -> Val<U64> {
        b.sext::<U64, I32>(value)
    }
}
casts! { trunc:
    U16 => U8;
    U32 => U8, U16;
    U64 => U8, U16, U32, I32;
    I32 => U8, U16;
    I64 => U8, U16, U32, I32;
}
casts! { bitcast:
    U32 => I32;
    I32 => U32;
    U64 => I64;
    I64 => U64;
}
macro_rules! floats {
    ($($int:ident),*) => {$(
        impl CastTo<F32> for $int {
            fn cast(b: &mut KernelBuilder, value: Val<$int>) -> Val<F32> {
                b.int_to_float(value)
            }
        }
        impl CastTo<$int> for F32 {
            fn cast(b: &mut KernelBuilder, value: Val<F32>) -> Val<$int> {
                b.float_to_int(value)
            }
        }
    )*};
}
floats!(U8, U16, U32, U64, I32, I64);

macro_rules! doubles {
    ($($int:ident),*) => {$(
        impl CastTo<F64> for $int {
            fn cast(b: &mut KernelBuilder, value: Val<$int>) -> Val<F64> {
                b.int_to_float(value)
            }
        }
        impl CastTo<$int> for F64 {
            fn cast(b: &mut KernelBuilder, value: Val<F64>) -> Val<$int> {
                b.float_to_int(value)
            }
        }
    )*};
}
doubles!(U8, U16, U32, U64, I32, I64);

casts! { float_convert:
    F32 => F64, F16, BF16;
    F64 => F32, F16, BF16;
    F16 => F32, F64, BF16;
    BF16 => F32, F64, F16;
}

// A half to an integer: widened to f32 exactly, then truncated and saturated; an integer to a half
// only from u8/u16, exact in f32 (so rounded once).
macro_rules! halves {
    ($($half:ident),*) => {$(
        halves!(@to $half: U8, U16, U32, U64, I32, I64);
        halves!(@from $half: U8, U16);
    )*};
    (@to $half:ident: $($int:ident),*) => {$(
        impl CastTo<$int> for $half {
            fn cast(b: &mut KernelBuilder, value: Val<$half>) -> Val<$int> {
                let wide: Val<F32> = b.float_convert(value);
                b.float_to_int(wide)
            }
        }
    )*};
    (@from $half:ident: $($int:ident),*) => {$(
        impl CastTo<$half> for $int {
            fn cast(b: &mut KernelBuilder, value: Val<$int>) -> Val<$half> {
                let wide: Val<F32> = b.int_to_float(value);
                b.float_convert(wide)
            }
        }
    )*};
}
halves!(F16, BF16);

/// `value as Self` where `Self` is a generic kernel's type parameter: the same conversion as
/// [`CastTo`], named from the target so that `Float`'s bounds can promise it.
pub trait CastFrom<From: ScalarKind>: ScalarKind + Sized {
    /// Emits the conversion.
    fn cast_from(b: &mut KernelBuilder, value: Val<From>) -> Val<Self>;
}

impl<From: CastTo<To>, To: ScalarKind> CastFrom<From> for To {
    fn cast_from(b: &mut KernelBuilder, value: Val<From>) -> Val<To> {
        From::cast(b, value)
    }
}

/// `value as To` for a generic target (see [`CastFrom`]).
pub fn cast_from<To: CastFrom<From>, From: ScalarKind>(
    b: &mut KernelBuilder,
    value: Val<From>,
) -> Val<To> {
    To::cast_from(b, value)
}

/// `value as To` (see [`CastTo`]).
pub fn cast<To: ScalarKind, From: CastTo<To>>(b: &mut KernelBuilder, value: Val<From>) -> Val<To> {
    From::cast(b, value)
}

/// Integer types a shift amount may have: Rust shifts by any integer type; the IR by a `u32`, taken
/// modulo the operand's width (so truncating a 64-bit amount keeps the result).
#[diagnostic::on_unimplemented(
    message = "a shift amount must be an integer, not `{Self}`",
    label = "not an integer"
)]
pub trait ShiftAmount: ScalarKind + Sized {
    /// The amount as the IR's `u32`.
    fn to_u32(b: &mut KernelBuilder, value: Val<Self>) -> Val<U32>;
}

macro_rules! shift_amounts {
    ($($kind:ident => $how:ident),*) => {$(
        impl ShiftAmount for $kind {
            fn to_u32(b: &mut KernelBuilder, value: Val<$kind>) -> Val<U32> {
                b.$how::<U32, $kind>(value)
            }
        }
    )*};
}
shift_amounts!(U8 => zext, U16 => zext, U64 => trunc, I64 => trunc, I32 => bitcast);
impl ShiftAmount for U32 {
    fn to_u32(_: &mut KernelBuilder, value: Val<U32>) -> Val<U32> {
        value
    }
}

/// A shift amount of any integer type as a `u32`.
pub fn shift_amount<T: ShiftAmount>(b: &mut KernelBuilder, value: Val<T>) -> Val<U32> {
    T::to_u32(b, value)
}

/// A mutable local named after the Rust variable (`x`, or `x_1`, `x_2`, … when taken).
pub fn local<T: ScalarKind>(b: &mut KernelBuilder, name: &str) -> Local<T> {
    let name = b.unique_name(name);
    b.local::<T>(&name)
}

/// A shared array named after the Rust variable (`x`, or `x_1`, … when taken).
pub fn shared<T: Storable>(
    b: &mut KernelBuilder,
    name: &str,
    len: u32,
    align: u32,
) -> SharedArr<T> {
    let name = b.unique_name(name);
    b.shared::<T>(&name, len, align)
}

/// Panics with the verifier's message: a kernel written with `#[kernel]` that compiles but does not
/// verify (for example a shared array of 0 elements, or a store through a `&[T]` parameter of a device
/// function).
pub fn finish(b: KernelBuilder, name: &str) -> crate::Kernel {
    match b.finish() {
        Ok(kernel) => kernel,
        Err(e) => panic!("#[kernel] `{name}` does not verify: {e}"),
    }
}

/// Element `k` of the register array `name` (a `Local<T>` or a `Val<T>`); panics, naming the array
/// and the index, when `k` is past its end (the index is known while building the kernel).
pub fn register<R: Copy>(array: &[R], k: usize, name: &str) -> R {
    match array.get(k) {
        Some(&r) => r,
        None => panic!(
            "register array `{name}` has {} elements; index {k} is past its end",
            array.len()
        ),
    }
}

/// Reading a register array's element: a mutable one's local is read, an immutable one's value is
/// itself.
pub trait RegisterRead<T> {
    /// The element's current value.
    fn read(self, b: &mut KernelBuilder) -> Val<T>;
}

impl<T: ScalarKind> RegisterRead<T> for Local<T> {
    fn read(self, b: &mut KernelBuilder) -> Val<T> {
        b.read(self)
    }
}

impl<T> RegisterRead<T> for Val<T> {
    fn read(self, _: &mut KernelBuilder) -> Val<T> {
        self
    }
}

/// The counters of `for i in unroll(start..end)`: `u32`s known while building.
pub fn unrolled(start: u32, end: u32) -> core::ops::Range<u32> {
    start..end
}
