use warpforge_ir::kernel;

#[kernel(block_size = 32)]
fn scale<F: Float>(out: &mut [F], x: &[F], a: F) {
    let i = thread_index();
    out[i] = x[i] * a;
}

fn main() {
    // An integer is not a `Float`: the instantiation fails at the type argument.
    let _ = scale::<u32>();
}
