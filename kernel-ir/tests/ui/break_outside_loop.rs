use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(out: &mut [u32], n: u32) {
    if n == 0 {
        break;
    }
    out[0] = n;
}

fn main() {}
