use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(out: &mut [u32], n: u32) {
    out[0] = n[0];
}

fn main() {}
