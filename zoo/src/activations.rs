//! GELU (the tanh form used by GPT-2 and PyTorch's `approximate="tanh"`), forward and backward,
//! one thread per element.

use warpforge_ir::kernel;

use crate::{Bounds, Tolerance};

/// `√(2/π)`.
const SQRT_2_OVER_PI: f32 = 0.797_884_6;
/// The cubic term's coefficient.
const CUBIC: f32 = 0.044_715;

/// `y = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))`.
#[kernel(block_size = 128)]
pub fn gelu_forward(x: &[f32], y: &mut [f32], n: u32) {
    let i = block_index() * block_size() + thread_index();
    if i < n {
        let v = x[i];
        let inner = SQRT_2_OVER_PI * v.mul_add(CUBIC * v * v, v);
        y[i] = 0.5 * v * (1.0 + inner.tanh());
    }
}

/// `dx = dy · (0.5·(1 + t) + 0.5·x·(1 - t²)·√(2/π)·(1 + 3·0.044715·x²))`, `t` the forward's tanh.
#[kernel(block_size = 128)]
pub fn gelu_backward(x: &[f32], dy: &[f32], dx: &mut [f32], n: u32) {
    let i = block_index() * block_size() + thread_index();
    if i < n {
        let v = x[i];
        let inner = SQRT_2_OVER_PI * v.mul_add(CUBIC * v * v, v);
        let t = inner.tanh();
        let sech2 = t.mul_add(-t, 1.0);
        let d_inner = SQRT_2_OVER_PI * (3.0 * CUBIC * v).mul_add(v, 1.0);
        let local = 0.5 * (1.0 + t) + 0.5 * v * sech2 * d_inner;
        dx[i] = dy[i] * local;
    }
}

fn inner(x: f64) -> f64 {
    f64::from(SQRT_2_OVER_PI) * (x + f64::from(CUBIC) * x * x * x)
}

/// GELU of each element in `f64`.
pub fn forward_reference(x: &[f32]) -> Vec<f64> {
    x.iter()
        .map(|&v| {
            let v = f64::from(v);
            0.5 * v * (1.0 + inner(v).tanh())
        })
        .collect()
}

/// GELU's gradient times `dy` in `f64`.
pub fn backward_reference(x: &[f32], dy: &[f32]) -> Vec<f64> {
    x.iter()
        .zip(dy)
        .map(|(&v, &d)| {
            let v = f64::from(v);
            let t = inner(v).tanh();
            let d_inner = f64::from(SQRT_2_OVER_PI) * (1.0 + 3.0 * f64::from(CUBIC) * v * v);
            f64::from(d) * (0.5 * (1.0 + t) + 0.5 * v * (1.0 - t * t) * d_inner)
        })
        .collect()
}

/// `tanh` within 2 ulp (simulators) or absolute 2^-19 (WGSL), then a few roundings; `1 + t`
/// cancels for large negative `x`, so the bound has an absolute part of an ulp of 1 times `|x|`
/// (inputs within ±8).
pub const BOUNDS: Bounds = Bounds {
    simulators: Tolerance {
        abs: 1e-6,
        rel: 2e-6,
    },
    wgsl: Tolerance {
        abs: 2e-5,
        rel: 1e-5,
    },
};
