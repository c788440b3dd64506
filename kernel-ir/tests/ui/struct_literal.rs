use warpforge_ir::kernel;

struct Pair {
    a: u32,
}

#[kernel(block_size = 32)]
fn k(out: &mut [u32]) {
    let p = Pair { a: 1 };
}

fn main() {}
