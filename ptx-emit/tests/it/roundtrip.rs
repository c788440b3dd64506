//! The emitter's PTX parses back to the AST it was printed from, for every repository kernel (the
//! samples and the LZ4 kernels) and for random verified kernels, on sm_70, sm_80 and sm_90:
//!
//! 1. `emit_ast` → print → `parse` → lift into the emitter's AST (`support/lift.rs`, which refuses
//!    anything that AST cannot hold) equals the AST that was printed;
//! 2. the parsed AST printed by the parser's own `Display` is the emitter's text up to whitespace,
//!    and parses back to an equal AST.
//!
//! `PROPTEST_CASES` sets the number of random kernels (default 256); the random kernels must cover
//! every statement form of the IR.

use crate::lift;

use std::collections::BTreeSet;

use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use warpforge_ir::random::{random_defined_kernel, random_kernel, statement_forms, ALL_FORMS};
use warpforge_ir::{samples, verify, Kernel};
use warpforge_lz4::kernels::lz4::{lz4_compact_kernel, lz4_compress_kernel, lz4_decompress_kernel};
use warpforge_ptx::parse::parse;
use warpforge_ptx::{emit, emit_ast, Sm};

/// The text with comments' and lines' layout kept but every run of whitespace made one space and
/// blank lines dropped.
fn normalize(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect()
}

/// Checks one kernel on every target; the error says which target and what differed.
fn round_trip(kernel: &Kernel) -> Result<(), String> {
    let verified = verify(kernel).map_err(|e| format!("does not verify: {e:?}"))?;
    for sm in Sm::ALL {
        let printed = emit_ast(&verified, sm).map_err(|e| e.to_string())?;
        let text = printed.to_string();
        let emitted = emit(&verified, sm).map_err(|e| e.to_string())?;
        if emitted.text != text {
            return Err(format!("{sm}: emit does not print emit_ast's AST"));
        }
        let parsed = parse(&text).map_err(|e| format!("{sm}: {e}\n{text}"))?;
        let lifted = lift::lift(&parsed).map_err(|e| format!("{sm}: lift: {e}\n{text}"))?;
        if lifted != printed {
            return Err(format!(
                "{sm}: the parsed AST differs from the printed one\nprinted: {printed:#?}\nparsed: {lifted:#?}"
            ));
        }
        let reprinted = parsed.to_string();
        if normalize(&reprinted) != normalize(&text) {
            return Err(format!(
                "{sm}: the parser's printing differs from the emitter's beyond whitespace\n--- emitted\n{text}\n--- reprinted\n{reprinted}"
            ));
        }
        let mut again = parse(&reprinted).map_err(|e| format!("{sm}: reprinted: {e}"))?;
        let mut first = parsed;
        first.erase_positions();
        again.erase_positions();
        if first != again {
            return Err(format!("{sm}: parse → print → parse changed the AST"));
        }
    }
    Ok(())
}

#[test]
fn every_repository_kernel_round_trips_on_every_target() {
    let mut kernels: Vec<Kernel> = samples::ALL.iter().map(|s| (s.build)()).collect();
    for warps in [1, 4] {
        kernels.push(lz4_compress_kernel(warps));
        kernels.push(lz4_decompress_kernel(warps));
        kernels.push(lz4_compact_kernel(warps));
    }
    for kernel in &kernels {
        if let Err(e) = round_trip(kernel) {
            panic!("{}: {e}", kernel.name);
        }
    }
    eprintln!(
        "round trip: {} repository kernels × 3 targets",
        kernels.len()
    );
}

#[test]
fn random_kernels_round_trip_on_every_target() {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256);
    let forms = std::cell::RefCell::new(BTreeSet::new());
    let mut runner = TestRunner::new(ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    let strategy = (
        proptest::collection::vec(any::<u8>(), 0..2048),
        any::<bool>(),
    );
    let result = runner.run(&strategy, |(choices, defined)| {
        let kernel = if defined {
            random_defined_kernel(&choices, 1024)
        } else {
            random_kernel(&choices)
        };
        forms.borrow_mut().extend(statement_forms(&kernel));
        round_trip(&kernel).map_err(|e| TestCaseError::fail(format!("{e}\n--- IR ---\n{kernel}")))
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let forms = forms.into_inner();
    let missing: Vec<_> = ALL_FORMS.iter().filter(|f| !forms.contains(*f)).collect();
    assert!(
        missing.is_empty(),
        "{cases} random kernels miss statement forms {missing:?}"
    );
    eprintln!("round trip: {cases} random kernels × 3 targets, every statement form covered");
}

#[test]
fn kernels_with_source_positions_round_trip_on_every_target() {
    use warpforge_ir::text::locate_in_printed_text;
    let mut kernels: Vec<Kernel> = samples::ALL.iter().map(|s| (s.build)()).collect();
    kernels.push(lz4_decompress_kernel(4));
    for seed in 0..32u8 {
        let choices: Vec<u8> = (0..512u32)
            .map(|i| (i as u8).wrapping_mul(31) ^ seed)
            .collect();
        kernels.push(random_kernel(&choices));
    }
    for (n, kernel) in kernels.iter_mut().enumerate() {
        // Two files, one with characters PTX cannot hold as they are.
        kernel.locs.insert(
            "body[0]".into(),
            warpforge_ir::SourceLoc::new("src/ünï \"q\".rs", 7, 3),
        );
        locate_in_printed_text(kernel, &format!("kernel{n}.wfir"));
        if let Err(e) = round_trip(kernel) {
            panic!("{}: {e}", kernel.name);
        }
    }
}
