//! Type-level markers for the builder: `Val<U32>` and `Val<F32>` are different Rust types, so mixing
//! them in one operation fails to compile.

use std::marker::PhantomData;

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

macro_rules! kinds {
    ($($(#[$doc:meta])* $name:ident = $ty:ident, $rust:ty, $lit:expr;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub enum $name {}
        impl ScalarKind for $name {
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
marker!(/// Types with add, sub, mul, min, max and comparisons: integers and `f32`.
    Numeric: U8, U16, U32, U64, I32, I64, F32;
    "`{Self}` has no arithmetic or ordering in the IR (integers and f32 have)");
marker!(/// Types with division: unsigned integers and `f32`.
    Divisible: U8, U16, U32, U64, F32;
    "`/` is defined on unsigned integers and f32 in the IR, not on `{Self}`");
marker!(/// Types with a high-half multiply.
    MulHigh: U32, U64, I32, I64; "`mul_hi` takes u32, u64, i32 or i64, not `{Self}`");
marker!(/// Types with negation.
    Negatable: I32, I64, F32; "`-` negates i32, i64 and f32, not `{Self}`");
marker!(/// Floating-point types.
    Float: F32; "`{Self}` is not a floating-point type (f32 is)");
marker!(/// Types with bitwise and, or, xor, not: integers and `bool`.
    Bitwise: Bool, U8, U16, U32, U64, I32, I64;
    "`{Self}` has no bitwise operators (integers and bool have)");
marker!(/// Types with popcount, count-leading-zeros, bit-reverse and find-first-set.
    Word: U32, U64; "bit counting and reversal take u32 or u64, not `{Self}`");
marker!(/// Types that can live in memory (everything but `bool`).
    Storable: U8, U16, U32, U64, I32, I64, F32; "`{Self}` cannot be stored in memory");
marker!(/// Types that can be element indices.
    IndexKind: U32, U64; "an element index must be u32 or u64, not `{Self}`");
marker!(/// Element types of `atomic_add`.
    AtomicAdd: U32, F32; "`atomic_add` works on u32 and f32 elements, not `{Self}`");
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
