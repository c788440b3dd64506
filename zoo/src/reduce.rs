//! A sum reduction and an inclusive scan of `f32`, block by block in a fixed order (warp shuffles,
//! then the warps' totals through shared memory), so each result is deterministic.

use warpforge_ir::kernel;

use crate::warp::warp_sum;

use crate::{Bounds, Tolerance};

/// Elements per block of [`block_sum`] and [`block_scan`] (one per thread).
pub const BLOCK: u32 = 256;

/// `partial[b] = Σ x[b·256 .. b·256 + 256]` (elements past `n` count as 0); the host or a second
/// launch over `partial` finishes the sum.
#[kernel(block_size = 256)]
pub fn block_sum(x: &[f32], partial: &mut [f32], n: u32) {
    let warp_totals = shared::<f32>(8, 4);
    let i = block_index() * 256 + thread_index();
    let mut s = 0.0f32;
    if i < n {
        s = x[i];
    }
    s = warp_sum(s);
    if lane_id() == 0 {
        warp_totals[warp_index()] = s;
    }
    barrier();
    // Every warp sums the eight totals (the collectives stay in block-uniform control flow, which
    // WGSL's workgroup-barrier emulation of them needs); warp 0 stores the result.
    let mut t = 0.0f32;
    if lane_id() < 8 {
        t = warp_totals[lane_id() & 7];
    }
    for off in [4u32, 2, 1] {
        t += shuffle_xor(t, off, FULL_MASK);
    }
    if thread_index() == 0 {
        partial[block_index()] = t;
    }
}

/// Each block's inclusive scan of its 256 elements: `y[i] = Σ x[b·256 ..= i]`, and the block's
/// total in `totals[b]`. [`add_offsets`] with the scanned totals makes it a scan of the whole array.
#[kernel(block_size = 256)]
pub fn block_scan(x: &[f32], y: &mut [f32], totals: &mut [f32], n: u32) {
    let warp_sums = shared::<f32>(8, 4);
    let i = block_index() * 256 + thread_index();
    let lane = lane_id();
    let mut s = 0.0f32;
    if i < n {
        s = x[i];
    }
    for off in [1u32, 2, 4, 8, 16] {
        let up = shuffle_up(s, off, FULL_MASK);
        if lane >= off {
            s += up;
        }
    }
    if lane == 31 {
        warp_sums[warp_index()] = s;
    }
    barrier();
    // Every warp scans the eight totals itself (block-uniform collectives, as WGSL needs) and takes
    // the sum of the warps before it from lane `warp_index() - 1`.
    let mut w = 0.0f32;
    if lane < 8 {
        w = warp_sums[lane & 7];
    }
    for off in [1u32, 2, 4] {
        let up = shuffle_up(w, off, FULL_MASK);
        if lane >= off {
            w += up;
        }
    }
    let before = shuffle_idx(w, (warp_index() + 31) & 31, FULL_MASK);
    if warp_index() > 0 {
        s += before;
    }
    if i < n {
        y[i] = s;
    }
    if thread_index() == 255 {
        totals[block_index()] = s;
    }
}

/// `y[i] += offsets[b - 1]` for every block `b > 0`: `offsets` is the inclusive scan of the
/// blocks' totals (a [`block_scan`] of `totals` for up to 256 blocks).
#[kernel(block_size = 256)]
pub fn add_offsets(y: &mut [f32], offsets: &[f32], n: u32) {
    let i = block_index() * 256 + thread_index();
    if i < n && block_index() > 0 {
        y[i] += offsets[block_index() - 1];
    }
}

/// Each 256-element block's sum in `f64`.
pub fn block_sum_reference(x: &[f32]) -> Vec<f64> {
    x.chunks(BLOCK as usize)
        .map(|b| crate::sum(b.iter().map(|&v| f64::from(v))))
        .collect()
}

/// The inclusive scan in `f64`.
pub fn scan_reference(x: &[f32]) -> Vec<f64> {
    let mut acc = 0f64;
    x.iter()
        .map(|&v| {
            acc += f64::from(v);
            acc
        })
        .collect()
}

/// A tree sum of 256 terms rounds each partial sum once per level (8 levels): absolute error up to
/// `8·2^-24·Σ|x|`, with inputs in [-1, 1) at most `2^-13` for a block.
pub const SUM_BOUNDS: Bounds = Bounds {
    simulators: Tolerance {
        abs: 1.25e-4,
        rel: 0.0,
    },
    wgsl: Tolerance {
        abs: 1.25e-4,
        rel: 0.0,
    },
};

/// A prefix adds a block's tree (8 levels), the scanned totals' tree (8 more) and one addition:
/// absolute error up to `17·2^-24·Σ|x|`, with inputs in [-1, 1) at most `2^-20·n` (0.04 for the
/// test's 40,000 elements).
pub const SCAN_BOUNDS: Bounds = Bounds {
    simulators: Tolerance {
        abs: 4e-2,
        rel: 0.0,
    },
    wgsl: Tolerance {
        abs: 4e-2,
        rel: 0.0,
    },
};
