//! The intrinsics of `#[kernel]` and `#[device]` bodies, as Rust items so that documentation and
//! rust-analyzer see them.
//!
//! The attributes recognise these names (called bare, or as `gpu::name`) and replace each call with the
//! IR statement or expression its documentation names; the functions themselves are never called by a
//! kernel. Called from ordinary Rust they panic: a GPU index or a warp collective has no meaning on one
//! CPU thread. Every warp collective takes its lane mask explicitly, as the last argument: a constant
//! (an integer literal, [`FULL_MASK`] or another Rust constant) or a `u32` computed in the kernel.
//!
//! The names need no import (importing them only gives an unused-import warning, since no call
//! remains after the rewrite).
//!
//! ```
//! #[warpforge_ir::kernel(block_size = 64)]
//! fn pair_sums(input: &[u32], out: &mut [u32]) {
//!     let i = block_index() * block_size() + thread_index();
//!     let x = input[i];
//!     out[i] = x + shuffle_xor(x, 1, FULL_MASK);
//! }
//!
//! assert!(pair_sums().to_string().contains("shuffle xor"));
//! ```
#![allow(unused_variables, clippy::missing_panics_doc)]

/// All 32 lanes of a warp, as a collective's mask.
pub const FULL_MASK: u32 = u32::MAX;

#[cold]
fn outside(name: &str) -> ! {
    panic!("warpforge_ir::gpu::{name} only has a meaning inside a #[kernel] or #[device] body, which the attribute rewrites")
}

macro_rules! specials {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name() -> u32 {
            outside(stringify!($name))
        }
    )*};
}

specials! {
    /// The thread's index in its block (`%tid.x`): IR `special thread_index`.
    thread_index;
    /// The thread's lane in its warp, `thread_index() % 32`: IR `special lane_id`.
    lane_id;
    /// The warp's index in its block, `thread_index() / 32`: IR `special warp_index`.
    warp_index;
    /// The block's index in the grid (`%ctaid.x`): IR `special block_index`.
    block_index;
    /// Threads per block, the kernel's `block_size`: IR `special block_size`.
    block_size;
    /// Blocks in the grid: IR `special grid_size`.
    grid_size;
    /// Lanes per warp, always 32: IR `special warp_size`.
    warp_size;
    /// The thread's x index in a 2-D or 3-D block (`threadIdx.x`): IR `special thread_index_x`.
    thread_index_x;
    /// The thread's y index (`threadIdx.y`; 0 in a 1-D block): IR `special thread_index_y`.
    thread_index_y;
    /// The thread's z index (`threadIdx.z`): IR `special thread_index_z`.
    thread_index_z;
    /// The block's x index in a 2-D or 3-D grid (`blockIdx.x`): IR `special block_index_x`.
    block_index_x;
    /// The block's y index (`blockIdx.y`): IR `special block_index_y`.
    block_index_y;
    /// The block's z index (`blockIdx.z`): IR `special block_index_z`.
    block_index_z;
    /// The block's x extent (`blockDim.x`), a constant of the kernel.
    block_size_x;
    /// The block's y extent (`blockDim.y`), a constant of the kernel.
    block_size_y;
    /// The block's z extent (`blockDim.z`), a constant of the kernel.
    block_size_z;
    /// Blocks in the grid along x (`gridDim.x`): IR `special grid_size_x`.
    grid_size_x;
    /// Blocks in the grid along y (`gridDim.y`): IR `special grid_size_y`.
    grid_size_y;
    /// Blocks in the grid along z (`gridDim.z`): IR `special grid_size_z`.
    grid_size_z;
}

/// The block barrier: every thread of the block waits here, and shared-memory accesses before it are
/// visible to every thread after it. All threads of the block must reach it (the analyzer checks).
pub fn barrier() {
    outside("barrier")
}

/// Waits for the lanes of `mask` (IR `warp_sync`).
pub fn warp_sync(mask: u32) {
    outside("warp_sync")
}

/// `x` from lane `lane % 32` (IR `shuffle idx`); `T` is `u32`, `i32` or `f32`. Reading a lane outside
/// `mask` gives an unspecified value, as on CUDA.
pub fn shuffle_idx<T>(x: T, lane: u32, mask: u32) -> T {
    outside("shuffle_idx")
}
/// `x` from lane `self - delta`; lanes below `delta` keep their own (IR `shuffle up`).
pub fn shuffle_up<T>(x: T, delta: u32, mask: u32) -> T {
    outside("shuffle_up")
}
/// `x` from lane `self + delta`; lanes whose source is past 31 keep their own (IR `shuffle down`).
pub fn shuffle_down<T>(x: T, delta: u32, mask: u32) -> T {
    outside("shuffle_down")
}
/// `x` from lane `self ^ lane_mask` (IR `shuffle xor`).
pub fn shuffle_xor<T>(x: T, lane_mask: u32, mask: u32) -> T {
    outside("shuffle_xor")
}
/// Bit `i` set when lane `i` of `mask` has `pred` true (IR `ballot`).
pub fn ballot(pred: bool, mask: u32) -> u32 {
    outside("ballot")
}
/// Whether `pred` holds on any lane of `mask` (IR `vote any`).
pub fn vote_any(pred: bool, mask: u32) -> bool {
    outside("vote_any")
}
/// Whether `pred` holds on every lane of `mask` (IR `vote all`).
pub fn vote_all(pred: bool, mask: u32) -> bool {
    outside("vote_all")
}
/// The lanes of `mask` whose `x` (`u32` or `u64`) equals this lane's (IR `match_any`).
pub fn match_any<T>(x: T, mask: u32) -> u32 {
    outside("match_any")
}

macro_rules! atomics {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// The target is written `&buf[i]` (or `&mut buf[i]`) with `buf` a `&mut [u32]` parameter or a
        /// `u32` shared array; the old contents are returned.
        pub fn $name(target: &u32, operand: u32) -> u32 {
            outside(stringify!($name))
        }
    )*};
}

atomics! {
    /// Atomically adds (wrapping): IR `atomic add`.
    atomic_add;
    /// Atomic unsigned minimum: IR `atomic min`.
    atomic_min;
    /// Atomic unsigned maximum: IR `atomic max`.
    atomic_max;
    /// Atomic bitwise and: IR `atomic and`.
    atomic_and;
    /// Atomic bitwise or: IR `atomic or`.
    atomic_or;
    /// Atomic exchange: IR `atomic exch`.
    atomic_exchange;
}

/// Atomic compare-and-swap: writes `new` when the element equals `expected`; returns the old contents
/// (IR `atomic cas`).
pub fn atomic_cas(target: &u32, expected: u32, new: u32) -> u32 {
    outside("atomic_cas")
}

/// Two consecutive `u32` elements from `&buf[i]` in one 8-byte access (`i` even for alignment):
/// `let [a, b] = load2(&buf[i]);`.
pub fn load2(first: &u32) -> [u32; 2] {
    outside("load2")
}
/// Four consecutive `u32` elements in one 16-byte access (`i` a multiple of 4).
pub fn load4(first: &u32) -> [u32; 4] {
    outside("load4")
}
/// Byte `i` of a `u32` buffer or shared array seen as little-endian bytes (byte `i % 4` of
/// `words[i / 4]`), zero-extended: IR `load.u8`, one `ld.u8` on PTX (WGSL shifts it out of its word).
/// `i` counts bytes: `load_byte(words, 4 * k + 1)` is the second byte of `words[k]`.
pub fn load_byte(words: &[u32], i: u32) -> u32 {
    outside("load_byte")
}
/// Writes the low byte of `value` to byte `i` of a writable `u32` buffer or shared array, leaving
/// the element's other three bytes: IR `store.u8`, one `st.u8` on PTX (on WGSL the array's words
/// are atomic and the byte is cleared and set, so threads writing neighbouring bytes keep each
/// other's).
pub fn store_byte(words: &mut [u32], i: u32, value: u32) {
    outside("store_byte")
}
/// Stores two consecutive `u32` elements in one access: `store2(&mut buf[i], [a, b]);`.
pub fn store2(first: &mut u32, values: [u32; 2]) {
    outside("store2")
}
/// Stores four consecutive `u32` elements in one access.
pub fn store4(first: &mut u32, values: [u32; 4]) {
    outside("store4")
}

/// Declares a block-shared array of `len` elements of `T` whose start is aligned to `align` bytes:
/// `let tile = shared::<u32>(256, 16);`. Both arguments are Rust constant expressions (literals, const
/// generics, constants). Each declaration executed while building is one array (a `#[device]` function
/// that declares one and is called twice declares two).
pub fn shared<T>(len: u32, align: u32) -> &'static mut [T] {
    outside("shared")
}

/// The smaller of `a` and `b` (integers by signedness; `f32` as IEEE `minNum`): IR `min`.
pub fn min<T>(a: T, b: T) -> T {
    outside("min")
}
/// The larger of `a` and `b`: IR `max`.
pub fn max<T>(a: T, b: T) -> T {
    outside("max")
}
/// The high half of the full product of two `u32`/`u64`/`i32`/`i64`: IR `mul_hi`.
pub fn mul_hi<T>(a: T, b: T) -> T {
    outside("mul_hi")
}
/// The full product: `u32 × u32 → u64`, `i32 × i32 → i64` (IR `mul_wide`).
pub fn mul_wide<T, W>(a: T, b: T) -> W {
    outside("mul_wide")
}
/// `if cond { a } else { b }` without a branch (both computed): IR `select`.
pub fn select<T>(cond: bool, a: T, b: T) -> T {
    outside("select")
}
/// The low 32 bits of the 64-bit `hi:lo` shifted right by `shift % 32` (`lo` for 0; CUDA's
/// `__funnelshift_r`): IR `funnel_shr`. The unaligned word `k` bytes into the aligned words `lo`,
/// `hi` is `funnel_shr(lo, hi, 8 * k)`.
pub fn funnel_shr(lo: u32, hi: u32, shift: u32) -> u32 {
    outside("funnel_shr")
}
/// Number of set bits of a `u32`/`u64` (`count_ones`): IR `popcount`.
pub fn popcount<T>(x: T) -> u32 {
    outside("popcount")
}
/// Leading zero bits of a `u32`/`u64`, the width for zero (`leading_zeros`): IR `clz`.
pub fn clz<T>(x: T) -> u32 {
    outside("clz")
}
/// Bits of a `u32`/`u64` in reverse order (`reverse_bits`): IR `brev`.
pub fn brev<T>(x: T) -> T {
    outside("brev")
}
/// Index of the lowest set bit of a `u32`/`u64`, `0xffff_ffff` for zero: IR `ffs`.
pub fn ffs<T>(x: T) -> u32 {
    outside("ffs")
}
/// `for i in unroll(a..b) { … }`: the loop is unrolled while building the kernel, `i` a constant
/// in each copy (so it can index a register array); `a` and `b` must be known while building.
pub fn unroll(range: core::ops::Range<u32>) -> core::ops::Range<u32> {
    range
}
/// `1 / sqrt(x)` on `f32` (Rust has no such method): IR `rsqrt`, within the backend's bound
/// (docs/kernels.md, "Math functions").
pub fn rsqrt(x: f32) -> f32 {
    outside("rsqrt")
}
/// The bits of `x` as another type of the same width (`u32`/`i32`/`f32`, `u64`/`i64`):
/// `bitcast::<f32>(bits)`, IR `bitcast`.
pub fn bitcast<To, From>(x: From) -> To {
    outside("bitcast")
}
