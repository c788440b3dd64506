//! Warps that wait on each other through memory on the PTX simulator: a warp spinning on a flag a
//! later warp of its block sets finishes (warps take turns), a spin nothing will end is a deadlock
//! finding naming the waiting warps and their lines (not a hang), and a spin with a timeout counter
//! is not mistaken for one.

use warpforge_sim::ptx::{self, PtxArg, PtxKernel, PtxLaunch};
use warpforge_sim::BufferArg;
use warpforge_sim::{FindingKind, SimOptions, SimReport};

/// Warp 0 spins until `flag` (word 0 of `buf`) is non-zero, then copies `data` (word 1) to word 2 +
/// lane; warp 1 computes for a while, stores 40 + 2 = 42 in `data`, then sets the flag. With `SET`
/// replaced by a store of 0 nobody ever sets it. Every access is atomic, as `cuda::atomic_ref` with
/// relaxed order compiles (racecheck also accepts `ld.acquire`/`st.release` pairs: `ptx_strong.rs`).
const HANDOFF: &str = "\
.version 7.0
.target sm_80
.address_size 64

.visible .entry handoff(.param .u64 buf, .param .u32 work)
{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [buf];
    ld.param.u32 %r9, [work];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p1, %r1, 32;
    @%p1 bra PRODUCER;
SPIN:
    atom.global.or.b32 %r2, [%rd1], 0;
    setp.eq.u32 %p2, %r2, 0;
    @%p2 bra SPIN;
    atom.global.or.b32 %r3, [%rd1+4], 0;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3+8], %r3;
    bra DONE;
PRODUCER:
    mov.u32 %r4, 0;
    mov.u32 %r5, 0;
WORK:
    add.u32 %r5, %r5, 3;
    add.u32 %r4, %r4, 1;
    setp.lt.u32 %p3, %r4, %r9;
    @%p3 bra WORK;
    setp.ne.u32 %p3, %r1, 32;
    @%p3 bra DONE;
    atom.global.exch.b32 %r6, [%rd1+4], 42;
SET:
    atom.global.exch.b32 %r7, [%rd1], 1;
DONE:
    ret;
}
";

fn run(text: &str, work: u32, options: &SimOptions) -> (SimReport, Vec<u32>) {
    let kernel = PtxKernel::load(text, "handoff").expect("decodes");
    let mut buf = vec![0u8; (2 + 32) * 4];
    let launch = PtxLaunch {
        grid: [1, 1, 1],
        block: [64, 1, 1],
        dynamic_shared: 0,
    };
    let report = ptx::run(
        &kernel,
        &launch,
        &[PtxArg::Buffer, PtxArg::Scalar(work.into())],
        &mut [BufferArg::ReadWrite(&mut buf)],
        options,
    )
    .expect("the launch starts");
    let words = buf
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    (report, words)
}

/// Whether a deadlock's detail places warp 0 on one of the spin loop's three lines (17-19 of
/// `HANDOFF`; where in the loop depends on where its turn ended).
fn in_the_spin_loop(detail: &str) -> bool {
    ["17", "18", "19"]
        .iter()
        .any(|line| detail.contains(&format!("warp 0 (line {line}: ")))
}

fn findings(report: &SimReport) -> Vec<String> {
    report.findings.iter().map(|f| f.to_string()).collect()
}

#[test]
fn a_warp_spinning_on_a_flag_a_later_warp_sets_finishes() {
    // Short and long producer work: the consumer spins for several turns in the second case.
    for work in [1, 5_000] {
        let (report, words) = run(HANDOFF, work, &SimOptions::default());
        assert!(report.is_clean(), "{:#?}", findings(&report));
        assert_eq!(words[0], 1, "the flag");
        assert_eq!(&words[2..], &[42; 32], "every consumer lane read the data");
    }
}

#[test]
fn a_spin_nothing_will_end_is_a_deadlock_finding_naming_the_warp() {
    let never = HANDOFF.replace(
        "atom.global.exch.b32 %r7, [%rd1], 1;",
        "atom.global.exch.b32 %r7, [%rd1], 0;",
    );
    let started = std::time::Instant::now();
    let (report, words) = run(&never, 10, &SimOptions::default());
    let all = findings(&report);
    assert_eq!(report.findings.len(), 1, "{all:#?}");
    let f = &report.findings[0];
    assert_eq!(f.kind, FindingKind::Deadlock, "{all:#?}");
    assert_eq!(f.warp, 0);
    assert!(f.detail.contains("one warp waits"), "{}", f.detail);
    assert!(in_the_spin_loop(&f.detail), "{}", f.detail);
    assert!(f.detail.contains("lanes 0-31"), "{}", f.detail);
    assert!(
        f.detail.contains("1 warp(s) of the block finished"),
        "{}",
        f.detail
    );
    assert_eq!(
        &words[2..],
        &[0; 32],
        "the consumer never got past the spin"
    );
    // Found after a few rounds, long before the step limit of 10^8 warp-instructions.
    assert!(report.counters.warp_instructions() < 100_000);
    assert!(started.elapsed().as_secs() < 30);
}

#[test]
fn a_deadlock_names_the_warps_waiting_at_a_barrier_too() {
    // The producer waits at a barrier the spinning consumer never reaches.
    let text = HANDOFF.replace(
        "    setp.ne.u32 %p3, %r1, 32;\n",
        "    bar.sync 1, 64;\n    setp.ne.u32 %p3, %r1, 32;\n",
    );
    let (report, _) = run(&text, 10, &SimOptions::default());
    let all = findings(&report);
    let f = report
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::Deadlock)
        .unwrap_or_else(|| panic!("{all:#?}"));
    assert!(in_the_spin_loop(&f.detail), "{}", f.detail);
    assert!(
        f.detail
            .contains("waiting at barriers: warp 1 at barrier 1"),
        "{}",
        f.detail
    );
}

#[test]
fn a_spin_with_a_timeout_counter_is_no_deadlock_and_ends_on_its_own() {
    // The consumer gives up after 200,000 polls: its registers change every round.
    let text = HANDOFF
        .replace(
            "atom.global.exch.b32 %r7, [%rd1], 1;",
            "atom.global.exch.b32 %r7, [%rd1], 0;",
        )
        .replace(
            "SPIN:\n",
            "    mov.u32 %r10, 0;\nSPIN:\n    add.u32 %r10, %r10, 1;\n    setp.gt.u32 %p3, %r10, 200000;\n    @%p3 bra DONE;\n",
        );
    let (report, words) = run(&text, 10, &SimOptions::default());
    assert!(report.is_clean(), "{:#?}", findings(&report));
    assert_eq!(&words[2..], &[0; 32]);
    // With a step limit below the timeout, the step limit ends it instead.
    let options = SimOptions {
        step_limit: 50_000,
        ..SimOptions::default()
    };
    let (report, _) = run(&text, 10, &options);
    let kinds: Vec<FindingKind> = report.findings.iter().map(|f| f.kind).collect();
    assert_eq!(kinds, [FindingKind::StepLimit], "{:#?}", findings(&report));
}

#[test]
fn nanosleep_in_the_spin_hands_the_turn_over_and_fences_decode() {
    // The consumer backs off with `nanosleep` as CUDA code does: it ends its turn at once, so it
    // polls once per turn instead of hundreds of times.
    let text = HANDOFF
        .replace(
            "    @%p2 bra SPIN;\n",
            "    @!%p2 bra GOT;\n    nanosleep.u32 100;\n    bra.uni SPIN;\nGOT:\n    fence.acq_rel.gpu;\n",
        )
        .replace(
            "PRODUCER:\n",
            "PRODUCER:\n    griddepcontrol.wait;\n    fence.proxy.async;\n    membar.gl;\n",
        );
    let (plain, _) = run(HANDOFF, 5_000, &SimOptions::default());
    let options = SimOptions {
        stats: true,
        ..SimOptions::default()
    };
    let (report, words) = run(&text, 5_000, &options);
    assert!(report.is_clean(), "{:#?}", findings(&report));
    assert_eq!(&words[2..], &[42; 32]);
    let (polls_plain, polls_sleep) = (
        plain.counters.warp_instructions(),
        report.counters.warp_instructions(),
    );
    assert!(
        polls_sleep * 2 < polls_plain,
        "with nanosleep {polls_sleep} warp-instructions, without {polls_plain}"
    );
}

/// Reads the clocks and the SM registers; spins until `%globaltimer` has moved 5,000 "ns".
const CLOCKS: &str = "\
.version 7.0
.target sm_80
.address_size 64

.visible .entry clocks(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %clock;
    mov.u64 %rd2, %clock64;
    mov.u64 %rd3, %globaltimer;
WAIT:
    mov.u64 %rd4, %globaltimer;
    sub.s64 %rd5, %rd4, %rd3;
    setp.lt.u64 %p1, %rd5, 5000;
    @%p1 bra WAIT;
    mov.u32 %r2, %clock;
    mov.u32 %r3, %smid;
    mov.u32 %r4, %nsmid;
    mov.u64 %rd6, %gridid;
    mov.u32 %r5, %globaltimer_lo;
    mov.u32 %r6, %tid.x;
    setp.ne.u32 %p1, %r6, 0;
    @%p1 bra END;
    st.global.u32 [%rd1], %r1;
    st.global.u32 [%rd1+4], %r2;
    st.global.u64 [%rd1+8], %rd2;
    st.global.u64 [%rd1+16], %rd5;
    st.global.u32 [%rd1+24], %r3;
    st.global.u32 [%rd1+28], %r4;
    st.global.u64 [%rd1+32], %rd6;
    st.global.u32 [%rd1+40], %r5;
END:
    ret;
}
";

#[test]
fn clocks_are_deterministic_monotone_counters_and_a_timed_wait_ends() {
    let kernel = PtxKernel::load(CLOCKS, "clocks").expect("decodes");
    let launch = PtxLaunch {
        grid: [1, 1, 1],
        block: [64, 1, 1],
        dynamic_shared: 0,
    };
    let mut runs = Vec::new();
    for _ in 0..2 {
        let mut out = vec![0u8; 44];
        let report = ptx::run(
            &kernel,
            &launch,
            &[PtxArg::Buffer],
            &mut [BufferArg::ReadWrite(&mut out)],
            &SimOptions::default(),
        )
        .expect("the launch starts");
        assert!(report.is_clean(), "{:#?}", findings(&report));
        runs.push(out);
    }
    assert_eq!(runs[0], runs[1], "the same launch reads the same clocks");
    let out = &runs[0];
    let u32_at = |at: usize| u32::from_le_bytes(out[at..at + 4].try_into().expect("4"));
    let u64_at = |at: usize| u64::from_le_bytes(out[at..at + 8].try_into().expect("8"));
    let (first, later, clock64) = (u32_at(0), u32_at(4), u64_at(8));
    // Warp 0's instructions: `%clock` at its 3rd, `%clock64` at its 4th.
    assert_eq!((first, clock64), (3, 4));
    assert!(later > first + 1000, "{first} .. {later}");
    assert!(
        u64_at(16) >= 5000,
        "the wait saw 5,000 ns pass: {}",
        u64_at(16)
    );
    assert_eq!(
        (u32_at(24), u32_at(28), u64_at(32)),
        (0, 1, 0),
        "%smid, %nsmid, %gridid"
    );
    assert!(u64::from(u32_at(40)) >= u64_at(16));
}

/// The cluster registers nvcc and cooperative groups read on sm_90, in a launch without a cluster
/// shape: every block is the only block of its cluster (PTX ISA, clusters), so the cluster index is
/// the block index.
const CLUSTERS: &str = "\
.version 8.0
.target sm_90
.address_size 64

.visible .entry clusters(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r9, %ctaid.x;
    mul.wide.u32 %rd2, %r9, 28;
    add.s64 %rd1, %rd1, %rd2;
    mov.u32 %r1, %cluster_ctaid.x;
    mov.u32 %r2, %cluster_nctaid.y;
    mov.u32 %r3, %clusterid.x;
    mov.u32 %r4, %nclusterid.x;
    mov.u32 %r5, %cluster_ctarank;
    mov.u32 %r6, %cluster_nctarank;
    mov.u32 %r7, %is_explicit_cluster;
    mov.u32 %r8, %tid.x;
    setp.ne.u32 %p1, %r8, 0;
    @%p1 bra END;
    st.global.u32 [%rd1], %r1;
    st.global.u32 [%rd1+4], %r2;
    st.global.u32 [%rd1+8], %r3;
    st.global.u32 [%rd1+12], %r4;
    st.global.u32 [%rd1+16], %r5;
    st.global.u32 [%rd1+20], %r6;
    st.global.u32 [%rd1+24], %r7;
END:
    ret;
}
";

#[test]
fn without_a_cluster_shape_each_block_is_a_cluster_of_one() {
    let kernel = PtxKernel::load(CLUSTERS, "clusters").expect("decodes");
    let launch = PtxLaunch {
        grid: [3, 1, 1],
        block: [32, 1, 1],
        dynamic_shared: 0,
    };
    let mut out = vec![0u8; 3 * 28];
    let report = ptx::run(
        &kernel,
        &launch,
        &[PtxArg::Buffer],
        &mut [BufferArg::ReadWrite(&mut out)],
        &SimOptions::default(),
    )
    .expect("the launch starts");
    assert!(report.is_clean(), "{:?}", report.findings);
    let word = |i: usize| u32::from_le_bytes(out[4 * i..4 * i + 4].try_into().expect("4 bytes"));
    for block in 0..3 {
        let w: Vec<u32> = (0..7).map(|k| word(7 * block + k)).collect();
        // cluster_ctaid.x, cluster_nctaid.y, clusterid.x, nclusterid.x, ctarank, nctarank, explicit
        assert_eq!(w, [0, 1, block as u32, 3, 0, 1, 0], "block {block}");
    }
}
