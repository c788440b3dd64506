//! Regressions from the `wfir` fuzz target (fuzz/): hostile `.wfir` text is refused with a line and
//! a message, never a panic or a stack overflow.

use warpforge_ir::text::MAX_NESTING;
use warpforge_ir::{parse_kernel, verify};

/// A kernel whose body is `if`s nested `depth` deep.
fn nested_ifs(depth: usize) -> String {
    let mut text = String::from("kernel k {\n    block_size 32\n    %0: bool = const true\n");
    text.push_str(&"if %0 {\n".repeat(depth));
    text.push_str(&"}\n".repeat(depth));
    text.push_str("}\n");
    text
}

#[test]
fn blocks_nested_up_to_the_limit_parse() {
    let kernel = parse_kernel(&nested_ifs(MAX_NESTING)).expect("at the limit");
    verify(&kernel).expect("verifies");
}

#[test]
fn blocks_nested_past_the_limit_are_refused_with_the_line() {
    let e = parse_kernel(&nested_ifs(MAX_NESTING + 1)).expect_err("past the limit");
    assert_eq!(e.line, 3 + MAX_NESTING + 1, "{e}");
    assert!(
        e.message
            .contains(&format!("nested deeper than {MAX_NESTING}")),
        "{e}"
    );
    // Far past it (this once overflowed the stack).
    let e = parse_kernel(&nested_ifs(200_000)).expect_err("far past the limit");
    assert!(e.message.contains("nested deeper"), "{e}");
}
