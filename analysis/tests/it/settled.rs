//! A flag one thread stores to shared memory before a barrier and every thread reads after it
//! ("am I the last block", after `__threadfence()` and an atomic ticket) is the same for every
//! thread: a branch on it is uniform. A store to the flag between the barrier and the next one (by
//! any thread, on any path) unsettles it; a store to another shared array does not.

use warpforge_analysis::{lint_ptx, Rule, Severity};

/// Thread 0 stores `flag`, a barrier, everyone loads it and branches to a full-mask shuffle;
/// `after` runs right after the load.
fn kernel(after: &str) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         .reg .pred %p<4>;\n.reg .b16 %rs<4>;\n.reg .b32 %r<10>;\n.reg .b64 %rd<4>;\n\
         .shared .align 1 .u8 flag;\n.shared .align 4 .b8 data[128];\n\
         mov.u32 %r1, %tid.x;\n\
         setp.ne.s32 %p1, %r1, 0;\n\
         @%p1 bra SKIP;\n\
         mov.u16 %rs1, 1;\n\
         st.shared.u8 [flag], %rs1;\n\
         SKIP:\n\
         barrier.sync 0;\n\
         ld.shared.u8 %rs2, [flag];\n\
         {after}\n\
         setp.eq.s16 %p2, %rs2, 0;\n\
         @%p2 bra DONE;\n\
         shfl.sync.bfly.b32 %r3, %r1, 1, 31, -1;\n\
         ld.param.u64 %rd1, [out];\n\
         cvta.to.global.u64 %rd2, %rd1;\n\
         mul.wide.u32 %rd3, %r1, 4;\n\
         add.s64 %rd2, %rd2, %rd3;\n\
         st.global.u32 [%rd2], %r3;\n\
         DONE:\n\
         ret;\n}}\n"
    )
}

fn w001_errors(ptx: &str) -> usize {
    lint_ptx(ptx)
        .expect("PTX")
        .iter()
        .filter(|d| d.rule == Rule::W001 && d.severity == Severity::Error)
        .count()
}

#[test]
fn a_flag_settled_by_a_barrier_is_uniform() {
    assert_eq!(w001_errors(&kernel("")), 0);
    // A store to another shared array, through a register, leaves the flag settled.
    let other = "mov.u32 %r5, data;\nshl.b32 %r6, %r1, 2;\nadd.s32 %r7, %r5, %r6;\n\
                 st.shared.u32 [%r7], %r1;";
    assert_eq!(w001_errors(&kernel(other)), 0);
}

#[test]
fn a_flag_stored_again_after_the_barrier_is_not() {
    // Thread 1 rewrites the flag while the others read it.
    let again = "setp.ne.s32 %p3, %r1, 1;\n@%p3 bra KEEP;\nst.shared.u8 [flag], %rs1;\nKEEP:";
    assert_eq!(w001_errors(&kernel(again)), 1);
}
