//! Regressions from the `ptx_lint` fuzz target (fuzz/): malformed PTX the linter once panicked on. Each
//! must lint (or be refused with a line), never panic. The inputs are hand-written reductions.

use warpforge_analysis::{lint_ptx, lint_ptx_with};

/// A module with one entry whose body is `body`.
fn entry(body: &str) -> String {
    format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n    .param .u64 p\n)\n{{\n\
         .reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<8>;\n.shared .align 4 .b8 s[128];\n{body}\nret;\n}}\n"
    )
}

/// Lints `body` both ways (`--assume-warp-aligned` on and off); it must not panic.
fn lints(body: &str) {
    let text = entry(body);
    lint_ptx(&text).expect("well-formed enough to lint");
    lint_ptx_with(&text, false).expect("well-formed enough to lint");
}

#[test]
fn mad_with_too_few_operands_lints() {
    // Was: index out of bounds in the front end's `mad.lo`/`mad.wide` lowering (it read `ops[3]`).
    lints(
        "mov.u32 %r1, %tid.x;\nmad.lo.u32 %r2, %r1, 4;\nmad.wide.u32 %rd1, %r1;\nmad.lo.s32 %r3;",
    );
}

#[test]
fn atomic_without_operands_lints() {
    // Was: index out of bounds in the atomic lowering (it read `ops[0]` of none).
    lints("atom.shared.add.u32;\nred.global.add.u32;");
}

#[test]
fn or_of_two_zeros_lints() {
    // Was: "attempt to shift right with overflow" in the range facts of `or`/`xor` when both
    // operands are known to be 0 (`u64::MAX >> 64`).
    lints(
        "mov.u32 %r1, 0;\nor.b32 %r2, %r1, %r1;\nxor.b32 %r3, %r1, 0;\n\
         mov.u32 %r4, s;\nadd.u32 %r5, %r4, %r2;\nadd.u32 %r6, %r5, %r3;\nld.shared.u32 %r7, [%r6];\n\
         st.shared.u32 [%r5], %r7;",
    );
}

#[test]
fn a_body_that_starts_with_ret_or_bra_lints() {
    // Was: "a block" panic: the first instruction ended a basic block before any was opened.
    let empty = ".version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k()\n{\n.reg .b32 %r<2>;\nret;\n}\n";
    assert!(lint_ptx(empty).expect("an empty kernel").is_empty());
    let jump = empty.replace("ret;\n", "bra $L_end;\n$L_end:\nret;\n");
    lint_ptx(&jump).expect("lints");
    let exit = empty.replace("ret;\n", "exit;\n");
    lint_ptx(&exit).expect("lints");
}
