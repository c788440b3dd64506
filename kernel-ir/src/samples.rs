//! Small kernels written with the builder, kept as examples and as test input for every emitter.

use crate::builder::{KernelBuilder, F32, U32};
use crate::stmt::{Mask, ShuffleMode};
use crate::types::Access;
use crate::Kernel;

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
];

/// `out[i] = a[i] + b[i]` for every `i < n`, with `i = block_index * block_size + thread_index`.
pub fn vector_add() -> Kernel {
    let mut b = KernelBuilder::new("vector_add", 128);
    let a = b.buffer::<F32>("a", Access::ReadOnly);
    let bb = b.buffer::<F32>("b", Access::ReadOnly);
    let out = b.buffer::<F32>("out", Access::ReadWrite);
    let n = b.scalar_param::<U32>("n");
    let block = b.block_index();
    let size = b.block_size();
    let base = b.mul(block, size);
    let tid = b.thread_index();
    let i = b.add(base, tid);
    let n = b.param(n);
    let in_range = b.lt(i, n);
    b.if_(in_range, |b| {
        let x = b.load(a, i);
        let y = b.load(bb, i);
        let sum = b.add(x, y);
        b.store(out, i, sum);
    });
    b.finish().expect("the vector_add sample verifies")
}

/// Each warp sums the 32 `u32` inputs `input[w * 32 .. w * 32 + 32]` (wrapping), where `w` is the
/// warp's global index; inputs at or past `n` count as 0. Lane 0 writes the sum to `sums[w]`.
/// All lanes reach every shuffle, whatever `n` is: the bounds check only selects what a lane offers.
pub fn warp_reduce() -> Kernel {
    let mut b = KernelBuilder::new("warp_reduce", 128);
    let input = b.buffer::<U32>("input", Access::ReadOnly);
    let sums = b.buffer::<U32>("sums", Access::ReadWrite);
    let n = b.scalar_param::<U32>("n");
    let acc = b.local::<U32>("acc");
    let block = b.block_index();
    let size = b.block_size();
    let base = b.mul(block, size);
    let tid = b.thread_index();
    let i = b.add(base, tid);
    let n = b.param(n);
    let in_range = b.lt(i, n);
    b.if_(in_range, |b| {
        let x = b.load(input, i);
        b.assign(acc, x);
    });
    for delta in [16, 8, 4, 2, 1] {
        let mine = b.read(acc);
        let lane_mask = b.u32(delta);
        let theirs = b.shuffle(ShuffleMode::Xor, mine, lane_mask, Mask::FULL);
        let sum = b.add(mine, theirs);
        b.assign(acc, sum);
    }
    let lane = b.lane_id();
    let zero = b.u32(0);
    let is_first = b.eq(lane, zero);
    b.if_(is_first, |b| {
        let five = b.u32(5);
        let warp = b.shr(i, five);
        let total = b.read(acc);
        b.store(sums, warp, total);
    });
    b.finish().expect("the warp_reduce sample verifies")
}
