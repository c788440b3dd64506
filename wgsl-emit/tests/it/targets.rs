//! SPIR-V, MSL and HLSL from the same naga module as the WGSL: every sample kernel and random kernels
//! write and pass their checks for every target, deterministically, with the options the module docs
//! promise (SPIR-V version and exactly the capabilities the kernel needs). The catalog's LZ4 kernels and
//! `spirv-val` are covered by the root crate's tests/it/targets.rs.

use proptest::prelude::*;
use warpforge_ir::{random::random_kernel_without, samples, verify, ScalarType};
use warpforge_wgsl::targets::SPIRV_VERSION;
use warpforge_wgsl::{emit, emit_target, ShaderTarget, TargetError, WgslError};

/// SPIR-V's `OpCapability` opcode and the capability numbers the writer may declare.
const OP_CAPABILITY: u32 = 17;
const CAPABILITY_SHADER: u32 = 1;
const CAPABILITY_INT64: u32 = 11;

/// The operands of every `OpCapability` in a SPIR-V module.
fn capabilities(words: &[u32]) -> Vec<u32> {
    let mut found = Vec::new();
    let mut at = 5; // past the header
    while at < words.len() {
        let (count, opcode) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        assert!(count > 0, "a zero-length instruction at word {at}");
        if opcode == OP_CAPABILITY {
            found.push(words[at + 1]);
        }
        at += count;
    }
    found
}

#[test]
fn every_sample_writes_checked_deterministic_code_for_every_target() {
    let mut written = 0;
    for sample in samples::ALL {
        let kernel = (sample.build)();
        let verified = verify(&kernel).expect("verifies");
        let int64 = emit(&verified)
            .expect("emits WGSL")
            .requirements
            .shader_int64;
        for target in ShaderTarget::ALL {
            let shader = emit_target(&verified, target)
                .unwrap_or_else(|e| panic!("{} as {target}: {e}", sample.name));
            let again = emit_target(&verified, target).expect("emits again");
            assert_eq!(
                shader, again,
                "{} as {target} is not deterministic",
                sample.name
            );
            assert!(!shader.entry_point.is_empty());
            match target {
                ShaderTarget::SpirV => {
                    let words = shader.words().expect("SPIR-V is words");
                    assert_eq!(words[0], 0x0723_0203, "{}: SPIR-V magic", sample.name);
                    let (major, minor) = SPIRV_VERSION;
                    assert_eq!(words[1], u32::from(major) << 16 | u32::from(minor) << 8);
                    let mut want = vec![CAPABILITY_SHADER];
                    if int64 {
                        want.push(CAPABILITY_INT64);
                    }
                    let mut got = capabilities(words);
                    got.sort_unstable();
                    assert_eq!(got, want, "{}: SPIR-V capabilities", sample.name);
                    assert_eq!(shader.bytes().len(), 4 * words.len());
                }
                ShaderTarget::Msl => {
                    let text = shader.text().expect("MSL is text");
                    assert!(text.contains("#include <metal_stdlib>"), "{text}");
                    assert!(text.contains("kernel void"), "{text}");
                    assert!(text.contains(&shader.entry_point), "{text}");
                }
                ShaderTarget::Hlsl => {
                    let text = shader.text().expect("HLSL is text");
                    assert!(text.contains("[numthreads("), "{text}");
                    assert!(text.contains(&shader.entry_point), "{text}");
                }
                ShaderTarget::Wgsl => {
                    assert_eq!(
                        shader.text(),
                        Some(emit(&verified).expect("emits").source.as_str())
                    );
                }
            }
            written += 1;
        }
    }
    println!("{written} sample kernel x target outputs written and checked");
    assert_eq!(written, samples::ALL.len() * ShaderTarget::ALL.len());
}

/// Random kernels that emit WGSL also write every other target (and pass its check); the ones refused
/// for divergent sync are refused the same way for every target. Counted, so that a run where nothing
/// reaches the writers cannot pass.
#[test]
fn random_kernels_write_every_target_or_are_refused_alike() {
    use proptest::test_runner::{TestCaseError, TestRunner};
    use std::cell::Cell;

    const CASES: u32 = 256;
    let (written, refused) = (Cell::new(0u32), Cell::new(0u32));
    let mut runner = TestRunner::new(ProptestConfig::with_cases(CASES));
    let choices = proptest::collection::vec(any::<u8>(), 0..2048);
    let result = runner.run(&choices, |choices| {
        // WGSL has no f64: its refusal is tested on its own (`tests/it/f64_generic.rs`).
        let kernel = random_kernel_without(&choices, &[ScalarType::F64]);
        let verified = verify(&kernel).expect("random kernels verify");
        let wgsl = emit(&verified);
        for target in [ShaderTarget::SpirV, ShaderTarget::Msl, ShaderTarget::Hlsl] {
            match (&wgsl, emit_target(&verified, target)) {
                (Ok(_), Ok(_)) => written.set(written.get() + 1),
                (Err(WgslError::DivergentSync { .. }), Err(TargetError::Kernel(e))) => {
                    assert!(matches!(e, WgslError::DivergentSync { .. }));
                    refused.set(refused.get() + 1);
                }
                (w, t) => {
                    return Err(TestCaseError::fail(format!(
                        "{target}: WGSL gave {:?}, the target gave {:?}\n--- IR ---\n{kernel}",
                        w.as_ref().err(),
                        t.err()
                    )))
                }
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let (written, refused) = (written.get(), refused.get());
    println!(
        "{written} random kernel x target outputs written, {refused} refused for divergent sync"
    );
    assert_eq!(written + refused, 3 * CASES);
    assert!(
        written >= 3 * CASES / 2,
        "most random kernels must reach the writers"
    );
}

#[test]
fn target_names_and_errors_name_the_kernel_and_target() {
    let names: Vec<_> = ShaderTarget::ALL.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["WGSL", "SPIR-V", "MSL", "HLSL"]);
    let error = TargetError::Writer {
        kernel: "k".to_owned(),
        target: ShaderTarget::Hlsl,
        message: "boom".to_owned(),
    };
    assert_eq!(
        error.to_string(),
        "kernel `k`: naga's HLSL writer failed: boom"
    );
    let error = TargetError::Check {
        kernel: "k".to_owned(),
        target: ShaderTarget::SpirV,
        message: "bad".to_owned(),
    };
    assert_eq!(
        error.to_string(),
        "kernel `k`: the written SPIR-V failed its check: bad"
    );
}
