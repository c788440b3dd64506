use warpforge_ir::kernel;

#[kernel]
fn k(out: &mut [u32]) {
    out[0] = 1;
}

fn main() {}
