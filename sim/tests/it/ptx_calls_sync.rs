//! Lanes of one warp that call a `.func` from different call sites and meet at a `.sync`
//! instruction or a barrier inside it: on Volta and later a warp's lanes meet at the same
//! instruction whichever path brought them there, so the simulator executes it once for all of
//! them (`simt.rs`, `Gather::Together`). Expected outputs computed here in Rust.

use crate::common;
use common::calls::{run, u32s, PROLOGUE};

#[test]
fn lanes_calling_a_function_from_different_sites_meet_at_a_shuffle_inside_it() {
    // Lanes 0-15 call `bfly` from one call site, lanes 16-31 from another; inside, a full-mask
    // `shfl.sync.bfly` pairs lane l with lane l ^ 16 (on Volta and later the lanes of a warp meet at
    // the same `shfl.sync` whichever path brought them there).
    let text = format!(
        "
.func (.param .b32 bfly_ret) bfly(.param .b32 bfly_x)
{{
    .reg .b32 %r<4>;
    ld.param.u32 %r1, [bfly_x];
    shfl.sync.bfly.b32 %r2, %r1, 16, 31, -1;
    mad.lo.s32 %r3, %r2, 1000, %r1;
    st.param.b32 [bfly_ret+0], %r3;
    ret;
}}
.visible .entry k(.param .u64 out)
{{{PROLOGUE}
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra LOW;
    call (%r3), bfly, (%r1);
    bra.uni JOIN;
LOW:
    call (%r3), bfly, (%r1);
JOIN:
    st.global.u32 [%rd2], %r3;
    ret;
}}
"
    );
    let (report, out) = run(&text, 32, 32 * 4, &[]);
    assert!(report.is_clean(), "{:#?}", report.findings);
    let want: Vec<u32> = (0..32u32).map(|l| (l ^ 16) * 1000 + l).collect();
    assert_eq!(u32s(&out), want);
}

#[test]
fn lanes_calling_a_function_from_different_sites_meet_at_a_barrier_inside_it() {
    // As above with `bar.sync` between a shared store and a load of another warp's word: every
    // thread of the two warps returns the word of thread (t + 32) % 64.
    let text = format!(
        "
.shared .align 4 .b8 words[256];
.func (.param .b32 swap_ret) swap(.param .b32 swap_t)
{{
    .reg .b32 %r<8>;
    ld.param.u32 %r1, [swap_t];
    mov.u32 %r2, words;
    shl.b32 %r3, %r1, 2;
    add.u32 %r4, %r2, %r3;
    mul.lo.u32 %r5, %r1, 7;
    st.shared.u32 [%r4], %r5;
    bar.sync 0;
    add.u32 %r6, %r1, 32;
    and.b32 %r6, %r6, 63;
    shl.b32 %r6, %r6, 2;
    add.u32 %r6, %r2, %r6;
    ld.shared.u32 %r7, [%r6];
    st.param.b32 [swap_ret+0], %r7;
    ret;
}}
.visible .entry k(.param .u64 out)
{{{PROLOGUE}
    and.b32 %r5, %r1, 31;
    setp.lt.u32 %p1, %r5, 16;
    @%p1 bra LOW;
    call (%r3), swap, (%r1);
    bra.uni JOIN;
LOW:
    call (%r3), swap, (%r1);
JOIN:
    st.global.u32 [%rd2], %r3;
    ret;
}}
"
    );
    let (report, out) = run(&text, 64, 64 * 4, &[]);
    assert!(report.is_clean(), "{:#?}", report.findings);
    let want: Vec<u32> = (0..64u32).map(|t| (t + 32) % 64 * 7).collect();
    assert_eq!(u32s(&out), want);
}
