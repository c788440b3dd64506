use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(out: &mut [u32]) {
    loop {
        for d in [1, 2, 4] {
            if d == 2 {
                break;
            }
        }
    }
}

fn main() {}
