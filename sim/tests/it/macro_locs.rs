//! Kernels written as Rust functions (`#[warpforge_ir::kernel]`): a sanitizer finding, a lint
//! finding and a verifier error each name the Rust file and line of the statement (issue 23).

use warpforge_analysis::Rule;
use warpforge_analysis::{lint_kernel, render_text};
use warpforge_ir::verify;
use warpforge_sim::{BufferArg, FindingKind, SimOptions};

/// Thread 31 stores past the end of a 32-element buffer; lanes 0-15 alone reach a barrier.
#[warpforge_ir::kernel(block_size = 32)]
fn shift(data: &mut [u32]) {
    let t = thread_index();
    data[t + 1] = t;
    if lane_id() < 16 {
        barrier();
    }
}

#[warpforge_ir::device]
fn put(buf: &mut [u32], i: u32, v: u32) {
    buf[i] = v;
}

/// Stores into a read-only buffer through a device function: the verifier refuses it.
#[warpforge_ir::kernel(block_size = 32)]
fn store_to_input(input: &[u32]) {
    let t = thread_index();
    put(input, t, t);
}

/// `file!():line` of the first line of this file holding `needle`.
fn here(needle: &str) -> String {
    let line = include_str!("macro_locs.rs")
        .lines()
        .position(|l| l.contains(needle))
        .expect("the line")
        + 1;
    format!("{}:{line}:", file!())
}

#[test]
fn a_sanitizer_finding_names_the_rust_line() {
    let kernel = shift();
    let mut data = vec![0u8; 32 * 4];
    let mut args = [BufferArg::ReadWrite(&mut data)];
    let report = warpforge_sim::run(
        &verify(&kernel).expect("verifies"),
        1,
        &mut args,
        &[],
        &SimOptions::default(),
    )
    .expect("runs");
    let oob = report
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::OutOfBounds)
        .unwrap_or_else(|| panic!("no out-of-bounds in {:#?}", report.findings));
    let at = here("data[t + 1] = t;");
    assert!(oob.statement.contains(&at), "{oob} (want {at})");
}

#[test]
fn a_lint_finding_names_the_rust_line() {
    let kernel = shift();
    let diags = lint_kernel(&verify(&kernel).expect("verifies"));
    let barrier = diags
        .iter()
        .find(|d| d.rule == Rule::B001)
        .unwrap_or_else(|| panic!("no B001 in {diags:#?}"));
    let at = here("        barrier();");
    let source = barrier
        .source
        .as_ref()
        .expect("a source position")
        .to_string();
    assert!(source.starts_with(&at), "{source} (want {at})");
    let text = render_text("macro_locs.rs", &diags);
    assert!(text.contains(&at), "{text}");
}

#[test]
fn a_verifier_error_names_the_rust_line() {
    let message = std::panic::catch_unwind(store_to_input)
        .expect_err("the verifier refuses a store to a read-only buffer");
    let message = message
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| message.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    // The store is the device function's statement, inlined at the call.
    let at = here("    buf[i] = v;");
    assert!(message.contains(&at), "{message} (want {at})");
}
