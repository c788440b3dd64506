//! B001 and threads that leave: the PTX ISA releases a barrier that only exited threads hold up, the
//! CUDA C++ guide calls a barrier in conditional code undefined. A barrier skipped only by threads on
//! their way out is a warning citing both; one whose skippers meet another barrier (or the same one
//! again, in a later iteration) is an error.

use warpforge_analysis::{lint_ptx, Rule, Severity};

fn b001(body: &str) -> Vec<(Severity, String)> {
    let ptx = format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\n\
         .visible .entry k(.param .u32 n)\n{{\n\
         .reg .pred %p<4>;\n.reg .b32 %r<8>;\n\
         mov.u32 %r1, %tid.x;\n\
         ld.param.u32 %r2, [n];\n{body}}}\n"
    );
    lint_ptx(&ptx)
        .expect("PTX")
        .into_iter()
        .filter(|d| d.rule == Rule::B001)
        .map(|d| (d.severity, d.message))
        .collect()
}

#[test]
fn surplus_threads_that_return_before_a_barrier_are_a_warning_citing_isa_and_guide() {
    let found = b001("setp.ge.u32 %p1, %r1, %r2;\n@%p1 bra DONE;\nbar.sync 0;\nDONE:\nret;\n");
    assert!(
        matches!(found.as_slice(), [(Severity::Warning, m)]
            if m.contains("PTX ISA") && m.contains("CUDA C++ Programming Guide")),
        "{found:?}"
    );
}

#[test]
fn skippers_that_meet_a_barrier_again_are_an_error() {
    // Another barrier after the skipped one.
    let found = b001(
        "setp.ge.u32 %p1, %r1, %r2;\n@%p1 bra LATER;\nbar.sync 0;\nLATER:\nbar.sync 0;\nret;\n",
    );
    assert!(
        matches!(found.as_slice(), [(Severity::Error, _)]),
        "{found:?}"
    );
    // The same barrier, in a later iteration: `for (k = 0; k < 4; k++) { if (tid < k) continue;
    // __syncthreads(); }`.
    let found = b001(
        "mov.u32 %r3, 0;\nLOOP:\nsetp.lt.u32 %p1, %r1, %r3;\n@%p1 bra NEXT;\nbar.sync 0;\nNEXT:\n\
         add.u32 %r3, %r3, 1;\nsetp.lt.u32 %p2, %r3, 4;\n@%p2 bra LOOP;\nret;\n",
    );
    assert!(
        found.iter().any(|(s, _)| *s == Severity::Error),
        "{found:?}"
    );
}
