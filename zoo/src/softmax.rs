//! Row softmax and cross-entropy: one warp per row, numerically stable (the row's maximum is
//! subtracted before `exp`), the maximum and the sums reduced across the warp with `shuffle_xor`.

use warpforge_ir::kernel;

use crate::warp::{warp_max, warp_sum};

use crate::{Bounds, Tolerance};

/// `y[r][c] = exp(x[r][c] - max_r) / Σ_c exp(x[r][c] - max_r)` for `rows × cols` row-major `x`.
#[kernel(block_size = 128)]
pub fn softmax(x: &[f32], y: &mut [f32], rows: u32, cols: u32) {
    let row = block_index() * 4 + warp_index();
    // A warp past the last row runs the reductions on an empty row: the collectives stay in
    // block-uniform control flow, which WGSL's workgroup-barrier emulation of them needs.
    let width = select(row < rows, cols, 0);
    let base = row * cols;
    let lane = lane_id();
    let mut m = f32::MIN;
    for c in (lane..width).step_by(32) {
        m = m.max(x[base + c]);
    }
    m = warp_max(m);
    let mut s = 0.0f32;
    for c in (lane..width).step_by(32) {
        s += (x[base + c] - m).exp();
    }
    s = warp_sum(s);
    let inv = s.recip();
    for c in (lane..width).step_by(32) {
        y[base + c] = (x[base + c] - m).exp() * inv;
    }
}

/// Softmax of each row in `f64`.
pub fn softmax_reference(x: &[f32], rows: usize, cols: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(rows * cols);
    for row in x.chunks_exact(cols).take(rows) {
        let m = row.iter().fold(f64::MIN, |m, &v| m.max(f64::from(v)));
        let s = crate::sum(row.iter().map(|&v| (f64::from(v) - m).exp()));
        out.extend(row.iter().map(|&v| (f64::from(v) - m).exp() / s));
    }
    out
}

/// Each output is a few `exp`s' errors (1 ulp each on the simulators) plus the sum's rounding
/// (`cols / 32` additions per lane and 5 across the warp: relative `(cols/32 + 5)·2^-24`); in WGSL
/// `exp` is within `4 + 3|x - max|` ulp, and the inputs are within 16 of the maximum.
pub const SOFTMAX_BOUNDS: Bounds = Bounds {
    simulators: Tolerance {
        abs: 1e-9,
        rel: 2e-6,
    },
    wgsl: Tolerance {
        abs: 1e-8,
        rel: 2e-5,
    },
};

/// `loss[r] = ln Σ_c exp(logits[r][c]) - logits[r][target[r]]` (the mean over rows is left to the
/// caller); a `target` out of range gives NaN.
#[kernel(block_size = 128)]
pub fn cross_entropy(logits: &[f32], targets: &[u32], loss: &mut [f32], rows: u32, cols: u32) {
    let row = block_index() * 4 + warp_index();
    let width = select(row < rows, cols, 0);
    let base = row * cols;
    let lane = lane_id();
    let mut m = f32::MIN;
    for c in (lane..width).step_by(32) {
        m = m.max(logits[base + c]);
    }
    m = warp_max(m);
    let mut s = 0.0f32;
    for c in (lane..width).step_by(32) {
        s += (logits[base + c] - m).exp();
    }
    s = warp_sum(s);
    if row < rows {
        if lane == 0 {
            let target = targets[row];
            let mut picked = f32::NAN;
            if target < cols {
                picked = logits[base + target];
            }
            loss[row] = s.ln() + m - picked;
        }
    }
}

/// Cross-entropy of each row in `f64` (NaN for a target out of range).
pub fn cross_entropy_reference(
    logits: &[f32],
    targets: &[u32],
    rows: usize,
    cols: usize,
) -> Vec<f64> {
    logits
        .chunks_exact(cols)
        .take(rows)
        .zip(targets)
        .map(|(row, &t)| {
            let m = row.iter().fold(f64::MIN, |m, &v| m.max(f64::from(v)));
            let s = crate::sum(row.iter().map(|&v| (f64::from(v) - m).exp()));
            let picked = row.get(t as usize).map_or(f64::NAN, |&v| f64::from(v));
            s.ln() + m - picked
        })
        .collect()
}

/// `ln` of a sum of `exp`s: absolute error about `ulp(ln s) + ulp(m)` plus the sum's relative
/// error; the losses are below 20.
pub const CROSS_ENTROPY_BOUNDS: Bounds = Bounds {
    simulators: Tolerance {
        abs: 1e-5,
        rel: 1e-6,
    },
    wgsl: Tolerance {
        abs: 1e-4,
        rel: 1e-5,
    },
};
