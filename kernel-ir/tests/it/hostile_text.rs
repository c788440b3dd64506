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

#[test]
fn a_value_numbered_far_past_the_others_is_refused_with_its_line() {
    // Was: `defs` resized to the number (a billion entries, 32 GB) before the density check.
    let text =
        "kernel k {\n    block_size 32\n    %0: u32 = const 1\n    %999999999: u32 = const 2\n}\n";
    let e = parse_kernel(text).expect_err("not dense");
    assert_eq!((e.line, e.col), (4, 5), "{e}");
    assert!(e.message.contains("%999999999 is numbered past"), "{e}");
    // A small gap is still reported the way it was.
    let e = parse_kernel(&text.replace("%999999999", "%2")).expect_err("not dense");
    assert!(
        e.message.contains("value %1 is never defined before %2"),
        "{e}"
    );
}
