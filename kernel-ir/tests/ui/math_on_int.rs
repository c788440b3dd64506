use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(out: &mut [u32], x: u32) {
    out[0] = x.exp();
}

fn main() {}
