//! A zoo of well-known float kernels written with `#[warpforge_ir::kernel]`: row softmax,
//! cross-entropy, layer norm forward and backward, GELU forward and backward, an AdamW step, a sum
//! reduction, an inclusive scan, causal attention for one head, and on 2-D blocks and grids a tiled
//! transpose, a 5-point stencil, a register-blocked SGEMM with vector loads and a half-precision GEMM
//! with `f32` accumulation. Each module holds the kernels, a
//! Rust reference computed in `f64` from the same `f32` inputs, and the [`Bounds`] its outputs meet
//! on each backend; `tests/it/zoo.rs` in the workspace runs every kernel on the IR simulator, its
//! PTX on the PTX simulator (sm_70, sm_80, sm_90) and its WGSL on WebGPU against the reference,
//! assembles the PTX with ptxas (no spills) and lints each kernel (no finding).
//!
//! Conventions: one warp per row where a row is reduced (`block_size = 128`, four rows per block:
//! `rows.div_ceil(4)` blocks), rows are contiguous, and every kernel takes its sizes as `u32`
//! parameters and checks them, so any `rows`/`cols` launch correctly.

pub mod activations;
pub mod adamw;
pub mod attention;
pub mod gemm;
pub mod grid2d;
pub mod layernorm;
pub mod reduce;
pub mod softmax;
pub mod warp;

/// How close an output must be to the reference, element by element:
/// `|got - want| <= abs + rel * |want|`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Absolute part.
    pub abs: f64,
    /// Relative part.
    pub rel: f64,
}

impl Tolerance {
    /// Whether `got` is within the tolerance of `want`.
    pub fn admits(&self, got: f32, want: f64) -> bool {
        (f64::from(got) - want).abs() <= self.abs + self.rel * want.abs()
    }
}

/// A kernel's tolerances: on the simulators (the IR simulator and the PTX simulator, where the math
/// primitives are the nearest `f32`) and in WGSL (whose accuracy table is looser: see
/// docs/kernels.md, "Math functions"). The PTX on a GPU is within the simulators' tolerance scaled
/// by the `.approx` instructions' bounds (a few ulp per primitive).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// On the IR simulator and the PTX simulator.
    pub simulators: Tolerance,
    /// In WGSL, on WebGPU.
    pub wgsl: Tolerance,
}

/// Rows per block of the warp-per-row kernels.
pub const ROWS_PER_BLOCK: u32 = 4;

/// The sum of `values` in `f64`.
pub(crate) fn sum(values: impl IntoIterator<Item = f64>) -> f64 {
    values.into_iter().sum()
}
