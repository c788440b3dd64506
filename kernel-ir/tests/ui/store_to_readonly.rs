use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(input: &[u32]) {
    input[0] = 1;
}

fn main() {}
