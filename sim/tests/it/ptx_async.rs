//! `cp.async` on the PTX simulator: every copy form (`.ca` 4/8/16 bytes, `.cg` 16, the src-size
//! zero fill Triton writes for masked loads, the ignore-src predicate, the prefetch and cache
//! hints), the groups (`commit_group`, `wait_group N` keeping the N newest, `wait_all`), the
//! sanitizer's findings on misuse (a read or write of a destination still pending, a write of a
//! pending source, a thread exiting with copies pending), and nvcc 13's PTX for `cuda_pipeline.h`
//! (sm_80 and sm_90, `sim/tests/fixtures/async/pipeline.cu`) against results computed here. The
//! bulk copies (TMA) and `wgmma` are refused by name.

use crate::common::ptx::{run_in_out, shape, words};
use warpforge_sim::ptx::PtxKernel;
use warpforge_sim::FindingKind;

/// Each of 32 threads fills its 64-byte slice of shared memory with 0xAA bytes, then copies
/// bytes of `in` (16 per thread) with every form, waits, and writes its slice to `out`:
/// - 0..16: `.cg` 16 bytes; 16..24: `.ca.L2::128B` 8 bytes; 24..28: `.ca` 4 bytes (of in + 8);
/// - 32..48: `.cg.L2::256B` 16 bytes with src-size `t % 17` (Triton's spelling), the rest zeros;
/// - 48..64: `.ca` 16 bytes with ignore-src `t` odd: zeros for odd threads.
const FORMS: &str = "\
.version 8.0
.target sm_80
.address_size 64

.visible .entry forms(.param .u64 pin, .param .u64 pout)
{
    .reg .pred %p<2>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    .shared .align 16 .b8 s[2048];
    ld.param.u64 %rd1, [pin];
    ld.param.u64 %rd2, [pout];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 16;
    add.s64 %rd4, %rd1, %rd3;
    mov.u32 %r2, s;
    shl.b32 %r3, %r1, 6;
    add.u32 %r4, %r2, %r3;
    mov.u32 %r5, 0xAAAAAAAA;
    st.shared.v4.u32 [%r4], {%r5, %r5, %r5, %r5};
    st.shared.v4.u32 [%r4+16], {%r5, %r5, %r5, %r5};
    st.shared.v4.u32 [%r4+32], {%r5, %r5, %r5, %r5};
    st.shared.v4.u32 [%r4+48], {%r5, %r5, %r5, %r5};
    cp.async.cg.shared.global [%r4], [%rd4], 16;
    cp.async.ca.shared.global.L2::128B [%r4+16], [%rd4], 8;
    cp.async.ca.shared.global [%r4+24], [%rd4+8], 4;
    rem.u32 %r6, %r1, 17;
    add.u32 %r7, %r4, 32;
    cp.async.cg.shared.global.L2::256B [ %r7 + 0 ], [ %rd4 + 0 ], 0x10, %r6;
    and.b32 %r8, %r1, 1;
    setp.eq.u32 %p1, %r8, 1;
    cp.async.ca.shared.global [%r4+48], [%rd4], 16, %p1;
    cp.async.commit_group;
    cp.async.wait_group 0;
    shl.b32 %r9, %r1, 6;
    cvt.u64.u32 %rd5, %r9;
    add.s64 %rd6, %rd2, %rd5;
    ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r4];
    st.global.v4.u32 [%rd6], {%r10, %r11, %r12, %r13};
    ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r4+16];
    st.global.v4.u32 [%rd6+16], {%r10, %r11, %r12, %r13};
    ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r4+32];
    st.global.v4.u32 [%rd6+32], {%r10, %r11, %r12, %r13};
    ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r4+48];
    st.global.v4.u32 [%rd6+48], {%r10, %r11, %r12, %r13};
    ret;
}
";

#[test]
fn every_copy_form_copies_and_zero_fills() {
    let input: Vec<u8> = (0..512u32).map(|i| (i * 7 + 3) as u8).collect();
    let (report, out) = run_in_out(FORMS, "forms", &shape(1, 32), &input, 32 * 64, &[]);
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    for t in 0..32usize {
        let src = &input[16 * t..16 * t + 16];
        let mut want = [0xAAu8; 64];
        want[..16].copy_from_slice(src);
        want[16..24].copy_from_slice(&src[..8]);
        want[24..28].copy_from_slice(&src[8..12]);
        let n = t % 17;
        want[32..48].fill(0);
        want[32..32 + n].copy_from_slice(&src[..n]);
        if t % 2 == 1 {
            want[48..64].fill(0);
        } else {
            want[48..64].copy_from_slice(src);
        }
        assert_eq!(&out[64 * t..64 * t + 64], &want[..], "thread {t}");
    }
}

/// Thread 0 copies word A (group 1) and word B (group 2), waits for all but the newest group,
/// reads A (done) and B (pending: a finding), waits for everything and reads B again; out gets
/// A, B before, B after. B's destination held 0x11111111 before the copy.
const GROUPS: &str = "\
.version 8.0
.target sm_80
.address_size 64

.visible .entry groups(.param .u64 pin, .param .u64 pout)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .shared .align 16 .b8 s[32];
    ld.param.u64 %rd1, [pin];
    ld.param.u64 %rd2, [pout];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, 0x11111111;
    st.shared.u32 [s+16], %r1;
    cp.async.ca.shared.global [s], [%rd1], 4;
    cp.async.commit_group;
    cp.async.ca.shared.global [s+16], [%rd1+4], 4;
    cp.async.commit_group;
    cp.async.wait_group 1;
    ld.shared.u32 %r2, [s];
    ld.shared.u32 %r3, [s+16];
    cp.async.wait_all;
    ld.shared.u32 %r4, [s+16];
    st.global.u32 [%rd2], %r2;
    st.global.u32 [%rd2+4], %r3;
    st.global.u32 [%rd2+8], %r4;
    ret;
}
";

#[test]
fn wait_group_completes_all_but_the_newest_groups() {
    let input = [0x0403_0201u32, 0x0807_0605]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect::<Vec<u8>>();
    let (report, out) = run_in_out(GROUPS, "groups", &shape(1, 1), &input, 12, &[]);
    let w = words(&out);
    assert_eq!(w[0], 0x0403_0201, "group 1 was waited for");
    assert_eq!(w[2], 0x0807_0605, "wait_all completed group 2");
    // The simulator performs a copy at the wait that covers it, so the early read saw the old
    // word; the kernel is wrong, and the sanitizer says so.
    assert_eq!(w[1], 0x1111_1111);
    let races: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::SharedRace)
        .collect();
    assert_eq!(races.len(), 1, "{:#?}", report.findings);
    let f = races[0];
    assert!(f.statement.contains("ld.shared.u32 %r3, [s+16]"), "{f}");
    assert!(
        f.detail
            .contains("cp.async.ca.shared.global [s+16], [%rd1+4], 4")
            && f.detail.contains("pending"),
        "{f}"
    );
    assert_eq!(f.address, Some(("s".to_owned(), 16)));
}

/// Misuse: thread 0 copies 16 bytes, then stores into the destination (a race with the pending
/// copy) and into the source (a global race), and exits without waiting (an async-copy finding).
const MISUSE: &str = "\
.version 8.0
.target sm_80
.address_size 64

.visible .entry misuse(.param .u64 pin, .param .u64 pout)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    .shared .align 16 .b8 s[32];
    ld.param.u64 %rd1, [pin];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, 7;
    cp.async.cg.shared.global [s], [%rd1], 16;
    st.shared.u32 [s+4], %r1;
    st.global.u32 [%rd1+8], %r1;
    ret;
}
";

#[test]
fn misuse_of_pending_copies_is_reported() {
    let (report, _) = run_in_out(MISUSE, "misuse", &shape(1, 1), &[0u8; 16], 4, &[]);
    let find = |kind: FindingKind| {
        report
            .findings
            .iter()
            .find(|f| f.kind == kind)
            .unwrap_or_else(|| panic!("no {kind:?} in {:#?}", report.findings))
    };
    let shared = find(FindingKind::SharedRace);
    assert!(
        shared.statement.contains("st.shared.u32 [s+4], %r1"),
        "{shared}"
    );
    assert!(
        shared
            .detail
            .contains("cp.async.cg.shared.global [s], [%rd1], 16"),
        "{shared}"
    );
    let global = find(FindingKind::GlobalRace);
    assert!(
        global.statement.contains("st.global.u32 [%rd1+8], %r1"),
        "{global}"
    );
    assert!(global.detail.contains("copies from"), "{global}");
    let exit = find(FindingKind::AsyncCopy);
    assert!(exit.statement.contains("ret"), "{exit}");
    assert!(
        exit.detail.contains("1 cp.async copy never waited for"),
        "{exit}"
    );
}

fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/async")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    words(bytes).into_iter().map(f32::from_bits).collect()
}

#[test]
fn nvcc_pipeline_kernels_compute_their_results() {
    for arch in ["sm80", "sm90"] {
        let text = fixture(&format!("pipeline.{arch}.ptx"));
        // pipeline_scale: 2 blocks of 32 threads, 3 tiles of 128 floats each.
        let (blocks, tiles) = (2usize, 3usize);
        let n = blocks * tiles * 128;
        let input: Vec<f32> = (0..n).map(|i| ((i * 37) % 101) as f32 - 50.0).collect();
        let (report, out) = run_in_out(
            &text,
            "pipeline_scale",
            &shape(blocks as u32, 32),
            &f32_bytes(&input),
            n * 4,
            &[tiles as u64],
        );
        assert!(report.findings.is_empty(), "{arch}: {:#?}", report.findings);
        let want: Vec<f32> = (0..n)
            .map(|g| {
                let (tile, i) = (g / 128, g % 128);
                2.0 * input[g] + input[tile * 128 + (i + 1) % 128]
            })
            .collect();
        assert_eq!(f32s(&out), want, "{arch} pipeline_scale");

        // pipeline_zfill: 2 blocks of 64 threads, the first 37 floats copied, the rest zeros.
        let valid = 37usize;
        let input: Vec<f32> = (0..128).map(|i| i as f32 * 0.5 + 1.0).collect();
        let (report, out) = run_in_out(
            &text,
            "pipeline_zfill",
            &shape(2, 64),
            &f32_bytes(&input),
            128 * 4,
            &[valid as u64],
        );
        assert!(report.findings.is_empty(), "{arch}: {:#?}", report.findings);
        let want: Vec<f32> = (0..128)
            .map(|g| {
                let (b, t) = (g / 64, g % 64);
                let j = 63 - t;
                let v = if j < valid { input[b * 64 + j] } else { 0.0 };
                v + 1.0
            })
            .collect();
        assert_eq!(f32s(&out), want, "{arch} pipeline_zfill");
    }
}

/// A one-instruction kernel's load error.
fn refusal(inst: &str) -> String {
    let text = format!(
        ".version 8.0\n.target sm_90a\n.address_size 64\n\n.visible .entry k(.param .u64 p)\n{{\n    \
         .reg .b32 %r<8>;\n    .reg .b64 %rd<4>;\n    .reg .f32 %f<8>;\n    .reg .pred %p<2>;\n    \
         .shared .align 128 .b8 s[1024];\n    {inst}\n    ret;\n}}\n"
    );
    match PtxKernel::load(&text, "k") {
        Ok(_) => panic!("`{inst}` was accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bulk_copies_and_wgmma_are_refused_by_name() {
    // The global-to-shared bulk copy on an mbarrier runs (`ptx_bulk.rs`); the other directions,
    // bulk groups and multicast are refused by name.
    let bulk = refusal("cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], %r2;");
    assert!(
        bulk.contains("a bulk copy other than global to shared is not supported"),
        "{bulk}"
    );
    let multicast = refusal(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r1], [%rd1], %r2, [%r3], %rs1;",
    );
    assert!(
        multicast.contains("is not supported by the simulator"),
        "{multicast}"
    );
    // Real TMA operands (`[tmap, {x, y}]`) are not read by the PTX parser yet; the refusal comes
    // before the operands are looked at.
    let tma = refusal(
        "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1], [%r4];",
    );
    assert!(
        tma.contains("`cp.async.bulk.tensor` (the Tensor Memory Accelerator, TMA)"),
        "{tma}"
    );
    let reduce =
        refusal("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%r1], %r2;");
    assert!(reduce.contains("`cp.reduce.async.bulk`"), "{reduce}");
    for inst in [
        "wgmma.fence.sync.aligned;",
        "wgmma.commit_group.sync.aligned;",
        "wgmma.wait_group.sync.aligned 0;",
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1, 0, 0;",
    ] {
        let e = refusal(inst);
        assert!(e.contains("wgmma (Hopper warpgroup MMA) is not supported by the simulator"), "{e}");
    }
    let cg4 = refusal("cp.async.cg.shared.global [s], [%rd1], 4;");
    assert!(cg4.contains("`.cg` 16"), "{cg4}");
}

/// `.L2::cache_hint` with its cache-policy operand, with and without src-size.
const HINTS: &str = "\
.version 8.0
.target sm_80
.address_size 64

.visible .entry hints(.param .u64 pin, .param .u64 pout)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    .shared .align 16 .b8 s[32];
    ld.param.u64 %rd1, [pin];
    ld.param.u64 %rd2, [pout];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.b64 %rd5, 0x1000000000000000;
    cp.async.cg.shared.global.L2::cache_hint [s], [%rd1], 16, %rd5;
    cp.async.ca.shared.global.L2::cache_hint.L2::128B [s+16], [%rd1], 16, 5, %rd5;
    cp.async.wait_all;
    ld.shared.v4.u32 {%r1, %r2, %r3, %r4}, [s];
    st.global.v4.u32 [%rd2], {%r1, %r2, %r3, %r4};
    ld.shared.v4.u32 {%r1, %r2, %r3, %r4}, [s+16];
    st.global.v4.u32 [%rd2+16], {%r1, %r2, %r3, %r4};
    ret;
}
";

#[test]
fn cache_hint_forms_copy() {
    let input: Vec<u8> = (1..=16).collect();
    let (report, out) = run_in_out(HINTS, "hints", &shape(1, 1), &input, 32, &[]);
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    assert_eq!(&out[..16], &input[..]);
    assert_eq!(&out[16..21], &input[..5]);
    assert_eq!(&out[21..], &[0u8; 11]);
}

/// Every thread copies 4 bytes into shared word 0 — from `in[0]` (`SAME`) or from `in[t]`
/// (`DIFFERENT`) — then waits, and thread 0 stores the word to `out`.
fn overlapping(source: &str) -> String {
    format!(
        "\
.version 8.0
.target sm_80
.address_size 64

.visible .entry overlap(.param .u64 pin, .param .u64 pout)
{{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<6>;
    .shared .align 16 .b8 s[16];
    ld.param.u64 %rd1, [pin];
    cvta.to.global.u64 %rd1, %rd1;
    ld.param.u64 %rd2, [pout];
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    {source}
    cp.async.ca.shared.global [s], [%rd4], 4;
    cp.async.wait_all;
    bar.sync 0;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra END;
    ld.shared.u32 %r2, [s];
    st.global.u32 [%rd2], %r2;
END:
    ret;
}}
"
    )
}

#[test]
fn pending_copies_of_one_source_byte_to_one_destination_are_not_a_race() {
    // Cooperative groups' memcpy_async has its spare lanes repeat the last element: the same
    // value lands whichever copy is last.
    let same = overlapping("mov.u64 %rd4, %rd1;");
    let input: Vec<u8> = (0..128).collect();
    let (report, out) = run_in_out(&same, "overlap", &shape(1, 32), &input, 4, &[]);
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    assert_eq!(words(&out), [u32::from_le_bytes([0, 1, 2, 3])]);
    // From different source words: which lands last is undefined.
    let different = overlapping("mul.wide.u32 %rd3, %r1, 4;\n    add.s64 %rd4, %rd1, %rd3;");
    let (report, _) = run_in_out(&different, "overlap", &shape(1, 32), &input, 4, &[]);
    let race = report
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::SharedRace)
        .unwrap_or_else(|| panic!("no race in {:#?}", report.findings));
    assert!(race.detail.contains("which write lands last"), "{race}");
}
