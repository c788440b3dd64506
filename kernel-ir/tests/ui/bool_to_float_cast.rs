use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(out: &mut [f32], x: u32) {
    out[0] = (x > 3) as f32;
}

fn main() {}
