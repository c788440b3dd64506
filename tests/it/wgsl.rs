//! WGSL of every kernel of the repository (as launched on WebGPU): naga-valid, deterministic, and
//! matching its reviewed snapshot.

use warpforge::catalog;
use warpforge::ir::verify;

#[test]
fn every_kernel_emits_validated_deterministic_wgsl_matching_its_snapshot() {
    for entry in catalog::entries() {
        let kernel = entry.webgpu_build();
        let wgsl = warpforge::wgsl::emit(&verify(&kernel).expect("verifies"))
            .unwrap_or_else(|e| panic!("{}: {e}", entry.name));
        let again = warpforge::wgsl::emit(&verify(&entry.webgpu_build()).expect("verifies"))
            .expect("emits");
        assert_eq!(wgsl, again, "{}: emission is not deterministic", entry.name);
        warpforge::wgsl::check_text(&wgsl.source, wgsl.requirements.shader_int64)
            .expect("naga accepts the text");
        insta::assert_snapshot!(entry.name, wgsl.source);
    }
}
