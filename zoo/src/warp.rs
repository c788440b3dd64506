//! The warp reductions the row kernels share: a butterfly of `shuffle_xor` over the 32 lanes, so
//! every lane ends with the same result.

use warpforge_ir::device;

/// The sum of `x` over the warp, added in the butterfly's order (the same bits in every lane).
#[device]
pub fn warp_sum(x: f32) -> f32 {
    let mut v = x;
    for off in [16u32, 8, 4, 2, 1] {
        v += shuffle_xor(v, off, FULL_MASK);
    }
    v
}

/// The maximum of `x` over the warp.
#[device]
pub fn warp_max(x: f32) -> f32 {
    let mut v = x;
    for off in [16u32, 8, 4, 2, 1] {
        v = v.max(shuffle_xor(v, off, FULL_MASK));
    }
    v
}
