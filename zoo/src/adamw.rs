//! One AdamW step (Loshchilov & Hutter; PyTorch's `AdamW`), one thread per parameter, the bias
//! corrections computed in the kernel from the step number with `powf`.

use warpforge_ir::kernel;

use crate::{Bounds, Tolerance};

/// The step's hyperparameters.
#[derive(Clone, Copy, Debug)]
pub struct Hyper {
    /// Learning rate.
    pub lr: f32,
    /// First-moment decay.
    pub beta1: f32,
    /// Second-moment decay.
    pub beta2: f32,
    /// Added to the second moment's square root.
    pub eps: f32,
    /// Decoupled weight decay.
    pub weight_decay: f32,
    /// The step number, from 1.
    pub step: u32,
}

/// `m = β1·m + (1-β1)·g`, `v = β2·v + (1-β2)·g²`, then
/// `p -= lr · (m/(1-β1^t) / (sqrt(v/(1-β2^t)) + eps) + wd·p)`.
#[kernel(block_size = 128)]
pub fn adamw_step(
    param: &mut [f32],
    grad: &[f32],
    m: &mut [f32],
    v: &mut [f32],
    lr: f32,
    beta1: f32,
    beta2: f32,
    eps: f32,
    weight_decay: f32,
    step: u32,
    n: u32,
) {
    let i = block_index() * block_size() + thread_index();
    if i < n {
        let t = step as f32;
        let c1 = (1.0 - beta1.powf(t)).recip();
        let c2 = (1.0 - beta2.powf(t)).recip();
        let g = grad[i];
        let m1 = beta1.mul_add(m[i], (1.0 - beta1) * g);
        let v1 = beta2.mul_add(v[i], (1.0 - beta2) * g * g);
        m[i] = m1;
        v[i] = v1;
        let p = param[i];
        let update = (m1 * c1) / ((v1 * c2).sqrt() + eps);
        param[i] = p - lr * weight_decay.mul_add(p, update);
    }
}

/// The step in `f64`: `(param, m, v)` after it.
pub fn reference(
    param: &[f32],
    grad: &[f32],
    m: &[f32],
    v: &[f32],
    h: Hyper,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let (b1, b2) = (f64::from(h.beta1), f64::from(h.beta2));
    let c1 = 1.0 / (1.0 - b1.powi(h.step as i32));
    let c2 = 1.0 / (1.0 - b2.powi(h.step as i32));
    let (mut p_out, mut m_out, mut v_out) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..param.len() {
        let g = f64::from(grad[i]);
        let m1 = b1 * f64::from(m[i]) + (1.0 - b1) * g;
        let v1 = b2 * f64::from(v[i]) + (1.0 - b2) * g * g;
        let p = f64::from(param[i]);
        let update = m1 * c1 / ((v1 * c2).sqrt() + f64::from(h.eps));
        p_out.push(p - f64::from(h.lr) * (update + f64::from(h.weight_decay) * p));
        m_out.push(m1);
        v_out.push(v1);
    }
    (p_out, m_out, v_out)
}

/// The moments are a few roundings (relative 2^-22); the parameter moves by `lr` times an update
/// of size about 1, and `powf` of `β2 = 0.999` to the step is within `(2 + 2e)` ulp (`e` small),
/// so the parameter's error is absolute, of `lr`'s order times 2^-20 (WGSL: `powf` within
/// `5 + 6·max(e, t)` ulp, which grows with the step).
pub const BOUNDS: Bounds = Bounds {
    simulators: Tolerance {
        abs: 1e-7,
        rel: 1e-6,
    },
    wgsl: Tolerance {
        abs: 1e-6,
        rel: 1e-5,
    },
};
