//! Emits the PTX of the `vector-add` sample for sm_80 into `OUT_DIR`, where `src/lib.rs` embeds it.
//! This is all a user needs to ship PTX built from their own IR with their crate.

use std::path::PathBuf;

fn main() {
    let kernel = warpforge_ir::samples::vector_add();
    let verified = warpforge_ir::verify(&kernel).unwrap_or_else(|e| panic!("{e}"));
    let ptx =
        warpforge_ptx::emit(&verified, warpforge_ptx::Sm::Sm80).unwrap_or_else(|e| panic!("{e}"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("vector_add.sm_80.ptx"), ptx.text).expect("OUT_DIR is writable");
    // Re-run only when the generator changes (cargo already tracks the build-dependencies).
    println!("cargo:rerun-if-changed=build.rs");
}
