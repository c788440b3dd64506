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

/// Every kernel of the repository (the LZ4 kernels at every level among them) in the subgroup
/// lowering for 32- and 64-wide subgroups: naga-valid as a module and as text, no exchange arrays, the
/// same bindings and parameter block as the emulated WGSL (the launch layout does not depend on the
/// lowering), and no more workgroup memory.
#[test]
fn every_kernel_emits_validated_wgsl_on_32_and_64_wide_subgroups() {
    use warpforge::wgsl::{check_text_with, emit_with, WarpLowering};
    for entry in catalog::entries() {
        let kernel = entry.webgpu_build();
        let verified = verify(&kernel).expect("verifies");
        let emulated = warpforge::wgsl::emit(&verified).expect("emits");
        for width in [32, 64] {
            let wgsl = emit_with(&verified, WarpLowering::Subgroups { width })
                .unwrap_or_else(|e| panic!("{} on {width}-wide subgroups: {e}", entry.name));
            check_text_with(&wgsl.source, wgsl.requirements.shader_int64, true)
                .unwrap_or_else(|e| panic!("{}: {e}", entry.name));
            assert!(!wgsl.source.contains("wf_exchange"), "{}", entry.name);
            assert_eq!(
                (&wgsl.buffers, &wgsl.params, &wgsl.entry_point),
                (&emulated.buffers, &emulated.params, &emulated.entry_point),
                "{}",
                entry.name
            );
            let (sg, em) = (
                wgsl.requirements.workgroup_storage_bytes,
                emulated.requirements.workgroup_storage_bytes,
            );
            assert!(sg <= em, "{}: {sg} > {em} bytes", entry.name);
            if width == 32 {
                println!(
                    "{}: workgroup memory {em} B emulated, {sg} B on subgroups",
                    entry.name
                );
            }
        }
    }
}
