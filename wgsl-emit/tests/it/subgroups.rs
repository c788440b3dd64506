//! The subgroup lowering of warp collectives (`WarpLowering::Subgroups`, 32 and 64 lanes): every
//! sample kernel and random kernels emit WGSL that naga validates with the subgroup capability (as a
//! module and again as parsed text), the emulated lowering is exactly `emit`'s, and the subgroup WGSL
//! uses subgroup operations instead of the exchange arrays. (It cannot run here: lavapipe's subgroups
//! are 8 wide, so the runtime keeps the emulation on it.)

use proptest::prelude::*;
use warpforge_ir::{random::random_kernel_without, samples, verify, Kernel, ScalarType, Stmt};
use warpforge_wgsl::{check_text_with, emit, emit_with, WarpLowering, WgslError};

const WIDTHS: [u32; 2] = [32, 64];

pub(crate) fn has_collectives(kernel: &Kernel) -> bool {
    fn walk(block: &[Stmt]) -> bool {
        block.iter().any(|s| match s {
            Stmt::Warp(op) => !matches!(op, warpforge_ir::WarpOp::Sync { .. }),
            Stmt::If {
                then_block,
                else_block,
                ..
            } => walk(then_block) || walk(else_block),
            Stmt::Loop { body } => walk(body),
            _ => false,
        })
    }
    walk(&kernel.body)
}

#[test]
fn samples_emit_and_validate_on_32_and_64_wide_subgroups() {
    for sample in samples::ALL {
        let kernel = (sample.build)();
        let verified = verify(&kernel).expect("verifies");
        let emulated = emit(&verified).expect("emits");
        assert_eq!(
            emit_with(&verified, WarpLowering::Emulated).expect("emits"),
            emulated,
            "{}: the emulated lowering is emit's",
            sample.name
        );
        for width in WIDTHS {
            let warps = WarpLowering::Subgroups { width };
            let wgsl = emit_with(&verified, warps)
                .unwrap_or_else(|e| panic!("{} on {width}-wide subgroups: {e}", sample.name));
            assert_eq!(wgsl.warps, warps);
            check_text_with(&wgsl.source, wgsl.requirements.shader_int64, true)
                .unwrap_or_else(|e| panic!("{}: {e}", sample.name));
            assert!(
                !wgsl.source.contains("wf_exchange") && !wgsl.source.contains("wf_vote"),
                "{}: the subgroup lowering declares the emulation's arrays",
                sample.name
            );
            assert!(
                wgsl.requirements.workgroup_storage_bytes
                    <= emulated.requirements.workgroup_storage_bytes
            );
            if has_collectives(&kernel) {
                assert!(
                    wgsl.source.contains("subgroupShuffle")
                        || wgsl.source.contains("subgroupBallot"),
                    "{}: no subgroup operation in\n{}",
                    sample.name,
                    wgsl.source
                );
                assert!(
                    wgsl.requirements.workgroup_storage_bytes
                        < emulated.requirements.workgroup_storage_bytes,
                    "{}: the exchange arrays are gone",
                    sample.name
                );
                // Without subgroups the same text does not validate: the capability is really used.
                assert!(
                    check_text_with(&wgsl.source, wgsl.requirements.shader_int64, false).is_err()
                );
            }
        }
    }
}

/// The `warp-collectives` sample (every collective): the 64-wide lowering picks the warp's half of
/// the subgroup, the 32-wide one does not need to.
#[test]
fn a_64_wide_subgroup_holds_two_warps() {
    let sample = samples::ALL
        .iter()
        .find(|s| s.name == "warp-collectives")
        .expect("the sample exists");
    let verified_kernel = (sample.build)();
    let verified = verify(&verified_kernel).expect("verifies");
    let narrow = emit_with(&verified, WarpLowering::Subgroups { width: 32 }).expect("emits");
    let wide = emit_with(&verified, WarpLowering::Subgroups { width: 64 }).expect("emits");
    // Shuffles address the warp's half, ballots take the half's word of the vec4.
    assert!(
        wide.source.contains("subgroupShuffle(") && wide.source.contains("(local_index & 32u)"),
        "{}",
        wide.source
    );
    assert!(
        wide.source.contains(".y, ((local_index & 32u) != 0u)"),
        "{}",
        wide.source
    );
    assert!(
        !narrow.source.contains("local_index & 32u"),
        "{}",
        narrow.source
    );
    assert!(
        narrow.source.contains("subgroupBallot("),
        "{}",
        narrow.source
    );
}

#[test]
fn subgroups_of_another_width_are_refused() {
    let kernel = (samples::ALL[0].build)();
    let verified = verify(&kernel).expect("verifies");
    for width in [8, 16, 128] {
        let err = emit_with(&verified, WarpLowering::Subgroups { width }).expect_err("refused");
        assert!(
            matches!(err, WgslError::Unsupported { .. }) && err.to_string().contains("32 or 64"),
            "{err}"
        );
    }
}

/// Random verified kernels give the same outcome in every lowering (WGSL that naga validates, or
/// warpforge's refusal for divergent sync), and most of them validate.
#[test]
fn random_kernels_validate_in_every_warp_lowering() {
    use proptest::test_runner::{TestCaseError, TestRunner};
    use std::cell::Cell;

    const CASES: u32 = 200;
    let (validated, with_collectives) = (Cell::new(0u32), Cell::new(0u32));
    let mut runner = TestRunner::new(ProptestConfig {
        source_file: Some(file!()),
        ..ProptestConfig::with_cases(CASES)
    });
    let choices = proptest::collection::vec(any::<u8>(), 0..2048);
    let result = runner.run(&choices, |choices| {
        let kernel = random_kernel_without(&choices, &[ScalarType::F64]);
        let verified = verify(&kernel).expect("random kernels verify");
        let emulated = emit(&verified);
        for width in WIDTHS {
            match (
                &emulated,
                emit_with(&verified, WarpLowering::Subgroups { width }),
            ) {
                (Ok(_), Ok(wgsl)) => {
                    check_text_with(&wgsl.source, wgsl.requirements.shader_int64, true).map_err(
                        |e| TestCaseError::fail(format!("{e}\n--- WGSL ---\n{}", wgsl.source)),
                    )?;
                }
                (Err(WgslError::DivergentSync { .. }), Err(WgslError::DivergentSync { .. })) => {}
                (a, b) => {
                    return Err(TestCaseError::fail(format!(
                        "emulated {:?} but {width}-wide subgroups {:?}\n--- IR ---\n{kernel}",
                        a.as_ref().map(|_| ()),
                        b.map(|_| ())
                    )))
                }
            }
        }
        if emulated.is_ok() {
            validated.set(validated.get() + 1);
            if has_collectives(&kernel) {
                with_collectives.set(with_collectives.get() + 1);
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let (validated, with_collectives) = (validated.get(), with_collectives.get());
    println!(
        "{validated} of {CASES} random kernels validated in every lowering, {with_collectives} of \
         them with warp collectives"
    );
    assert!(validated >= CASES * 3 / 4, "only {validated} validated");
    assert!(
        with_collectives >= CASES / 4,
        "only {with_collectives} had collectives"
    );
}

/// naga 30's WGSL front end takes subgroup builtins without `enable subgroups;` (gated by the
/// validator's `SUBGROUP` capability instead) and refuses the directive itself as not yet
/// implemented, so the emitted WGSL must not carry it. The WGSL standard requires it: when naga
/// implements it this test fails, and the emitter should start writing it.
#[test]
fn naga_30_refuses_enable_subgroups_and_needs_no_directive() {
    let kernel = (samples::ALL[1].build)();
    let verified = verify(&kernel).expect("verifies");
    let wgsl = emit_with(&verified, WarpLowering::Subgroups { width: 32 }).expect("emits");
    assert!(!wgsl.source.contains("enable"), "{}", wgsl.source);
    check_text_with(&wgsl.source, false, true).expect("validates without the directive");
    let with_directive = format!("enable subgroups;\n{}", wgsl.source);
    let err = check_text_with(&with_directive, false, true).expect_err("naga 30 refuses it");
    assert!(err.contains("subgroups"), "{err}");
}
