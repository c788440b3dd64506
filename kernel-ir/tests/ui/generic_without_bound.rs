use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn copy<T>(out: &mut [T], x: &[T]) {
    let i = thread_index();
    out[i] = x[i];
}

fn main() {}
