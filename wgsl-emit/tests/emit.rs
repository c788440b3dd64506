//! Every sample kernel and random well-typed kernels lower to WGSL that naga validates (as a module and
//! again as parsed text); emission is deterministic. (Snapshots of every catalog kernel's WGSL are in
//! the root crate's tests/wgsl.rs.)

use proptest::prelude::*;
use warpforge_ir::{random::random_kernel, samples, verify};
use warpforge_wgsl::emit;

#[test]
fn samples_emit_validated_deterministic_wgsl() {
    for sample in samples::ALL {
        let kernel = (sample.build)();
        let wgsl = emit(&verify(&kernel).expect("verifies"))
            .unwrap_or_else(|e| panic!("{}: {e}", sample.name));
        let again = emit(&verify(&(sample.build)()).expect("verifies")).expect("emits");
        assert_eq!(
            wgsl, again,
            "{}: emission is not deterministic",
            sample.name
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random verified kernels either emit WGSL that naga validates (as a module and as re-parsed text),
    /// or are refused by warpforge's own block-uniformity check. naga rejecting anything is an emitter bug.
    #[test]
    fn random_kernels_validate_or_are_refused_for_divergent_sync(choices in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let kernel = random_kernel(&choices);
        match emit(&verify(&kernel).expect("random kernels verify")) {
            Ok(wgsl) => prop_assert!(warpforge_wgsl::check_text(&wgsl.source, wgsl.requirements.shader_int64).is_ok()),
            Err(warpforge_wgsl::WgslError::DivergentSync { .. }) => {}
            Err(e) => panic!("{e}\n--- IR ---\n{kernel}"),
        }
    }
}
