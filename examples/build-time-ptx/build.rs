//! Emits the PTX of a `vector_add` kernel written as a Rust function (`#[warpforge_ir::kernel]`) for
//! sm_80 into `OUT_DIR`, where `src/lib.rs` embeds it. This is all a user needs to ship PTX built from
//! their own kernels with their crate. The PTX carries `.file`/`.loc` lines naming this file, so
//! ptxas `-lineinfo`, cuda-gdb and Nsight map the machine code back to the lines below.

use std::path::PathBuf;

/// out[i] = a[i] + b[i] for i < n, one thread per element: the catalog's `vector-add`.
#[warpforge_ir::kernel(block_size = 128)]
fn vector_add(a: &[f32], b: &[f32], out: &mut [f32], n: u32) {
    let i = block_index() * block_size() + thread_index();
    if i < n {
        out[i] = a[i] + b[i];
    }
}

fn main() {
    let kernel = vector_add();
    let verified = warpforge_ir::verify(&kernel).unwrap_or_else(|e| panic!("{e}"));
    let ptx =
        warpforge_ptx::emit(&verified, warpforge_ptx::Sm::Sm80).unwrap_or_else(|e| panic!("{e}"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("vector_add.sm_80.ptx"), ptx.text).expect("OUT_DIR is writable");
    // Re-run only when the generator changes (cargo already tracks the build-dependencies).
    println!("cargo:rerun-if-changed=build.rs");
}
