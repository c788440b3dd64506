//! Divergence by the definitions that reach each use (`by_reaching.rs`): a register reused for a
//! uniform value in one loop and, under a lane-dependent branch, for another value in a later loop
//! (cuda-samples' `reduce7`: `mov.u32 %r43, WARP_SZ` is copied to drive the first shuffle loop, and
//! `%r43` itself is halved inside the second, which only some lanes run). One web holds both
//! definitions of `%r43` — they meet in the second loop — but only the uniform one reaches the
//! copy. The uniform loop's collectives are not
//! divergent; where the divergent definition can reach, they still are.

use warpforge_analysis::{lint_ptx, Rule, Severity};

fn w001(tail: &str) -> Vec<(Severity, usize)> {
    let ptx = format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\n\
         .visible .entry k(.param .u32 n)\n.reqntid 64, 1, 1\n{{\n\
         .reg .pred %p<8>;\n.reg .b32 %r<16>;\n.reg .f32 %f<4>;\n\
         mov.u32 %r1, %tid.x;\n\
         ld.param.u32 %r2, [n];\n\
         mov.f32 %f1, 0f3F800000;\n\
         mov.u32 %r3, WARP_SZ;\n\
         mov.u32 %r10, %r3;\n\
         FIRST:\n\
         shr.u32 %r4, %r10, 1;\n\
         mov.b32 %r5, %f1;\n\
         shfl.sync.down.b32 %r6|%p1, %r5, %r4, 31, -1;\n\
         mov.u32 %r10, %r4;\n\
         setp.gt.u32 %p2, %r10, 1;\n\
         @%p2 bra FIRST;\n\
         bar.sync 0;\n\
         setp.ge.u32 %p3, %r1, %r2;\n\
         @%p3 bra AFTER;\n\
         SECOND:\n\
         shr.u32 %r7, %r3, 1;\n\
         mov.u32 %r3, %r7;\n\
         setp.gt.u32 %p4, %r3, 1;\n\
         @%p4 bra SECOND;\n\
         AFTER:\n{tail}\
         ret;\n}}\n"
    );
    lint_ptx(&ptx)
        .expect("PTX")
        .into_iter()
        .filter(|d| d.rule == Rule::W001)
        .map(|d| {
            let line = match d.location {
                warpforge_analysis::program::Location::Ptx { line, .. } => line,
                _ => 0,
            };
            (d.severity, line)
        })
        .collect()
}

#[test]
fn a_register_reused_under_a_divergent_branch_leaves_its_earlier_uniform_uses_uniform() {
    // Without a tail, the only collective is in the first loop, which the halving under `tid < n`
    // (the second loop) cannot reach.
    let found = w001("");
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn where_the_divergent_definition_reaches_a_collective_it_is_still_divergent() {
    // After the second loop, `%r3` is WARP_SZ for the lanes that skipped it and 1 for the others:
    // a loop on it has a lane-dependent trip count, and the lanes that leave it early wait at the
    // shuffle after it while the others are still in the loop's.
    let found = w001(
        "THIRD:\nshfl.sync.bfly.b32 %r8|%p5, %r5, 1, 31, -1;\n\
         shr.u32 %r3, %r3, 1;\nsetp.gt.u32 %p6, %r3, 0;\n@%p6 bra THIRD;\n\
         shfl.sync.bfly.b32 %r9|%p7, %r5, 2, 31, -1;\n",
    );
    assert!(
        found
            .iter()
            .any(|&(s, line)| s == Severity::Error && line > 0),
        "{found:?}"
    );
}
