use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(out: &mut [u32], x: u32) {
    match x {
        0 => out[0] = 1,
        _ => out[0] = 2,
    }
}

fn main() {}
