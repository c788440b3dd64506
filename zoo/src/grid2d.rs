//! Kernels on 2-D blocks and grids: a tiled matrix transpose through shared memory (the tile padded
//! to 33 columns so neither phase has bank conflicts) and a 5-point stencil whose block loads its
//! 16 × 16 tile with a one-cell halo (replicated at the edges) into shared memory.

use warpforge_ir::kernel;

use crate::{Bounds, Tolerance};

/// The transpose's tile: 32 × 32 elements, moved by a 32 × 8 block in four passes.
pub const TILE: u32 = 32;
/// The stencil's block: 16 × 16 outputs.
pub const STENCIL_TILE: u32 = 16;

/// `output[c][r] = input[r][c]` for `rows × cols` row-major `input` (`output` is `cols × rows`).
/// Launch over a grid of `cols.div_ceil(32) × rows.div_ceil(32)` blocks.
#[kernel(block_size = (32, 8))]
pub fn transpose(input: &[f32], output: &mut [f32], rows: u32, cols: u32) {
    let tile = shared::<f32>(32 * 33, 4);
    let tx = thread_index_x();
    let ty = thread_index_y();
    let x = block_index_x() * 32 + tx;
    for j in [0u32, 8, 16, 24] {
        let y = block_index_y() * 32 + ty + j;
        if x < cols && y < rows {
            tile[(ty + j) * 33 + tx] = input[y * cols + x];
        }
    }
    barrier();
    let ox = block_index_y() * 32 + tx;
    for j in [0u32, 8, 16, 24] {
        let oy = block_index_x() * 32 + ty + j;
        if ox < rows && oy < cols {
            output[oy * rows + ox] = tile[tx * 33 + ty + j];
        }
    }
}

/// The transpose on the host.
pub fn transpose_reference(input: &[f32], rows: usize, cols: usize) -> Vec<f64> {
    let mut out = vec![0f64; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = f64::from(input[r * cols + c]);
        }
    }
    out
}

/// A transpose moves bits: exact everywhere.
pub const TRANSPOSE_BOUNDS: Bounds = Bounds {
    simulators: Tolerance { abs: 0.0, rel: 0.0 },
    wgsl: Tolerance { abs: 0.0, rel: 0.0 },
};

/// `output[y][x] = center·in[y][x] + side·(in[y-1][x] + in[y+1][x] + in[y][x-1] + in[y][x+1])`
/// with the edges replicated (a neighbour outside the grid is the nearest cell inside). Launch
/// over `cols.div_ceil(16) × rows.div_ceil(16)` blocks.
#[kernel(block_size = (16, 16))]
pub fn stencil5(input: &[f32], output: &mut [f32], rows: u32, cols: u32, center: f32, side: f32) {
    let tile = shared::<f32>(18 * 18, 4);
    let ox = block_index_x() * 16;
    let oy = block_index_y() * 16;
    // The 18 × 18 cells around the block's outputs, two per thread at most.
    for k in (thread_index()..324).step_by(256) {
        let y = min(max(oy + k / 18, 1) - 1, rows - 1);
        let x = min(max(ox + k % 18, 1) - 1, cols - 1);
        tile[k] = input[y * cols + x];
    }
    barrier();
    let x = ox + thread_index_x();
    let y = oy + thread_index_y();
    if x < cols && y < rows {
        let c = (thread_index_y() + 1) * 18 + thread_index_x() + 1;
        let around = (tile[c - 18] + tile[c + 18]) + (tile[c - 1] + tile[c + 1]);
        output[y * cols + x] = center.mul_add(tile[c], side * around);
    }
}

/// The stencil in `f64`.
pub fn stencil_reference(
    input: &[f32],
    rows: usize,
    cols: usize,
    center: f32,
    side: f32,
) -> Vec<f64> {
    let at = |y: isize, x: isize| {
        let y = y.clamp(0, rows as isize - 1) as usize;
        let x = x.clamp(0, cols as isize - 1) as usize;
        f64::from(input[y * cols + x])
    };
    let mut out = Vec::with_capacity(rows * cols);
    for y in 0..rows as isize {
        for x in 0..cols as isize {
            let around = at(y - 1, x) + at(y + 1, x) + at(y, x - 1) + at(y, x + 1);
            out.push(f64::from(center) * at(y, x) + f64::from(side) * around);
        }
    }
    out
}

/// Four additions, a product and a fused multiply-add on values of size 1: a few `2^-24`
/// absolute.
pub const STENCIL_BOUNDS: Bounds = Bounds {
    simulators: Tolerance {
        abs: 1e-6,
        rel: 1e-6,
    },
    wgsl: Tolerance {
        abs: 2e-6,
        rel: 2e-6,
    },
};
