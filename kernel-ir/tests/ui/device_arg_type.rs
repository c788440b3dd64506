use warpforge_ir::{device, kernel};

#[device]
fn half(x: f32) -> f32 {
    x * 0.5
}

#[kernel(block_size = 32)]
fn k(out: &mut [u32], n: u32) {
    out[0] = half(n);
}

fn main() {}
