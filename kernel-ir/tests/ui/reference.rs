use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(out: &mut [u32], x: u32) {
    let r = &x;
}

fn main() {}
