use warpforge_ir::kernel;

// The targets' approximate instructions are f32 only: `exp` on an f64 is refused where it is written.
#[kernel(block_size = 32)]
fn k(out: &mut [f64], x: f64) {
    out[0] = x.exp();
}

fn main() {}
