//! Layer norm forward and backward over the last dimension: one warp per row for the forward pass
//! and the input gradient, one thread per column for the weight and bias gradients (a fixed order
//! over the rows, so the result does not depend on scheduling).

use warpforge_ir::kernel;

use crate::warp::warp_sum;

use crate::{Bounds, Tolerance};

/// The `eps` added to the variance (PyTorch's default).
pub const EPS: f32 = 1e-5;

/// `y = (x - mean) · rstd · weight + bias` per row, with `rstd = 1 / sqrt(var + eps)` (the biased
/// variance); each row's `mean` and `rstd` are stored for the backward pass.
#[kernel(block_size = 128)]
pub fn layernorm_forward(
    x: &[f32],
    weight: &[f32],
    bias: &[f32],
    y: &mut [f32],
    mean: &mut [f32],
    rstd: &mut [f32],
    rows: u32,
    cols: u32,
) {
    let row = block_index() * 4 + warp_index();
    // Warps past the last row reduce an empty row, so the collectives stay in block-uniform
    // control flow (WGSL emulates them with workgroup barriers).
    let width = select(row < rows, cols, 0);
    let base = row * cols;
    let lane = lane_id();
    let n = cols as f32;
    let mut s = 0.0f32;
    for c in (lane..width).step_by(32) {
        s += x[base + c];
    }
    s = warp_sum(s);
    let mu = s / n;
    let mut q = 0.0f32;
    for c in (lane..width).step_by(32) {
        let d = x[base + c] - mu;
        q = d.mul_add(d, q);
    }
    q = warp_sum(q);
    let r = rsqrt(q / n + EPS);
    for c in (lane..width).step_by(32) {
        y[base + c] = ((x[base + c] - mu) * r).mul_add(weight[c], bias[c]);
    }
    if row < rows && lane == 0 {
        mean[row] = mu;
        rstd[row] = r;
    }
}

/// The forward pass in `f64`: `(y, mean, rstd)`.
pub fn forward_reference(
    x: &[f32],
    weight: &[f32],
    bias: &[f32],
    rows: usize,
    cols: usize,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let (mut y, mut mean, mut rstd) = (Vec::new(), Vec::new(), Vec::new());
    for row in x.chunks_exact(cols).take(rows) {
        let mu = crate::sum(row.iter().map(|&v| f64::from(v))) / cols as f64;
        let var = crate::sum(row.iter().map(|&v| (f64::from(v) - mu).powi(2))) / cols as f64;
        let r = 1.0 / (var + f64::from(EPS)).sqrt();
        for (c, &v) in row.iter().enumerate() {
            y.push((f64::from(v) - mu) * r * f64::from(weight[c]) + f64::from(bias[c]));
        }
        mean.push(mu);
        rstd.push(r);
    }
    (y, mean, rstd)
}

/// The input gradient: with `x̂ = (x - mean)·rstd` and `g = dy·weight`,
/// `dx = rstd · (g - mean(g) - x̂ · mean(g·x̂))`.
#[kernel(block_size = 128)]
pub fn layernorm_backward_input(
    dy: &[f32],
    x: &[f32],
    weight: &[f32],
    mean: &[f32],
    rstd: &[f32],
    dx: &mut [f32],
    rows: u32,
    cols: u32,
) {
    let row = block_index() * 4 + warp_index();
    let active = row < rows;
    let width = select(active, cols, 0);
    let base = row * cols;
    let lane = lane_id();
    let mut mu = 0.0f32;
    let mut r = 0.0f32;
    if active {
        mu = mean[row];
        r = rstd[row];
    }
    let mut g_sum = 0.0f32;
    let mut gx_sum = 0.0f32;
    for c in (lane..width).step_by(32) {
        let g = dy[base + c] * weight[c];
        let xhat = (x[base + c] - mu) * r;
        g_sum += g;
        gx_sum = g.mul_add(xhat, gx_sum);
    }
    g_sum = warp_sum(g_sum);
    gx_sum = warp_sum(gx_sum);
    let n = cols as f32;
    let g_mean = g_sum / n;
    let gx_mean = gx_sum / n;
    for c in (lane..width).step_by(32) {
        let g = dy[base + c] * weight[c];
        let xhat = (x[base + c] - mu) * r;
        dx[base + c] = r * (g - g_mean - xhat * gx_mean);
    }
}

/// The weight and bias gradients, one thread per column summing over the rows in order:
/// `dweight[c] = Σ_r dy·x̂`, `dbias[c] = Σ_r dy`.
#[kernel(block_size = 128)]
pub fn layernorm_backward_params(
    dy: &[f32],
    x: &[f32],
    mean: &[f32],
    rstd: &[f32],
    dweight: &mut [f32],
    dbias: &mut [f32],
    rows: u32,
    cols: u32,
) {
    let c = block_index() * block_size() + thread_index();
    if c < cols {
        let mut dw = 0.0f32;
        let mut db = 0.0f32;
        for r in 0..rows {
            let i = r * cols + c;
            let xhat = (x[i] - mean[r]) * rstd[r];
            dw = dy[i].mul_add(xhat, dw);
            db += dy[i];
        }
        dweight[c] = dw;
        dbias[c] = db;
    }
}

/// The backward pass in `f64` from the forward pass's `mean` and `rstd` (as the kernels are given
/// them): `(dx, dweight, dbias)`.
pub fn backward_reference(
    dy: &[f32],
    x: &[f32],
    weight: &[f32],
    mean: &[f32],
    rstd: &[f32],
    rows: usize,
    cols: usize,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut dx = Vec::with_capacity(rows * cols);
    let (mut dw, mut db) = (vec![0f64; cols], vec![0f64; cols]);
    for r in 0..rows {
        let (mu, rs) = (f64::from(mean[r]), f64::from(rstd[r]));
        let xhat = |c: usize| (f64::from(x[r * cols + c]) - mu) * rs;
        let g = |c: usize| f64::from(dy[r * cols + c]) * f64::from(weight[c]);
        let g_mean = crate::sum((0..cols).map(g)) / cols as f64;
        let gx_mean = crate::sum((0..cols).map(|c| g(c) * xhat(c))) / cols as f64;
        for c in 0..cols {
            dx.push(rs * (g(c) - g_mean - xhat(c) * gx_mean));
            dw[c] += f64::from(dy[r * cols + c]) * xhat(c);
            db[c] += f64::from(dy[r * cols + c]);
        }
    }
    (dx, dw, db)
}

/// Sums of `cols` (forward, input gradient) or `rows` (parameter gradients) terms of size about 1:
/// an absolute error of a few `n·2^-24`; the backward's `g - mean(g)` cancels, so its bound is
/// absolute. `rsqrt` is within 2 ulp in WGSL.
pub const BOUNDS: Bounds = Bounds {
    simulators: Tolerance {
        abs: 2e-5,
        rel: 1e-5,
    },
    wgsl: Tolerance {
        abs: 5e-5,
        rel: 2e-5,
    },
};
