//! Pure operations: what a `let` statement computes.
//!
//! Expressions have no side effects and never touch memory; loads, atomics and warp collectives are
//! statements (see [`crate::stmt`]) so that their position in the program is fixed. Every operand is a
//! [`Value`] defined earlier by a statement. The result type of each expression is given by
//! [`crate::typing::expr_type`]; the semantics of every operator are defined on all inputs (no undefined
//! behaviour), and documented on the operator. `f32` follows IEEE 754 (as CUDA and the simulator do);
//! WGSL lets an implementation assume no NaN or infinity occurs and ignore the sign of a zero, so on
//! WebGPU a kernel that meets one may give other results (lavapipe answers `x != x` with false for a
//! NaN, and `-3.3e-5 * 0.0` with +0.0), and Vulkan lets the compiler reassociate and contract chains of
//! `f32` operations (lavapipe computed `a - (a - b)` as `b`).

use crate::kernel::{LocalId, ParamId, Value};
use crate::types::Literal;

/// A side-effect-free computation bound to a value by [`crate::Stmt::Let`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    /// A constant.
    Literal(Literal),
    /// The value of a scalar kernel parameter.
    Param(ParamId),
    /// A hardware index or size (thread index, lane id, …).
    Special(Special),
    /// The current value of a mutable local.
    Local(LocalId),
    /// A one-operand operation.
    Unary(UnaryOp, Value),
    /// A two-operand operation on operands of the same type (shifts: any integer by `u32`).
    Binary(BinaryOp, Value, Value),
    /// Full-width product: `u32 × u32 → u64`, `i32 × i32 → i64`.
    MulWide(Value, Value),
    /// A comparison; the result is `bool`.
    Compare(CmpOp, Value, Value),
    /// `if cond { a } else { b }` on values (`cond` is `bool`; both arms have the same type).
    Select {
        /// The condition.
        cond: Value,
        /// Result when `cond` is true.
        if_true: Value,
        /// Result when `cond` is false.
        if_false: Value,
    },
    /// A conversion to `to`.
    Cast(CastKind, Value, crate::ScalarType),
    /// `a * b + c` on `f32` with one rounding (Rust's `mul_add`, IEEE `fusedMultiplyAdd`): exact on
    /// the simulators and PTX (`fma.rn.f32`); WGSL's `fma` may be computed unfused (two roundings).
    MulAdd(Value, Value, Value),
    /// `(hi:lo) >> (shift mod 32)`, the low 32 bits: a funnel shift right of the 64-bit value whose
    /// high word is `hi`, on three `u32` operands (`lo` itself for a shift of 0). PTX
    /// `shf.r.wrap.b32`, CUDA's `__funnelshift_r`; WGSL has no such operator and shifts both
    /// words. The unaligned 32-bit word at byte `k` of two aligned words is `funnel_shr(lo, hi, 8·k)`.
    FunnelShr(Value, Value, Value),
}

/// Hardware indices and sizes. All are `u32`. Blocks and grids have up to three dimensions; the
/// thread and block indices without a dimension are linear, in CUDA's order (x fastest): a thread's
/// linear index is `x + y·Bx + z·Bx·By` for a block of `Bx × By × Bz`, and warps are its runs of 32.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Special {
    /// The thread's linear index within its block (`%tid.x` for a one-dimensional block).
    ThreadIndex,
    /// The thread's lane within its warp: `thread_index % 32`.
    LaneId,
    /// The warp's index within its block: `thread_index / 32`.
    WarpIndex,
    /// The block's index within the grid (`%ctaid.x`).
    BlockIndex,
    /// Threads per block (`%ntid.x`); equals the kernel's declared block size.
    BlockSize,
    /// Blocks in the grid (`%nctaid.x`).
    GridSize,
    /// Lanes per warp: always 32, on every backend.
    WarpSize,
    /// The thread's x index in its block (`%tid.x`).
    ThreadIndexX,
    /// The thread's y index in its block (`%tid.y`; 0 in a one-dimensional block).
    ThreadIndexY,
    /// The thread's z index in its block (`%tid.z`).
    ThreadIndexZ,
    /// The block's x index in the grid (`%ctaid.x`).
    BlockIndexX,
    /// The block's y index in the grid (`%ctaid.y`).
    BlockIndexY,
    /// The block's z index in the grid (`%ctaid.z`).
    BlockIndexZ,
    /// Blocks in the grid along x (`%nctaid.x`).
    GridSizeX,
    /// Blocks in the grid along y (`%nctaid.y`).
    GridSizeY,
    /// Blocks in the grid along z (`%nctaid.z`).
    GridSizeZ,
}

impl Special {
    /// The dimension of a per-dimension index or size (0, 1, 2 for x, y, z), `None` for the others.
    pub const fn dimension(self) -> Option<usize> {
        match self {
            Special::ThreadIndexX | Special::BlockIndexX | Special::GridSizeX => Some(0),
            Special::ThreadIndexY | Special::BlockIndexY | Special::GridSizeY => Some(1),
            Special::ThreadIndexZ | Special::BlockIndexZ | Special::GridSizeZ => Some(2),
            _ => None,
        }
    }
}

/// One-operand operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// Bitwise not on integers, logical not on `bool`.
    Not,
    /// Two's-complement negation (wrapping) on signed integers, sign flip on `f32`.
    Neg,
    /// Number of set bits of a `u32`/`u64`; result `u32`.
    PopCount,
    /// Number of leading zero bits of a `u32`/`u64` (the width for zero); result `u32`.
    CountLeadingZeros,
    /// Bit order reversed, on `u32`/`u64`; result of the same type.
    BitReverse,
    /// Index of the least significant set bit of a `u32`/`u64`, `0xffff_ffff` for zero (WGSL's
    /// `firstTrailingBit`); result `u32`.
    FindFirstSet,
    /// Absolute value: on `f32` the sign bit cleared (NaNs too, as Rust's `abs`); on signed
    /// integers wrapping (`i32::MIN.abs()` is `i32::MIN`, Rust's `wrapping_abs`).
    Abs,
    /// `f32` rounded down to an integer (Rust's `floor`).
    Floor,
    /// `f32` rounded up to an integer (Rust's `ceil`).
    Ceil,
    /// `f32` rounded toward zero to an integer (Rust's `trunc`).
    FloatTrunc,
    /// `f32` rounded to the nearest integer, ties to even (Rust's `round_ties_even`).
    RoundEven,
    /// `f32` square root, correctly rounded (IEEE 754; Rust's `sqrt`): `sqrt(-0.0)` is `-0.0`, a
    /// negative operand gives NaN. Exact on the simulators and PTX; WGSL's is bounded (its
    /// accuracy table inherits it from `1.0 / inverseSqrt(x)`).
    Sqrt,
    /// Whether an `f32` is a NaN (from its bits: WGSL may assume no NaN occurs); result `bool`.
    IsNan,
    /// Whether an `f32` is neither infinite nor NaN (from its bits); result `bool`.
    IsFinite,
    /// `1 / x` on `f32`, correctly rounded on the simulators and PTX (`rcp.rn`); WGSL's `1.0 / x`
    /// is within 2.5 ulp for `|x|` in [2^-126, 2^126].
    Recip,
    /// `1 / sqrt(x)` on `f32`: the nearest `f32` on the simulators, relative error 2^-22.9 on PTX
    /// (`rsqrt.approx`), 2 ulp in WGSL (`inverseSqrt`).
    Rsqrt,
    /// `2^x` on `f32`, the target's instruction as is: the nearest `f32` on the simulators, 2 ulp on
    /// PTX (`ex2.approx`), 3 + 2|x| ulp in WGSL (`exp2`). Kernels call `x.exp2()`
    /// ([`crate::builder::KernelBuilder::exp2`]), which reduces the argument first.
    Exp2,
    /// `log2(x)` on `f32`: the nearest `f32` on the simulators; on PTX (`lg2.approx`) absolute error
    /// 2^-22 for x in (0.5, 2), relative 2^-22 elsewhere; in WGSL (`log2`) absolute 2^-21 in
    /// [0.5, 2], 3 ulp elsewhere.
    Log2,
    /// `sin(x)` on `f32`, no argument reduction: the nearest `f32` on the simulators; absolute error
    /// 2^-20.5 on PTX (`sin.approx`) for x in [-2π, 2π]; 2^-11 in WGSL for x in [-π, π]. Kernels
    /// call `x.sin()`, which reduces the argument to [-π, π] first.
    Sin,
    /// `cos(x)`, as [`UnaryOp::Sin`].
    Cos,
}

/// Two-operand operations. Integer arithmetic wraps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// Wrapping addition; `f32` addition.
    Add,
    /// Wrapping subtraction; `f32` subtraction.
    Sub,
    /// Wrapping (low-half) multiplication; `f32` multiplication.
    Mul,
    /// High half of the full product, for integers of 32 and 64 bits.
    MulHi,
    /// Unsigned integer division, `x / 0 == x` (WGSL's rule); `f32` division.
    Div,
    /// Unsigned integer remainder, `x % 0 == 0` (WGSL's rule). Not defined on `f32`.
    Rem,
    /// Bitwise and (logical on `bool`).
    And,
    /// Bitwise or (logical on `bool`).
    Or,
    /// Bitwise exclusive or (logical on `bool`).
    Xor,
    /// Shift left by a `u32` amount taken modulo the operand's width.
    Shl,
    /// Shift right by a `u32` amount taken modulo the width: logical on unsigned, arithmetic on signed.
    Shr,
    /// Minimum (integers by their signedness; `f32` as IEEE `minNum`).
    Min,
    /// Maximum (integers by their signedness; `f32` as IEEE `maxNum`).
    Max,
    /// `f32`: the first operand's magnitude with the second's sign bit (Rust's `copysign`).
    CopySign,
}

/// Comparisons; integers compare by their signedness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// Equal.
    Eq,
    /// Not equal.
    Ne,
    /// Less than.
    Lt,
    /// Less than or equal.
    Le,
    /// Greater than.
    Gt,
    /// Greater than or equal.
    Ge,
}

/// Conversions between scalar types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastKind {
    /// To a wider integer, filling with zeros (also `bool` → integer: 0 or 1).
    ZeroExtend,
    /// To a wider integer, copying the sign bit of the source.
    SignExtend,
    /// To a narrower integer, keeping the low bits.
    Truncate,
    /// Reinterpret the bits as another type of the same width (`u32`/`i32`/`f32`, `u64`/`i64`).
    Bitcast,
    /// An integer to `f32` or `f64` as Rust's `as`: the nearest float, ties to even (exact when the
    /// value fits in the significand).
    IntToFloat,
    /// `f32`/`f64` to an integer as Rust's `as`: truncated toward zero, saturated to the target's
    /// range, NaN → 0.
    FloatToInt,
    /// Between two float types (`f16`, `bf16`, `f32`, `f64`): exact when widening, rounded to nearest
    /// even when narrowing (overflow gives ±∞, as Rust's `as`). A NaN stays a NaN: widened with its
    /// sign and payload (quiet), narrowed to `f32` with the payload's upper bits (quiet), narrowed to a
    /// half as the canonical `0x7fff` (as PTX's `cvt.rn.f16.f32`).
    FloatConvert,
}

macro_rules! keyword_table {
    ($ty:ty { $($variant:ident => $kw:literal),* $(,)? }) => {
        impl $ty {
            /// Every variant, in a fixed order.
            pub const ALL: &'static [$ty] = &[$(<$ty>::$variant),*];
            /// The keyword used in the text form.
            pub const fn name(self) -> &'static str {
                match self { $(<$ty>::$variant => $kw),* }
            }
            /// Parses a keyword of the text form.
            pub fn from_name(name: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|op| op.name() == name)
            }
        }
    };
}
pub(crate) use keyword_table;

keyword_table!(Special {
    ThreadIndex => "thread_index", LaneId => "lane_id", WarpIndex => "warp_index",
    BlockIndex => "block_index", BlockSize => "block_size", GridSize => "grid_size",
    WarpSize => "warp_size", ThreadIndexX => "thread_index_x", ThreadIndexY => "thread_index_y",
    ThreadIndexZ => "thread_index_z", BlockIndexX => "block_index_x", BlockIndexY => "block_index_y",
    BlockIndexZ => "block_index_z", GridSizeX => "grid_size_x", GridSizeY => "grid_size_y",
    GridSizeZ => "grid_size_z",
});
keyword_table!(UnaryOp {
    Not => "not", Neg => "neg", PopCount => "popcount", CountLeadingZeros => "clz",
    BitReverse => "brev", FindFirstSet => "ffs", Abs => "abs", Floor => "floor", Ceil => "ceil",
    FloatTrunc => "ftrunc", RoundEven => "round_even", Sqrt => "sqrt", IsNan => "is_nan",
    IsFinite => "is_finite", Recip => "recip", Rsqrt => "rsqrt", Exp2 => "exp2", Log2 => "log2",
    Sin => "sin", Cos => "cos",
});
keyword_table!(BinaryOp {
    Add => "add", Sub => "sub", Mul => "mul", MulHi => "mul_hi", Div => "div", Rem => "rem",
    And => "and", Or => "or", Xor => "xor", Shl => "shl", Shr => "shr", Min => "min", Max => "max",
    CopySign => "copysign",
});
keyword_table!(CmpOp { Eq => "eq", Ne => "ne", Lt => "lt", Le => "le", Gt => "gt", Ge => "ge" });
keyword_table!(CastKind {
    ZeroExtend => "zext", SignExtend => "sext", Truncate => "trunc", Bitcast => "bitcast",
    IntToFloat => "itof", FloatToInt => "ftoi", FloatConvert => "fconv",
});
