//! Small kernels written as Rust functions (`#[kernel]`), kept as examples and as test input for every
//! emitter; `tests/it/macro_samples.rs` proves each equal to the builder form it replaced.

use crate::{kernel, Kernel};

/// A sample kernel: its command-line name, a one-line description and its constructor.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// Name on the command line (kebab-case).
    pub name: &'static str,
    /// What it computes.
    pub description: &'static str,
    /// Builds the kernel.
    pub build: fn() -> Kernel,
}

/// Every sample kernel, in a fixed order.
pub const ALL: &[Sample] = &[
    Sample {
        name: "vector-add",
        description: "out[i] = a[i] + b[i] for i < n (f32), one thread per element",
        build: vector_add,
    },
    Sample {
        name: "warp-reduce",
        description: "sum of each warp's 32 u32 inputs by shuffle-xor butterfly, lane 0 stores it",
        build: warp_reduce,
    },
    Sample {
        name: "warp-collectives",
        description:
            "every warp collective, every lane's result stored: the warp semantics on each backend",
        build: warp_collectives,
    },
];

/// Results [`warp_collectives`] stores per thread, in order.
pub const WARP_COLLECTIVE_OUTPUTS: u32 = 9;

// Every warp collective once, with every lane's result stored, so a backend's warp semantics can be
/// compared with CUDA's lane by lane. Thread `t` (global index) reads `x = input[t]` and writes
/// `out[t * 9 + k]` for:
/// 0 `shuffle idx x, 5`; 1 `shuffle up x, 3`; 2 `shuffle down x, 7`; 3 `shuffle xor x, 9`;
/// 4 `shuffle idx x, x` (a per-lane source, taken modulo 32); 5 `ballot (x & 1 == 1)`;
/// 6 `vote any (x % 97 == 0)` as 0/1; 7 `vote all (x != 12345)` as 0/1; 8 `match_any (x & 3)`.
/// All masks are full; two warps per block.
#[kernel(block_size = 64)]
pub fn warp_collectives(input: &[u32], out: &mut [u32]) {
    let t = block_index() * block_size() + thread_index();
    let x = input[t];
    let r0 = shuffle_idx(x, 5, FULL_MASK);
    let r1 = shuffle_up(x, 3, FULL_MASK);
    let r2 = shuffle_down(x, 7, FULL_MASK);
    let r3 = shuffle_xor(x, 9, FULL_MASK);
    let r4 = shuffle_idx(x, x, FULL_MASK);
    let one = 1u32;
    let r5 = ballot((x & one) == one, FULL_MASK);
    let r6 = vote_any(x % 97 == 0, FULL_MASK) as u32;
    let r7 = vote_all(x != 12345, FULL_MASK) as u32;
    let r8 = match_any(x & 3, FULL_MASK);
    let first = t * WARP_COLLECTIVE_OUTPUTS;
    out[first + 0] = r0;
    out[first + 1] = r1;
    out[first + 2] = r2;
    out[first + 3] = r3;
    out[first + 4] = r4;
    out[first + 5] = r5;
    out[first + 6] = r6;
    out[first + 7] = r7;
    out[first + 8] = r8;
}

/// `out[i] = a[i] + b[i]` for every `i < n`, with `i = block_index * block_size + thread_index`.
#[kernel(block_size = 128)]
pub fn vector_add(a: &[f32], b: &[f32], out: &mut [f32], n: u32) {
    let i = block_index() * block_size() + thread_index();
    if i < n {
        out[i] = a[i] + b[i];
    }
}

/// Each warp sums the 32 `u32` inputs `input[w * 32 .. w * 32 + 32]` (wrapping), where `w` is the
/// warp's global index; inputs at or past `n` count as 0. Lane 0 writes the sum to `sums[w]`.
/// All lanes reach every shuffle, whatever `n` is: the bounds check only selects what a lane offers.
#[kernel(block_size = 128)]
pub fn warp_reduce(input: &[u32], sums: &mut [u32], n: u32) {
    // IR locals start at zero: this initializer emits nothing.
    let mut acc = 0u32;
    let i = block_index() * block_size() + thread_index();
    if i < n {
        acc = input[i];
    }
    // Unrolled while building, as the builder form's Rust loop is.
    for delta in [16, 8, 4, 2, 1] {
        let mine = acc;
        let theirs = shuffle_xor(mine, delta, FULL_MASK);
        acc = mine + theirs;
    }
    if lane_id() == 0 {
        let warp = i >> 5;
        sums[warp] = acc;
    }
}
