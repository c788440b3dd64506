//! R001 (shared-race) on small PTX kernels: the loop-carried race of a tree reduction without its loop
//! barrier (an error naming the iterations, threads and block sizes), the same loop with the barrier
//! (clean), accesses whose bytes may coincide but cannot be shown to (a warning saying what could not
//! be proved), and what must stay quiet — warp-synchronous code, accesses by one warp, disjoint index
//! ranges, accesses separated by a barrier.

use warpforge_analysis::Rule;
use warpforge_analysis::{lint_ptx, Severity};

/// The R001 findings of `source`: (severity, message).
fn r001(source: &str) -> Vec<(Severity, String)> {
    lint_ptx(source)
        .expect("PTX")
        .into_iter()
        .filter(|d| d.rule == Rule::R001)
        .map(|d| (d.severity, d.message))
        .collect()
}

/// A kernel `k` with a 4 KiB shared array `s`, `%r1` = `%tid.x`, `%r2` = `%ntid.x`, `%r3` = `s`,
/// `%r4` = `&s[tid]`; `launch` goes after the parameter list, `body` before `ret`.
fn kernel(launch: &str, body: &str) -> String {
    format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n\n\
         .visible .entry k(.param .u64 in, .param .u32 n){launch}\n{{\n    \
         .reg .pred %p<8>;\n    .reg .b32 %r<32>;\n    .reg .b64 %rd<8>;\n    \
         .shared .align 4 .b8 s[4096];\n    \
         mov.u32 %r1, %tid.x;\n    mov.u32 %r2, %ntid.x;\n    mov.u32 %r3, s;\n    \
         shl.b32 %r5, %r1, 2;\n    add.s32 %r4, %r3, %r5;\n{body}    ret;\n}}\n"
    )
}

/// `sdata[tid] = tid; __syncthreads(); for (s = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s)
/// sdata[tid] += sdata[tid + s]; <between> }`, as nvcc writes it (a rotated loop, `setp.ne` exit).
fn tree_reduction(between: &str) -> String {
    format!(
        "    st.shared.u32 [%r4], %r1;\n    bar.sync 0;\n    shr.u32 %r10, %r2, 1;\n    \
         setp.eq.s32 %p1, %r10, 0;\n    @%p1 bra DONE;\nLOOP:\n    setp.ge.u32 %p2, %r1, %r10;\n    \
         @%p2 bra NEXT;\n    shl.b32 %r11, %r10, 2;\n    add.s32 %r12, %r4, %r11;\n    \
         ld.shared.u32 %r13, [%r4];\n    ld.shared.u32 %r14, [%r12];\n    \
         add.s32 %r15, %r14, %r13;\n    st.shared.u32 [%r4], %r15;\nNEXT:\n    {between}\n    \
         shr.u32 %r10, %r10, 1;\n    setp.ne.s32 %p3, %r10, 0;\n    @%p3 bra LOOP;\nDONE:\n"
    )
}

#[test]
fn a_tree_reduction_without_its_loop_barrier_races_across_iterations() {
    let found = r001(&kernel("", &tree_reduction("")));
    assert_eq!(found.len(), 1, "{found:?}");
    let (severity, message) = &found[0];
    // Not a race in a block of 64 threads, which the kernel admits: without its launch the race is
    // a warning that says which sizes race and how to decide.
    assert_eq!(*severity, Severity::Warning, "{message}");
    // Block of 96: s = 48, 24, …: thread 32 (warp 1) writes s[32] in iteration 1, thread 8 (warp 0)
    // reads s[8 + 24] in iteration 2.
    for needle in [
        "thread 8 (warp 0) reads byte 128 of `s` in iteration 2 of the loop at line",
        "which thread 32 (warp 1) writes at line",
        "in iteration 1 of the loop",
        "a race between warps",
        "for every block x-dimension checked from 96 to 1024 threads",
        "the kernel does not declare its block size",
        "the example is for 96 threads",
        "not for a block of 64 threads",
        "`--block`",
    ] {
        assert!(message.contains(needle), "`{needle}` in {message}");
    }
    // A declared block size is the one the claim is about; 64 threads (s = 32, 16, …: thread t < s
    // reads s[t + s], written by thread t + s < 64 before the loop's barrier) do not race.
    let declared = r001(&kernel("\n.reqntid 256, 1, 1", &tree_reduction("")));
    assert_eq!(declared.len(), 1, "{declared:?}");
    assert_eq!(declared[0].0, Severity::Error, "{declared:?}");
    assert!(
        declared[0].1.contains("in a block of 256 threads"),
        "{declared:?}"
    );
    assert!(r001(&kernel("\n.reqntid 64, 1, 1", &tree_reduction(""))).is_empty());
}

#[test]
fn the_same_loop_with_its_barrier_is_clean() {
    assert!(r001(&kernel("", &tree_reduction("bar.sync 0;"))).is_empty());
    assert!(r001(&kernel(
        "\n.reqntid 1024, 1, 1",
        &tree_reduction("bar.sync 0;")
    ))
    .is_empty());
}

#[test]
fn a_negated_guard_is_followed_the_right_way() {
    // The loop's exit written as `@!%p bra` (taken when %p is false): still the same race, found
    // only if the negation is kept.
    let negated = tree_reduction("")
        .replace("setp.ne.s32 %p3, %r10, 0;", "setp.eq.s32 %p3, %r10, 0;")
        .replace("@%p3 bra LOOP;", "@!%p3 bra LOOP;");
    let found = r001(&kernel("", &negated));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, Severity::Warning, "{found:?}");
    let found = r001(&kernel("\n.reqntid 128, 1, 1", &negated));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, Severity::Error, "{found:?}");
    // `@!%p4 st` with %p4 = tid >= 32: warp 0 writes s[tid], every warp reads s[tid % 32].
    let guarded = "    setp.ge.u32 %p4, %r1, 32;\n    @!%p4 st.shared.u32 [%r4], %r1;\n    \
                   and.b32 %r6, %r5, 124;\n    add.s32 %r7, %r3, %r6;\n    ld.shared.u32 %r8, [%r7];\n";
    let found = r001(&kernel("\n.reqntid 64, 1, 1", guarded));
    assert!(
        found.len() == 1
            && found[0].0 == Severity::Error
            && found[0]
                .1
                .contains("thread 32 (warp 1) reads byte 0 of `s`, which thread 0 (warp 0) writes"),
        "{found:?}"
    );
}

#[test]
fn an_offset_the_analysis_cannot_follow_is_a_possible_race() {
    // Every thread writes s[tid], then reads s[in[0]]: whether another warp wrote that element depends
    // on data.
    let body = "    st.shared.u32 [%r4], %r1;\n    ld.param.u64 %rd1, [in];\n    \
                ld.global.u32 %r6, [%rd1];\n    shl.b32 %r7, %r6, 2;\n    add.s32 %r8, %r3, %r7;\n    \
                ld.shared.u32 %r9, [%r8];\n";
    let found = r001(&kernel("\n.reqntid 128, 1, 1", body));
    assert_eq!(found.len(), 1, "{found:?}");
    let (severity, message) = &found[0];
    assert_eq!(*severity, Severity::Warning, "{message}");
    for needle in [
        "thread 0 (warp 0) reads `s`, and thread 32 (warp 1) writes it at line 17",
        "a possible race between warps, not proved",
        "the analysis cannot tell which bytes the load at line 22",
        "its address %r8 comes from values it cannot follow",
    ] {
        assert!(message.contains(needle), "`{needle}` in {message}");
    }
    // With a barrier between them, or when warp 0 alone writes and reads (`tid < 32`), nothing.
    let barrier = body.replace("    ld.param", "    bar.sync 0;\n    ld.param");
    assert!(r001(&kernel("\n.reqntid 128, 1, 1", &barrier)).is_empty());
    let warp0 = format!("    setp.ge.u32 %p1, %r1, 32;\n    @%p1 bra DONE;\n{body}DONE:\n");
    assert!(r001(&kernel("\n.reqntid 128, 1, 1", &warp0)).is_empty());
}

#[test]
fn a_guard_the_analysis_cannot_evaluate_is_a_possible_race() {
    // Thread t writes s[t + 32] when in[t] is nonzero (a guard on data), and every thread reads s[t].
    let body = "    ld.param.u64 %rd1, [in];\n    mul.wide.u32 %rd2, %r1, 4;\n    \
                add.s64 %rd3, %rd1, %rd2;\n    ld.global.u32 %r6, [%rd3];\n    \
                setp.ne.s32 %p1, %r6, 0;\n    @%p1 st.shared.u32 [%r4+128], %r1;\n    \
                ld.shared.u32 %r9, [%r4];\n";
    let found = r001(&kernel("\n.reqntid 128, 1, 1", body));
    assert_eq!(found.len(), 1, "{found:?}");
    let (severity, message) = &found[0];
    assert_eq!(*severity, Severity::Warning, "{message}");
    assert!(
        message.contains("cannot tell whether thread 0 runs the store at line")
            && message.contains("its guard %p1 comes from values it cannot follow"),
        "{message}"
    );
}

#[test]
fn warp_synchronous_code_is_quiet() {
    // Warp 0 alone finishes a reduction without barriers: `if (tid < 32) { s[tid] += s[tid + 16]; …
    // }` — every access is by lanes of one warp.
    let mut tail = String::from(
        "    st.shared.u32 [%r4], %r1;\n    bar.sync 0;\n    setp.ge.u32 %p1, %r1, 32;\n    \
         @%p1 bra DONE;\n",
    );
    for offset in [64, 32, 16, 8, 4] {
        tail += &format!(
            "    ld.shared.u32 %r6, [%r4];\n    ld.shared.u32 %r7, [%r4+{offset}];\n    \
             add.s32 %r8, %r6, %r7;\n    st.shared.u32 [%r4], %r8;\n"
        );
    }
    tail += "DONE:\n";
    assert!(r001(&kernel("", &tail)).is_empty());
    assert!(r001(&kernel("\n.reqntid 256, 1, 1", &tail)).is_empty());
    // Each warp exchanges within its own 32 elements: s[tid] written, s[tid ^ 1] read (`__syncwarp`
    // is a warp-level barrier only).
    let exchange =
        "    st.shared.u32 [%r4], %r1;\n    bar.warp.sync -1;\n    xor.b32 %r6, %r5, 4;\n    \
                    add.s32 %r7, %r3, %r6;\n    ld.shared.u32 %r8, [%r7];\n";
    assert!(r001(&kernel("", exchange)).is_empty());
}

#[test]
fn disjoint_ranges_and_barriers_are_quiet() {
    // s[tid] written, s[512 + tid] read: no byte in common for blocks of up to 512 threads; in a
    // larger one thread 0 reads s[512], which thread 512 writes.
    let disjoint = "    st.shared.u32 [%r4], %r1;\n    ld.shared.u32 %r6, [%r4+2048];\n";
    assert!(r001(&kernel("\n.reqntid 512, 1, 1", disjoint)).is_empty());
    let large = r001(&kernel("", disjoint));
    assert!(
        large.len() == 1
            && large[0]
                .1
                .contains("for every block x-dimension checked from 768 to 1024")
            && large[0].1.contains("thread 0 (warp 0) reads byte 2048"),
        "{large:?}"
    );
    // …and s[tid ^ 32] read after a barrier.
    let separated =
        "    st.shared.u32 [%r4], %r1;\n    bar.sync 0;\n    xor.b32 %r6, %r5, 128;\n    \
                     add.s32 %r7, %r3, %r6;\n    ld.shared.u32 %r8, [%r7];\n";
    assert!(r001(&kernel("", separated)).is_empty());
    // A read of another warp's element before the write to one's own (write after read) races too.
    let war = "    ld.shared.u32 %r6, [%r4+128];\n    st.shared.u32 [%r4], %r1;\n";
    let found = r001(&kernel("\n.reqntid 128, 1, 1", war));
    assert!(
        found.len() == 1
            && found[0].0 == Severity::Error
            && found[0]
                .1
                .contains("thread 32 (warp 1) writes byte 128 of `s`, which thread 0 (warp 0) reads at line 17"),
        "{found:?}"
    );
    let racing = separated.replace("    bar.sync 0;\n", "");
    let found = r001(&kernel("", &racing));
    assert!(
        found.len() == 1
            && found[0].0 == Severity::Error
            && found[0]
                .1
                .contains("for every block x-dimension checked from 64 to 1024"),
        "{found:?}"
    );
}
