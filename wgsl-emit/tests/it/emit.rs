//! Every sample kernel and random well-typed kernels lower to WGSL that naga validates (as a module and
//! again as parsed text); emission is deterministic. (Snapshots of every catalog kernel's WGSL are in
//! the root crate's tests/it/wgsl.rs.)

use proptest::prelude::*;
use warpforge_ir::{random::random_kernel_without, samples, verify, ScalarType};
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

/// Random verified kernels either emit WGSL that naga validates (as a module and as re-parsed text),
/// or are refused by warpforge's own block-uniformity check. naga rejecting anything is an emitter bug.
/// Both outcomes are counted: most random kernels must really reach naga and pass (measured: 245-255 of
/// 259 validate), so that refusing everything cannot pass.
#[test]
fn random_kernels_validate_or_are_refused_for_divergent_sync() {
    use proptest::test_runner::{TestCaseError, TestRunner};
    use std::cell::Cell;

    const CASES: u32 = 256;
    let (validated, refused) = (Cell::new(0u32), Cell::new(0u32));
    let mut runner = TestRunner::new(ProptestConfig {
        source_file: Some(file!()),
        ..ProptestConfig::with_cases(CASES)
    });
    let choices = proptest::collection::vec(any::<u8>(), 0..2048);
    let result = runner.run(&choices, |choices| {
        // WGSL has no f64: its refusal is tested on its own (`tests/it/f64_generic.rs`).
        let kernel = random_kernel_without(&choices, &[ScalarType::F64]);
        match emit(&verify(&kernel).expect("random kernels verify")) {
            Ok(wgsl) => {
                warpforge_wgsl::check_text(&wgsl.source, wgsl.requirements.shader_int64).map_err(
                    |e| TestCaseError::fail(format!("{e}\n--- WGSL ---\n{}", wgsl.source)),
                )?;
                validated.set(validated.get() + 1);
            }
            Err(warpforge_wgsl::WgslError::DivergentSync { .. }) => refused.set(refused.get() + 1),
            Err(e) => return Err(TestCaseError::fail(format!("{e}\n--- IR ---\n{kernel}"))),
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let (validated, refused) = (validated.get(), refused.get());
    println!("{validated} validated, {refused} refused for divergent sync");
    // The seeds saved in emit.proptest-regressions run before the CASES new ones.
    assert!(validated + refused >= CASES, "every case is counted");
    assert!(
        validated >= CASES * 3 / 4,
        "only {validated} of {CASES} random kernels validated, {refused} refused for divergent sync"
    );
}
