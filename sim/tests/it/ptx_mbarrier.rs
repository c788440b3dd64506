//! mbarrier on the PTX simulator: phases completed by arrivals (with a state, a phase parity, a
//! count, `arrive_drop`, `.expect_tx`/`complete_tx`), `cp.async.mbarrier.arrive{.noinc}`, the
//! documented object encoding seen by a plain load, `pending_count`, and the sanitizer's findings
//! (an uninitialized barrier, too many arrivals, a wait that never completes, `init` of a barrier
//! in use, `inval` while waited on). nvcc 13's PTX for `cuda::memcpy_async` with `cuda::barrier`
//! (`sim/tests/fixtures/async/barrier.cu`) runs with the results computed here.

use crate::common::ptx::{run_in_out, shape, words};
use warpforge_sim::{FindingKind, SimReport};

fn ptx(body: &str) -> String {
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry k(.param .u64 pin, .param .u64 pout)\n{{\n    \
         .reg .pred %p<8>;\n    .reg .b32 %r<32>;\n    .reg .b64 %rd<16>;\n    \
         .shared .align 8 .b8 bar[16];\n    .shared .align 16 .b8 s[1024];\n    \
         ld.param.u64 %rd1, [pin];\n    ld.param.u64 %rd2, [pout];\n    \
         cvta.to.global.u64 %rd1, %rd1;\n    cvta.to.global.u64 %rd2, %rd2;\n    \
         mov.u32 %r1, %tid.x;\n    mul.wide.u32 %rd3, %r1, 4;\n    add.s64 %rd4, %rd2, %rd3;\n\
         {body}\n    ret;\n}}\n"
    )
}

/// 64 threads (two warps): thread 0 initializes the barrier for 64 arrivals. Phase 0: each thread
/// stores t + 100 to s[t], arrives (a state), waits with `try_wait` on the state, and reads
/// s[63 - t]. Phase 1: it stores 3t to s[64 + t], arrives (`_`), waits with
/// `test_wait.parity` on parity 1 (yes: phase 1 is odd) and reads s[64 + (t + 1) % 64].
/// out[t] = both sums.
const PHASES: &str = "
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra INIT_DONE;
    mbarrier.init.shared::cta.b64 [bar], 64;
INIT_DONE:
    bar.sync 0;
    fence.mbarrier_init.release.cluster;
    fence.proxy.async.shared::cta;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, s;
    add.u32 %r4, %r3, %r2;
    add.u32 %r5, %r1, 100;
    st.shared.u32 [%r4], %r5;
    mbarrier.arrive.release.cta.shared::cta.b64 %rd5, [bar];
WAIT0:
    mbarrier.try_wait.shared::cta.b64 %p2, [bar], %rd5;
    @!%p2 bra WAIT0;
    sub.u32 %r6, 63, %r1;
    shl.b32 %r6, %r6, 2;
    add.u32 %r6, %r3, %r6;
    ld.shared.u32 %r7, [%r6];
    mul.lo.u32 %r8, %r1, 3;
    st.shared.u32 [%r4+256], %r8;
    mbarrier.arrive.shared.b64 _, [bar];
WAIT1:
    mbarrier.test_wait.parity.shared.b64 %p3, [bar], 1;
    @!%p3 bra WAIT1;
    add.u32 %r9, %r1, 1;
    and.b32 %r9, %r9, 63;
    shl.b32 %r9, %r9, 2;
    add.u32 %r9, %r3, %r9;
    ld.shared.u32 %r10, [%r9+256];
    add.u32 %r11, %r7, %r10;
    st.global.u32 [%rd4], %r11;";

#[test]
fn phases_complete_and_order_the_block() {
    let (report, out) = run_in_out(&ptx(PHASES), "k", &shape(1, 64), &[0u8; 4], 64 * 4, &[]);
    // No race: each wait orders the other threads' stores (before their arrivals) before the
    // loads after it, without any bar.sync between them.
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    let want: Vec<u32> = (0..64u32)
        .map(|t| (63 - t) + 100 + 3 * ((t + 1) % 64))
        .collect();
    assert_eq!(words(&out), want);
}

#[test]
fn a_missing_wait_is_a_race() {
    // The same without the phase-0 wait: reading another warp's store is a race.
    let text = ptx(&PHASES.replace("    @!%p2 bra WAIT0;\n", ""));
    let (report, _) = run_in_out(&text, "k", &shape(1, 64), &[0u8; 4], 64 * 4, &[]);
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.kind == FindingKind::SharedRace),
        "{:#?}",
        report.findings
    );
}

/// One thread: counts, arrive_drop, expect_tx/complete_tx, pending_count and the encoding.
const COUNTS: &str = "
    mbarrier.init.shared.b64 [bar], 5;
    ld.shared.b64 %rd5, [bar];
    st.global.b64 [%rd2], %rd5;
    mbarrier.arrive.shared.b64 %rd6, [bar], 2;
    mbarrier.arrive.shared.b64 %rd7, [bar];
    mbarrier.pending_count.b64 %r2, %rd6;
    mbarrier.pending_count.b64 %r3, %rd7;
    st.global.v2.u32 [%rd2+8], {%r2, %r3};
    mbarrier.arrive_drop.shared.b64 %rd8, [bar];
    mbarrier.test_wait.shared.b64 %p1, [bar], %rd8;
    selp.u32 %r4, 1, 0, %p1;
    mbarrier.arrive.shared.b64 %rd9, [bar];
    mbarrier.test_wait.shared.b64 %p2, [bar], %rd9;
    selp.u32 %r5, 1, 0, %p2;
    st.global.v2.u32 [%rd2+16], {%r4, %r5};
    mbarrier.arrive.expect_tx.shared.b64 %rd10, [bar], 16;
    mbarrier.arrive.shared.b64 %rd10, [bar], 3;
    mbarrier.test_wait.parity.shared.b64 %p3, [bar], 1;
    selp.u32 %r6, 1, 0, %p3;
    mbarrier.complete_tx.shared.b64 [bar], 10;
    mbarrier.test_wait.parity.shared.b64 %p4, [bar], 1;
    selp.u32 %r7, 1, 0, %p4;
    mbarrier.expect_tx.shared.b64 [bar], 4;
    mbarrier.complete_tx.shared.b64 [bar], 10;
    mbarrier.test_wait.parity.shared.b64 %p5, [bar], 1;
    selp.u32 %r8, 1, 0, %p5;
    mbarrier.test_wait.parity.shared.b64 %p6, [bar], 0;
    selp.u32 %r9, 1, 0, %p6;
    st.global.v4.u32 [%rd2+32], {%r6, %r7, %r8, %r9};
    ld.shared.b64 %rd11, [bar];
    st.global.b64 [%rd2+48], %rd11;
    mbarrier.inval.shared.b64 [bar];
    ld.shared.b64 %rd12, [bar];
    st.global.b64 [%rd2+56], %rd12;";

#[test]
fn counts_drop_and_tx_count_complete_phases() {
    let (report, out) = run_in_out(&ptx(COUNTS), "k", &shape(1, 1), &[0u8; 4], 64, &[]);
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    let w = words(&out);
    let d = |i: usize| u64::from(w[i]) | u64::from(w[i + 1]) << 32;
    // The encoding (module docs of exec_mbarrier.rs): 5 pending, 5 expected, valid, phase 0.
    assert_eq!(d(0), 5 | 5 << 20 | 1 << 62);
    // pending_count of a state: the pending arrivals before that arrival.
    assert_eq!((w[2], w[3]), (5, 3));
    // arrive_drop: 2 pending -> 1, expected 5 -> 4; the last arrival completes phase 0.
    assert_eq!((w[4], w[5]), (0, 1));
    // Phase 1 expects 4: 1 + 3 arrivals with 16 bytes expected wait for the bytes; 10 + 6 of
    // them complete it (the second expect_tx adds 4 while 6 are outstanding: 10 in all).
    assert_eq!((w[8], w[9], w[10], w[11]), (0, 0, 1, 0));
    // Now in phase 2 (even): 4 pending of 4 expected.
    assert_eq!(d(12), 4 | 4 << 20 | 1 << 62);
    assert_eq!(d(14), 0, "inval clears the object");
}

/// Runs `body` in blocks of `block` threads; the report and its findings as text.
fn finding_of(body: &str, block: u32) -> (SimReport, String) {
    let text = ptx(body);
    let (report, _) = run_in_out(&text, "k", &shape(1, block), &[0u8; 4], 256, &[]);
    let shown = report
        .findings
        .iter()
        .map(|f| f.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    (report, shown)
}

#[test]
fn using_an_uninitialized_mbarrier_is_reported() {
    let (report, shown) = finding_of("    mbarrier.arrive.shared.b64 %rd5, [bar];", 1);
    let f = &report.findings[0];
    assert_eq!(f.kind, FindingKind::Mbarrier, "{shown}");
    assert!(
        f.statement
            .contains("mbarrier.arrive.shared.b64 %rd5, [bar]"),
        "{shown}"
    );
    assert!(f.detail.contains("not initialized"), "{shown}");
    assert_eq!(f.address, Some(("bar".to_owned(), 0)));
}

#[test]
fn too_many_arrivals_in_a_phase_are_reported() {
    let body = "
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra SKIP;
    mbarrier.init.shared.b64 [bar], 1;
    mbarrier.arrive.shared.b64 %rd5, [bar], 2;
SKIP:";
    let (report, shown) = finding_of(body, 32);
    let f = &report.findings[0];
    assert_eq!(f.kind, FindingKind::Mbarrier, "{shown}");
    assert!(
        f.detail.contains("more arrivals than the phase expects"),
        "{shown}"
    );
}

#[test]
fn a_wait_that_never_completes_is_a_deadlock() {
    // 64 arrivals expected; warp 0's 32 threads arrive and wait, warp 1 never arrives.
    let body = "
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra INIT_DONE;
    mbarrier.init.shared.b64 [bar], 64;
INIT_DONE:
    bar.sync 0;
    setp.ge.u32 %p2, %r1, 32;
    @%p2 bra DONE;
    mbarrier.arrive.shared.b64 %rd5, [bar];
SPIN:
    mbarrier.try_wait.shared.b64 %p3, [bar], %rd5;
    @!%p3 bra SPIN;
DONE:";
    let (report, shown) = finding_of(body, 64);
    let f = &report.findings[0];
    assert_eq!(f.kind, FindingKind::Deadlock, "{shown}");
    assert!(f.detail.contains("warp 0"), "{shown}");
    assert!(
        f.detail
            .contains("mbarrier.try_wait.shared.b64 %p3, [bar], %rd5")
            || f.detail.contains("@!%p3 bra SPIN"),
        "{shown}"
    );
}

#[test]
fn init_of_a_barrier_in_use_is_reported() {
    let body = "
    mbarrier.init.shared.b64 [bar], 2;
    mbarrier.arrive.shared.b64 %rd5, [bar];
    mbarrier.init.shared.b64 [bar], 2;";
    let (report, shown) = finding_of(body, 1);
    let f = &report.findings[0];
    assert_eq!(f.kind, FindingKind::Mbarrier, "{shown}");
    assert!(f.statement.contains("mbarrier.init"), "{shown}");
    assert!(f.detail.contains("in use (1 of 2 arrivals"), "{shown}");
}

#[test]
fn inval_while_waited_on_is_reported() {
    // Warp 1 waits on a phase nobody completes; warp 0 sleeps (its turn ends), then invalidates.
    let body = "
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra INIT_DONE;
    mbarrier.init.shared.b64 [bar], 2;
INIT_DONE:
    bar.sync 0;
    setp.ge.u32 %p2, %r1, 32;
    @%p2 bra WAITER;
    nanosleep.u32 100;
    setp.ne.u32 %p4, %r1, 0;
    @%p4 bra DONE;
    mbarrier.inval.shared.b64 [bar];
    bra DONE;
WAITER:
    mbarrier.try_wait.parity.shared.b64 %p3, [bar], 0;
    @!%p3 bra WAITER;
DONE:";
    let (report, shown) = finding_of(body, 64);
    let f = report
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::Mbarrier)
        .unwrap_or_else(|| panic!("{shown}"));
    assert!(f.statement.contains("mbarrier.inval"), "{shown}");
    assert!(f.detail.contains("warp 1 waits on it"), "{shown}");
}

/// 32 threads each copy 16 bytes with `cp.async`, arrive through `cp.async.mbarrier.arrive.noinc`
/// (the barrier expects those 32 arrivals only), wait on parity 0 and read the copy of thread
/// 31 - t: out[t] = in[31 - t] (16 bytes).
const NOINC: &str = "
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra INIT_DONE;
    mbarrier.init.shared.b64 [bar], 32;
INIT_DONE:
    bar.sync 0;
    mul.wide.u32 %rd5, %r1, 16;
    add.s64 %rd6, %rd1, %rd5;
    shl.b32 %r2, %r1, 4;
    mov.u32 %r3, s;
    add.u32 %r4, %r3, %r2;
    cp.async.cg.shared.global [%r4], [%rd6], 16;
    cp.async.mbarrier.arrive.noinc.shared.b64 [bar];
WAIT:
    mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;
    @!%p2 bra WAIT;
    sub.u32 %r5, 31, %r1;
    shl.b32 %r5, %r5, 4;
    add.u32 %r5, %r3, %r5;
    ld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [%r5];
    add.s64 %rd7, %rd2, %rd5;
    st.global.v4.u32 [%rd7], {%r6, %r7, %r8, %r9};";

#[test]
fn copies_arrive_on_an_mbarrier() {
    let input: Vec<u8> = (0..512u32).map(|i| (i * 13 + 5) as u8).collect();
    let (report, out) = run_in_out(&ptx(NOINC), "k", &shape(1, 32), &input, 512, &[]);
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    for t in 0..32 {
        assert_eq!(
            &out[16 * t..16 * t + 16],
            &input[16 * (31 - t)..16 * (32 - t)],
            "thread {t}"
        );
    }
}

fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/async")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn i32_bytes(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn nvcc_cuda_barrier_kernels_compute_their_results() {
    let input: Vec<i32> = (0..128).map(|i| (i * 29 % 97) - 40).collect();
    for arch in ["sm80", "sm90"] {
        let text = fixture(&format!("barrier.{arch}.ptx"));
        let (report, out) = run_in_out(
            &text,
            "barrier_copy",
            &shape(2, 64),
            &i32_bytes(&input),
            128 * 4,
            &[],
        );
        assert!(report.findings.is_empty(), "{arch}: {:#?}", report.findings);
        let want: Vec<i32> = (0..128)
            .map(|g| {
                let (b, t) = (g / 64, g % 64);
                let v = |t: usize| input[b * 64 + 63 - t] * 3;
                v(t) + v((t + 1) % 64)
            })
            .collect();
        let got: Vec<i32> = words(&out).into_iter().map(|w| w as i32).collect();
        assert_eq!(got, want, "{arch} barrier_copy");
    }
    // barrier_thread_copy: cp.async with cp.async.mbarrier.arrive on sm_80; 2 blocks of 32
    // threads, one int4 each: out[b][t] = reversed(in[b][31 - t]).
    let input: Vec<i32> = (0..256).map(|i| i * 7 - 900).collect();
    let want: Vec<i32> = (0..256)
        .map(|i| {
            let (v, k) = (i / 4, i % 4);
            let (b, t) = (v / 32, v % 32);
            input[(b * 32 + 31 - t) * 4 + 3 - k]
        })
        .collect();
    // On sm_90 nvcc copies with cp.async.bulk (TMA's 1-D form): the same result.
    for sm in ["sm80", "sm90"] {
        let text = fixture(&format!("barrier.{sm}.ptx"));
        let (report, out) = run_in_out(
            &text,
            "barrier_thread_copy",
            &shape(2, 32),
            &i32_bytes(&input),
            256 * 4,
            &[],
        );
        assert!(report.findings.is_empty(), "{:#?}", report.findings);
        let got: Vec<i32> = words(&out).into_iter().map(|w| w as i32).collect();
        assert_eq!(got, want, "{sm} barrier_thread_copy");
    }
}

#[test]
fn a_corrupted_object_is_reported_not_a_panic() {
    // A plain store makes the bytes a "valid" barrier with 5 pending of 0 expected arrivals.
    let body = "
    mov.b64 %rd5, 0x4000000000000005;
    st.shared.b64 [bar], %rd5;
    mbarrier.inval.shared.b64 [bar];";
    let (report, shown) = finding_of(body, 1);
    let f = &report.findings[0];
    assert_eq!(f.kind, FindingKind::Mbarrier, "{shown}");
    assert!(f.detail.contains("0 of 0 arrivals"), "{shown}");
}

/// Triton's wait loop (its `mbarrier.try_wait.parity` in a scoped block with its own predicate and
/// labels), after 32 threads store t * t to s[t] and arrive with `_`: out[t] = s[31 - t].
const TRITON_WAIT: &str = "
    setp.ne.u32 %p1, %r1, 0;
    mov.u32 %r2, bar;
    @!%p1 mbarrier.init.shared::cta.b64 [%r2], 32;
    bar.sync 0;
    mul.lo.u32 %r3, %r1, %r1;
    shl.b32 %r4, %r1, 2;
    mov.u32 %r5, s;
    add.u32 %r6, %r5, %r4;
    st.shared.u32 [%r6], %r3;
    mbarrier.arrive.shared::cta.b64 _, [%r2];
    mov.u32 %r7, 0;
    {
    .reg .pred P1;
    LAB_WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 P1, [%r2], %r7;
    @P1 bra.uni DONE;
    bra.uni LAB_WAIT;
    DONE:
    }
    sub.u32 %r8, 31, %r1;
    shl.b32 %r8, %r8, 2;
    add.u32 %r8, %r5, %r8;
    ld.shared.u32 %r9, [%r8];
    st.global.u32 [%rd4], %r9;";

#[test]
fn triton_style_wait_loop() {
    let (report, out) = run_in_out(
        &ptx(TRITON_WAIT),
        "k",
        &shape(1, 32),
        &[0u8; 4],
        32 * 4,
        &[],
    );
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    let want: Vec<u32> = (0..32u32).map(|t| (31 - t) * (31 - t)).collect();
    assert_eq!(words(&out), want);
}
