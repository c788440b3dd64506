use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(out: &mut [f32], x: f32) {
    let w = [x, x, x];
    w[1] = 2.0;
    out[0] = w[1];
}

fn main() {}
