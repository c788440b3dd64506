use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(out: &mut [u32], n: u32) {
    let mut acc = [0u32; 4];
    for i in unroll(0..n) {
        acc[i] += 1;
    }
    out[0] = acc[0];
}

fn main() {}
