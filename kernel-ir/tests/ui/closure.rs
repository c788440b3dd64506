use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(out: &mut [u32]) {
    let f = |x: u32| x + 1;
    out[0] = 1;
}

fn main() {}
