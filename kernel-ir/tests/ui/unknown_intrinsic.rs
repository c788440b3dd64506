use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(out: &mut [u32]) {
    out[0] = thread_idx();
}

fn main() {}
