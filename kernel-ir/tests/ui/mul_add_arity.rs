use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(out: &mut [f32], x: f32, y: f32) {
    out[0] = x.mul_add(y);
}

fn main() {}
