use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(out: &mut [u32]) {
    let total = 0u32;
    total = total + 1;
    out[0] = total;
}

fn main() {}
