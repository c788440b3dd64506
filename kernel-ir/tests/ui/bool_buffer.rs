use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(flags: &mut [bool]) {
    flags[0] = true;
}

fn main() {}
