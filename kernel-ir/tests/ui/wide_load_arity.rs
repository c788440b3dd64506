use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn k(data: &mut [u32]) {
    let [a, b, c] = load4(&data[0]);
    data[4] = a + b + c;
}

fn main() {}
