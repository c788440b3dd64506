use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(out: &mut [u32]) {
    println!("hello");
    out[0] = 1;
}

fn main() {}
