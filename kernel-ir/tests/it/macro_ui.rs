//! Misuses of `#[kernel]` and `#[device]`: each fails to compile with the message and span recorded
//! in `tests/ui/<name>.stderr` (regenerate with `TRYBUILD=overwrite` after a deliberate change, and
//! review the diff).

#[test]
fn misuses_fail_to_compile_at_the_users_tokens() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
