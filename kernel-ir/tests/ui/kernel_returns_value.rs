use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(n: u32) -> u32 {
    n
}

fn main() {}
