use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(out: &mut [i32], a: i32, b: i32) {
    out[0] = a / b;
}

fn main() {}
