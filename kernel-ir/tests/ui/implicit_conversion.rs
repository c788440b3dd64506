use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(out: &mut [u64], x: u32) {
    let wide: u64 = x;
    out[0] = wide;
}

fn main() {}
