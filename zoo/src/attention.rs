//! Causal scaled-dot-product attention for one head of dimension 32, one warp per query (a lane per
//! dimension), keys visited once with the online softmax (a running maximum and sum, as
//! FlashAttention does), so no score matrix is stored.

use warpforge_ir::kernel;

use crate::warp::warp_sum;

use crate::{Bounds, Tolerance};

/// The head dimension: one lane per component.
pub const HEAD_DIM: u32 = 32;

/// `out[i] = Σ_{j ≤ i} softmax_j(q_i·k_j / √32) · v_j` for `q`, `k`, `v` of `len × 32` row-major.
#[kernel(block_size = 128)]
pub fn attention_forward(q: &[f32], k: &[f32], v: &[f32], out: &mut [f32], len: u32) {
    let i = block_index() * 4 + warp_index();
    let lane = lane_id();
    // Every warp of the block visits the keys of the block's last query, so the collectives stay
    // in block-uniform control flow (WGSL emulates them with workgroup barriers); a key past the
    // warp's own query (or a warp past the last query) gets weight 0.
    let last = min(block_index() * 4 + 3, len - 1);
    let active = i < len;
    let mut qd = 0.0f32;
    if active {
        qd = q[i * 32 + lane] * 0.176_776_7;
    }
    let mut m = f32::MIN;
    let mut l = 0.0f32;
    let mut acc = 0.0f32;
    for j in 0..last + 1 {
        let s = warp_sum(qd * k[j * 32 + lane]);
        if j <= i {
            let m_new = m.max(s);
            let correction = (m - m_new).exp();
            let p = (s - m_new).exp();
            l = l.mul_add(correction, p);
            acc = acc.mul_add(correction, p * v[j * 32 + lane]);
            m = m_new;
        }
    }
    if active {
        out[i * 32 + lane] = acc / l;
    }
}

/// The attention output in `f64`.
pub fn reference(q: &[f32], k: &[f32], v: &[f32], len: usize) -> Vec<f64> {
    let d = HEAD_DIM as usize;
    let scale = 1.0 / (d as f64).sqrt();
    let mut out = Vec::with_capacity(len * d);
    for i in 0..len {
        let scores: Vec<f64> = (0..=i)
            .map(|j| {
                scale
                    * crate::sum((0..d).map(|c| f64::from(q[i * d + c]) * f64::from(k[j * d + c])))
            })
            .collect();
        let m = scores.iter().fold(f64::MIN, |m, &s| m.max(s));
        let w: Vec<f64> = scores.iter().map(|s| (s - m).exp()).collect();
        let total = crate::sum(w.iter().copied());
        for c in 0..d {
            out.push(crate::sum((0..=i).map(|j| w[j] * f64::from(v[j * d + c]))) / total);
        }
    }
    out
}

/// Weights are `exp`s of scores that are sums of 32 products (absolute error about `32·2^-24·|q||k|`),
/// the output a weighted mean of `v` (values in [-1, 1)): an absolute bound.
pub const BOUNDS: Bounds = Bounds {
    simulators: Tolerance {
        abs: 2e-6,
        rel: 1e-6,
    },
    wgsl: Tolerance {
        abs: 2e-5,
        rel: 1e-5,
    },
};
