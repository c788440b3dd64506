use warpforge_ir::kernel;

#[kernel(block_size = 100)]
fn k(out: &mut [u32]) {
    out[0] = 1;
}

fn main() {}
