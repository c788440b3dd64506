//! `warpSize` as nvcc writes it — `mov.u32 %r1, WARP_SZ; div.u32 %r38, %tid.x, %r1` — is the
//! constant 32 through a register: a branch on the warp index it computes is warp-uniform, and a
//! full-mask collective under it is fine. Dividing by a value that is not constant stays divergent.

use warpforge_analysis::{lint_ptx, Rule};

fn kernel(divisor: &str) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\n\
         .visible .entry k(.param .u64 out, .param .u32 d)\n{{\n\
         .reg .pred %p<3>;\n.reg .b32 %r<40>;\n.reg .b64 %rd<4>;\n\
         mov.u32 %r2, %tid.x;\n\
         {divisor}\n\
         div.u32 %r38, %r2, %r1;\n\
         setp.ne.s32 %p1, %r38, 0;\n\
         @%p1 bra DONE;\n\
         shfl.sync.bfly.b32 %r3, %r2, 1, 31, -1;\n\
         ld.param.u64 %rd1, [out];\n\
         cvta.to.global.u64 %rd2, %rd1;\n\
         mul.wide.u32 %rd3, %r2, 4;\n\
         add.s64 %rd2, %rd2, %rd3;\n\
         st.global.u32 [%rd2], %r3;\n\
         DONE:\n\
         ret;\n}}\n"
    )
}

fn w001(ptx: &str) -> usize {
    lint_ptx(ptx)
        .expect("PTX")
        .iter()
        .filter(|d| d.rule == Rule::W001)
        .count()
}

#[test]
fn warp_sz_through_a_register_gives_a_warp_uniform_warp_index() {
    assert_eq!(w001(&kernel("mov.u32 %r1, WARP_SZ;")), 0);
    assert_eq!(w001(&kernel("mov.u32 %r1, 32;")), 0);
    // A divisor from a parameter: the quotient can differ within a warp.
    assert_eq!(w001(&kernel("ld.param.u32 %r1, [d];")), 1);
}
