//! PTX emission: every kernel of the repository, for every target, is deterministic, matches its
//! reviewed snapshot, is accepted by NVIDIA's ptxas with no spills; random kernels assemble too.

use crate::common;

use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use warpforge::catalog;
use warpforge::ir::{random::random_kernel, verify};
use warpforge::ptx::{emit, Sm};

#[test]
fn emission_is_deterministic_and_matches_the_snapshots() {
    for entry in catalog::entries() {
        let kernel = entry.build();
        let verified = verify(&kernel).expect("catalog kernels verify");
        for sm in Sm::ALL {
            let first = emit(&verified, sm).expect("emits");
            let second = emit(&verify(&entry.build()).expect("verifies"), sm).expect("emits");
            assert_eq!(first, second, "{} {sm}: two emissions differ", entry.name);
            insta::assert_snapshot!(format!("{}-{}", entry.name, sm.name()), first.text);
        }
    }
}

#[test]
fn every_kernel_assembles_for_every_target_without_spills() {
    let Some(ptxas) =
        common::ptxas_or_skip("every_kernel_assembles_for_every_target_without_spills")
    else {
        return;
    };
    for entry in catalog::entries() {
        let kernel = entry.build();
        for sm in Sm::ALL {
            let ptx = emit(&verify(&kernel).expect("verifies"), sm).expect("emits");
            let report = ptxas
                .assemble(&ptx.text, sm)
                .unwrap_or_else(|e| panic!("{} {sm}: {e}", entry.name));
            eprintln!("ptxas {sm} {report}");
            assert_eq!(report.entry, kernel.name);
            assert_eq!(
                report.spill_store_bytes + report.spill_load_bytes,
                0,
                "{} {sm} spills",
                entry.name
            );
            // Static shared memory as ptxas counts it; dynamic shared memory is sized at launch.
            let static_bytes = ptx.launch.shared_bytes - ptx.launch.dynamic_shared_bytes;
            assert_eq!(report.shared_bytes, static_bytes, "{} {sm}", entry.name);
            assert_eq!(
                u64::from(ptx.launch.shared_bytes),
                kernel.shared_bytes().expect("fits")
            );
        }
    }
}

#[test]
fn launch_metadata_matches_the_kernel() {
    let kernel = warpforge::ir::samples::vector_add();
    let ptx = emit(&verify(&kernel).expect("verifies"), Sm::Sm80).expect("emits");
    let info = &ptx.launch;
    assert_eq!(info.entry, "vector_add");
    assert_eq!(info.block_size, 128);
    let offsets: Vec<(u32, u32)> = info.params.iter().map(|p| (p.offset, p.size)).collect();
    assert_eq!(offsets, [(0, 8), (8, 8), (16, 8), (24, 4)]);
    let cfg = info.config_for_threads(1000).expect("valid");
    assert_eq!((cfg.grid, cfg.block), ((8, 1, 1), (128, 1, 1)));
    assert!(info.config(0).is_err());
    assert!(info.config(1 << 31).is_err());
    let kinds: Vec<_> = info.params.iter().map(|p| p.kind).collect();
    info.check_args(&kinds).expect("matching arguments");
    assert!(info.check_args(&kinds[..3]).is_err());
}

/// Random well-typed kernels cover every statement form; ptxas must accept all of them.
#[test]
fn random_kernels_assemble() {
    let Some(ptxas) = common::ptxas_or_skip("random_kernels_assemble") else {
        return;
    };
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(64);
    let mut runner = TestRunner::new(ProptestConfig::with_cases(cases));
    let strategy = (proptest::collection::vec(any::<u8>(), 0..2048), 0usize..3);
    let result = runner.run(&strategy, |(choices, target)| {
        let kernel = random_kernel(&choices);
        let sm = Sm::ALL[target];
        let ptx = emit(&verify(&kernel).expect("random kernels verify"), sm).expect("emits");
        if let Err(e) = ptxas.assemble(&ptx.text, sm) {
            return Err(TestCaseError::fail(format!(
                "{e}\n--- IR ---\n{kernel}\n--- PTX ---\n{}",
                ptx.text
            )));
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
