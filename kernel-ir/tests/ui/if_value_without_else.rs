use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(out: &mut [u32], n: u32) {
    let x = if n > 4 { 1u32 };
    out[0] = x;
}

fn main() {}
