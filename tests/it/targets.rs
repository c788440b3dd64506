//! Every catalog kernel, in the form the WGSL emitter lowers (`webgpu_build`), written as SPIR-V, MSL
//! and HLSL from its naga module, each output checked (`warpforge_wgsl::targets`); SPIRV-Tools'
//! `spirv-val` accepts every SPIR-V module, and random kernels' too.
//!
//! Without `spirv-val` the tests that need it skip loudly; with `WARPFORGE_REQUIRE_SPIRV_VAL=1` (CI)
//! they fail.

use crate::common;
use common::{say, spirv_val, spirv_val_or_skip};

use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use warpforge::catalog;
use warpforge::ir::random::random_kernel_without;
use warpforge::ir::{verify, ScalarType};
use warpforge::wgsl::{emit_target, Shader, ShaderTarget, TargetError};

/// `entry`'s WebGPU form written for `target`.
fn written(entry: &catalog::Entry, target: ShaderTarget) -> Result<Shader, TargetError> {
    let kernel = entry.webgpu_build();
    emit_target(&verify(&kernel).expect("catalog kernels verify"), target)
}

#[test]
fn every_catalog_kernel_writes_checked_spirv_msl_and_hlsl() {
    let mut count = 0;
    for entry in catalog::entries() {
        for target in [ShaderTarget::SpirV, ShaderTarget::Msl, ShaderTarget::Hlsl] {
            let shader = written(&entry, target)
                .unwrap_or_else(|e| panic!("{} as {target}: {e}", entry.name));
            assert_eq!(shader.target, target);
            assert!(!shader.bytes().is_empty());
            count += 1;
        }
    }
    say(&format!(
        "targets: {count} catalog kernel x target outputs written and checked by naga"
    ));
    assert_eq!(count, 3 * catalog::entries().len());
}

#[test]
fn spirv_val_accepts_every_catalog_kernel() {
    let test = "spirv_val_accepts_every_catalog_kernel";
    let Some(tool) = spirv_val_or_skip(test) else {
        return;
    };
    let mut count = 0;
    for entry in catalog::entries() {
        let shader =
            written(&entry, ShaderTarget::SpirV).unwrap_or_else(|e| panic!("{}: {e}", entry.name));
        let words = shader.words().expect("SPIR-V");
        spirv_val(&tool, words).unwrap_or_else(|e| panic!("{}: {e}", entry.name));
        count += 1;
    }
    say(&format!(
        "spirv-val: {count} catalog kernels' SPIR-V valid for Vulkan 1.1"
    ));
    assert_eq!(count, catalog::entries().len());
}

/// Random kernels that emit write SPIR-V that `spirv-val` accepts (the ones refused for divergent sync
/// are counted apart; most must reach `spirv-val`).
#[test]
fn spirv_val_accepts_random_kernels() {
    let test = "spirv_val_accepts_random_kernels";
    let Some(tool) = spirv_val_or_skip(test) else {
        return;
    };
    const CASES: u32 = 128;
    let (validated, refused) = (std::cell::Cell::new(0u32), std::cell::Cell::new(0u32));
    let mut runner = TestRunner::new(ProptestConfig::with_cases(CASES));
    let choices = proptest::collection::vec(any::<u8>(), 0..2048);
    let result = runner.run(&choices, |choices| {
        // WGSL has no f64 (its emitters refuse it, tested in `f64_generic.rs`).
        let kernel = random_kernel_without(&choices, &[ScalarType::F64]);
        match emit_target(&verify(&kernel).expect("verifies"), ShaderTarget::SpirV) {
            Ok(shader) => {
                let words = shader.words().expect("SPIR-V");
                spirv_val(&tool, words)
                    .map_err(|e| TestCaseError::fail(format!("{e}\n--- IR ---\n{kernel}")))?;
                validated.set(validated.get() + 1);
            }
            Err(TargetError::Kernel(warpforge::wgsl::WgslError::DivergentSync { .. })) => {
                refused.set(refused.get() + 1)
            }
            Err(e) => return Err(TestCaseError::fail(format!("{e}\n--- IR ---\n{kernel}"))),
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let (validated, refused) = (validated.get(), refused.get());
    say(&format!(
        "spirv-val: {validated} random kernels valid, {refused} refused for divergent sync"
    ));
    assert_eq!(validated + refused, CASES);
    assert!(
        validated >= CASES * 3 / 4,
        "most random kernels must reach spirv-val"
    );
}

/// The harness can fail: `spirv-val` rejects a module whose 64-bit integers lost their capability.
#[test]
fn spirv_val_rejects_a_module_missing_the_int64_capability() {
    let test = "spirv_val_rejects_a_module_missing_the_int64_capability";
    let Some(tool) = spirv_val_or_skip(test) else {
        return;
    };
    let entry = catalog::find("lz4-compress").expect("in the catalog");
    let shader = written(&entry, ShaderTarget::SpirV).expect("writes");
    let mut words = shader.words().expect("SPIR-V").to_vec();
    spirv_val(&tool, &words).expect("the module as written is valid");
    // OpCapability (opcode 17, two words) Int64 (11) becomes OpCapability Shader (1), already declared.
    let mut at = 5; // past the header, one instruction at a time
    while words[at] != (2 << 16 | 17) || words[at + 1] != 11 {
        at += (words[at] >> 16) as usize;
        assert!(at < words.len(), "lz4-compress declares Int64");
    }
    words[at + 1] = 1;
    let error = spirv_val(&tool, &words).expect_err("Int64 types without the capability");
    assert!(error.contains("Int64"), "{error}");
}
