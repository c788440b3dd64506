use warpforge_ir::kernel;

// u32 → f16 through f32 could round twice: the cast is refused, naming the way through f32.
#[kernel(block_size = 32)]
fn k(out: &mut [f16], x: u32) {
    out[0] = x as f16;
}

fn main() {}
