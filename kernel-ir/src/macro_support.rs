//! Support for the code `#[warpforge_ir::kernel]` and `#[warpforge_ir::device]` expand to. Not a public
//! API: names and signatures here change with the macros.
//!
//! The macros turn each Rust operation into one typed [`KernelBuilder`] call, spanned at the user's
//! tokens, so rustc reports a type error at the user's expression. The helpers here cover what the
//! builder does not say in one call: Rust's `as` casts ([`cast`]), shift amounts of any integer type
//! ([`shift_amount`]) and declarations that need a name not yet taken ([`local`], [`shared`]).

use crate::builder::{
    KernelBuilder, Local, ScalarKind, SharedArr, Storable, Val, I32, I64, U16, U32, U64, U8,
};

pub use crate::builder::{CastFrom, CastTo};

/// `value as To` (see [`CastTo`]): its conversion steps, emitted in order.
pub fn cast<To: ScalarKind, From: CastTo<To>>(b: &mut KernelBuilder, value: Val<From>) -> Val<To> {
    Val::new(b.convert_steps(value.value(), From::STEPS))
}

/// `value as To` for a generic target (see [`CastFrom`]).
pub fn cast_from<To: CastFrom<From>, From: ScalarKind>(
    b: &mut KernelBuilder,
    value: Val<From>,
) -> Val<To> {
    Val::new(b.convert_steps(value.value(), To::STEPS))
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
    b.local::<T>(name)
}

/// A shared array named after the Rust variable (`x`, or `x_1`, … when taken).
pub fn shared<T: Storable>(
    b: &mut KernelBuilder,
    name: &str,
    len: u32,
    align: u32,
) -> SharedArr<T> {
    b.shared::<T>(name, len, align)
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
