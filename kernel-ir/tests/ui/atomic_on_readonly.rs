use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(counts: &[u32]) {
    atomic_add(&counts[0], 1);
}

fn main() {}
