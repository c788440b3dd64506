use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(out: &mut [f32], n: u32) {
    let mut acc = [0.0f32; 4];
    for i in 0..n {
        acc[i] += 1.0;
    }
    out[0] = acc[0];
}

fn main() {}
