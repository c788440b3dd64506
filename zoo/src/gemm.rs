//! A tiled SGEMM with register blocking and vector loads (the structure of the well-known CUDA
//! SGEMM walkthroughs): a 16 × 16 block computes a 64 × 64 tile of `C`, each thread a 4 × 4 block
//! of it in a register array, from 64 × 16 and 16 × 64 tiles of `A` and `B` staged in shared memory
//! with 16-byte loads (`load4`), `A`'s tile transposed so both operands are read as `float4`s.

use warpforge_ir::kernel;

use crate::{Bounds, Tolerance};

/// Rows and columns of `C` per block.
pub const TILE: u32 = 64;
/// The depth of each staged slice of `A` and `B`.
pub const DEPTH: u32 = 16;

/// `c = a · b` for row-major `a` (`m × k`), `b` (`k × n`), `c` (`m × n`); `m` and `n` multiples of
/// 64, `k` a multiple of 16. Launch over `n / 64 × m / 64` blocks.
#[kernel(block_size = (16, 16))]
pub fn sgemm(a: &[f32], b: &[f32], c: &mut [f32], m: u32, n: u32, k: u32) {
    let a_tile = shared::<f32>(16 * 64, 16);
    let b_tile = shared::<f32>(16 * 64, 16);
    let t = thread_index();
    let tx = thread_index_x();
    let ty = thread_index_y();
    let m0 = block_index_y() * 64;
    let n0 = block_index_x() * 64;
    let mut acc = [0.0f32; 16];
    for k0 in (0..k).step_by(16) {
        // A's 64 × 16 slice, one float4 per thread, stored transposed: a_tile[kk][row].
        let row = t / 4;
        let col = (t % 4) * 4;
        let [a0, a1, a2, a3] = load4(&a[(m0 + row) * k + k0 + col]);
        a_tile[col * 64 + row] = a0;
        a_tile[(col + 1) * 64 + row] = a1;
        a_tile[(col + 2) * 64 + row] = a2;
        a_tile[(col + 3) * 64 + row] = a3;
        // B's 16 × 64 slice, one float4 per thread.
        let brow = t / 16;
        let bcol = (t % 16) * 4;
        let [b0, b1, b2, b3] = load4(&b[(k0 + brow) * n + n0 + bcol]);
        store4(&mut b_tile[brow * 64 + bcol], [b0, b1, b2, b3]);
        barrier();
        for kk in 0..16u32 {
            let [x0, x1, x2, x3] = load4(&a_tile[kk * 64 + ty * 4]);
            let [y0, y1, y2, y3] = load4(&b_tile[kk * 64 + tx * 4]);
            let xs = [x0, x1, x2, x3];
            let ys = [y0, y1, y2, y3];
            for i in unroll(0..4) {
                for j in unroll(0..4) {
                    acc[i * 4 + j] = xs[i].mul_add(ys[j], acc[i * 4 + j]);
                }
            }
        }
        barrier();
    }
    for i in unroll(0..4) {
        let row = m0 + ty * 4 + i;
        if row < m {
            let at = row * n + n0 + tx * 4;
            store4(
                &mut c[at],
                [acc[i * 4], acc[i * 4 + 1], acc[i * 4 + 2], acc[i * 4 + 3]],
            );
        }
    }
}

/// `a · b` in `f64`.
pub fn reference(a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Vec<f64> {
    let mut c = vec![0f64; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] =
                crate::sum((0..k).map(|p| f64::from(a[i * k + p]) * f64::from(b[p * n + j])));
        }
    }
    c
}

/// A dot product of `k` terms accumulated in order with fused multiply-adds: absolute error up to
/// `k·2^-24·Σ|a·b|`; with entries in [-1, 1) and `k = 96`, below `6e-4` (WGSL's `fma` may round
/// twice: twice that).
pub const BOUNDS: Bounds = Bounds {
    simulators: Tolerance {
        abs: 6e-4,
        rel: 0.0,
    },
    wgsl: Tolerance {
        abs: 1.2e-3,
        rel: 0.0,
    },
};

/// A half-precision GEMM with `f32` accumulation (mixed precision, as tensor-core GEMMs compute):
/// `c = a · b` for row-major `f16` operands `a` (`m × k`) and `b` (`k × n`) and an `f32` result `c`
/// (`m × n`). The same 64 × 64 tiling and 4 × 4 register blocks as [`sgemm`]; the staged tiles stay
/// `f16` in shared memory (half the bytes of `sgemm`'s), each element is widened exactly to `f32`
/// when read, and the products are accumulated with `f32` fused multiply-adds. `m` and `n` multiples
/// of 64, `k` a multiple of 16; launch over `n / 64 × m / 64` blocks.
#[kernel(block_size = (16, 16))]
pub fn hgemm(a: &[f16], b: &[f16], c: &mut [f32], m: u32, n: u32, k: u32) {
    let a_tile = shared::<f16>(16 * 64, 16);
    let b_tile = shared::<f16>(16 * 64, 16);
    let t = thread_index();
    let tx = thread_index_x();
    let ty = thread_index_y();
    let m0 = block_index_y() * 64;
    let n0 = block_index_x() * 64;
    let mut acc = [0.0f32; 16];
    for k0 in (0..k).step_by(16) {
        // A's 64 × 16 slice, four halves per thread, stored transposed: a_tile[kk][row].
        let row = t / 4;
        let col = (t % 4) * 4;
        for q in unroll(0..4) {
            a_tile[(col + q) * 64 + row] = a[(m0 + row) * k + k0 + col + q];
        }
        // B's 16 × 64 slice, four halves per thread.
        let brow = t / 16;
        let bcol = (t % 16) * 4;
        for q in unroll(0..4) {
            b_tile[brow * 64 + bcol + q] = b[(k0 + brow) * n + n0 + bcol + q];
        }
        barrier();
        for kk in 0..16u32 {
            let xs = [
                a_tile[kk * 64 + ty * 4] as f32,
                a_tile[kk * 64 + ty * 4 + 1] as f32,
                a_tile[kk * 64 + ty * 4 + 2] as f32,
                a_tile[kk * 64 + ty * 4 + 3] as f32,
            ];
            let ys = [
                b_tile[kk * 64 + tx * 4] as f32,
                b_tile[kk * 64 + tx * 4 + 1] as f32,
                b_tile[kk * 64 + tx * 4 + 2] as f32,
                b_tile[kk * 64 + tx * 4 + 3] as f32,
            ];
            for i in unroll(0..4) {
                for j in unroll(0..4) {
                    acc[i * 4 + j] = xs[i].mul_add(ys[j], acc[i * 4 + j]);
                }
            }
        }
        barrier();
    }
    for i in unroll(0..4) {
        let row = m0 + ty * 4 + i;
        if row < m {
            let at = row * n + n0 + tx * 4;
            store4(
                &mut c[at],
                [acc[i * 4], acc[i * 4 + 1], acc[i * 4 + 2], acc[i * 4 + 3]],
            );
        }
    }
}

/// `a · b` in `f64` for `f16` operands given as their bits (each exact in `f64`).
pub fn half_reference(a: &[u16], b: &[u16], m: usize, n: usize, k: usize) -> Vec<f64> {
    let wide = |h: &[u16]| -> Vec<f32> {
        h.iter()
            .map(|&x| half::f16::from_bits(x).to_f32())
            .collect()
    };
    reference(&wide(a), &wide(b), m, n, k)
}

/// As [`BOUNDS`]: the products of two halves are exact in `f32` (11 + 11 significant bits), so the
/// only rounding is the `f32` accumulation's.
pub const HALF_BOUNDS: Bounds = BOUNDS;
