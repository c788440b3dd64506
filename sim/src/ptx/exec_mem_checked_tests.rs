//! The sanitizer's warp-level load and store paths (`exec_mem_checked.rs`) against the general path: kernels
//! whose loads are clean (own writes, neighbours after a barrier, broadcasts, vectors with a
//! discarded element, generic addresses, half the lanes), racy (a neighbour's write without a
//! barrier, plain and strong; stores over a neighbour's read and lanes storing different values to
//! one word), uninitialized, and read across blocks, each run with the fast paths
//! on and off. The findings, the counters and the outputs must be the same, and the findings the
//! ones each kernel was written to have.

use std::sync::atomic::Ordering::SeqCst;

use super::exec_hot::{GENERAL_LOCK, GENERAL_ONLY};
use super::{run, PtxArg, PtxKernel, PtxLaunch};
use crate::{BufferArg, FindingKind, SimOptions, SimReport};

const PTX: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.shared .align 8 .b8 tile[1024];

.visible .entry clean(.param .u64 in, .param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<40>;
    .reg .b64 %rd<40>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 8;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.u64 %rd5, [%rd4];
    mov.u32 %r2, tile;
    shl.b32 %r3, %r1, 3;
    add.s32 %r4, %r2, %r3;
    st.shared.u64 [%r4], %rd5;
    ld.shared.u64 %rd6, [%r4];
    bar.sync 0;
    add.s32 %r5, %r1, 1;
    and.b32 %r5, %r5, 63;
    shl.b32 %r6, %r5, 3;
    add.s32 %r7, %r2, %r6;
    ld.shared.v2.u32 {%r8, %r9}, [%r7];
    shr.u32 %r10, %r1, 3;
    shl.b32 %r10, %r10, 2;
    add.s32 %r11, %r2, %r10;
    ld.shared.s32 %r12, [%r11];
    ld.shared.v2.u32 {_, %r13}, [%r7];
    mov.u64 %rd7, tile;
    cvta.shared.u64 %rd8, %rd7;
    cvt.u64.u32 %rd9, %r6;
    add.s64 %rd10, %rd8, %rd9;
    ld.u32 %r14, [%rd10];
    and.b32 %r15, %r1, 1;
    setp.eq.u32 %p1, %r15, 1;
    mov.u32 %r16, 7;
    @%p1 ld.shared.u32 %r16, [%r11+4];
    ld.global.v2.u32 {%r17, %r18}, [%rd4];
    mul.wide.u32 %rd11, %r1, 48;
    add.s64 %rd12, %rd2, %rd11;
    st.global.u64 [%rd12], %rd6;
    st.global.v4.u32 [%rd12+16], {%r8, %r9, %r12, %r13};
    st.global.v4.u32 [%rd12+32], {%r14, %r16, %r17, %r18};
    ret;
}

.visible .entry racy(.param .u64 in, .param .u64 out)
{
    .reg .b32 %r<40>;
    .reg .b64 %rd<40>;
    ld.param.u64 %rd2, [out];
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, tile;
    shl.b32 %r3, %r1, 2;
    add.s32 %r4, %r2, %r3;
    st.shared.u32 [%r4], %r1;
    st.relaxed.cta.shared.u32 [%r4+256], %r1;
    xor.b32 %r5, %r1, 1;
    shl.b32 %r6, %r5, 2;
    add.s32 %r7, %r2, %r6;
    ld.shared.u32 %r8, [%r7];
    ld.relaxed.cta.shared.u32 %r9, [%r7+256];
    ld.relaxed.cta.shared.u32 %r10, [%r7];
    ld.shared.u32 %r11, [%r4+512];
    ld.shared.u32 %r12, [%r4];
    st.shared.u32 [%r4], %r9;
    st.shared.u32 [%r2+768], %r1;
    mul.wide.u32 %rd3, %r1, 32;
    add.s64 %rd4, %rd2, %rd3;
    st.global.v4.u32 [%rd4], {%r8, %r9, %r10, %r11};
    st.global.u32 [%rd4+16], %r12;
    ret;
}

.visible .entry blocks(.param .u64 in, .param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<40>;
    .reg .b64 %rd<40>;
    ld.param.u64 %rd2, [out];
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 st.global.u32 [%rd4], %r1;
    @%p1 ret;
    ld.global.u32 %r3, [%rd4];
    ld.global.u32 %r4, [%rd4+1024];
    add.s32 %r5, %r3, %r4;
    st.global.u32 [%rd4+2048], %r5;
    ret;
}
"#;

fn launch(entry: &str, grid: u32) -> (SimReport, Vec<u8>) {
    let kernel = PtxKernel::load(PTX, entry).expect("decodes");
    let input: Vec<u8> = (0..64u64 * 8)
        .map(|i| (i.wrapping_mul(0x9e37_79b9) >> 7) as u8)
        .collect();
    let mut out = vec![0u8; 64 * 48];
    let mut buffers = [BufferArg::ReadOnly(&input), BufferArg::ReadWrite(&mut out)];
    let shape = PtxLaunch {
        grid: [grid, 1, 1],
        block: [64, 1, 1],
        dynamic_shared: 0,
    };
    let options = SimOptions {
        threads: 1,
        ..SimOptions::default()
    };
    let report = run(
        &kernel,
        &shape,
        &[PtxArg::Buffer, PtxArg::Buffer],
        &mut buffers,
        &options,
    )
    .expect("launches");
    (report, out)
}

fn kinds(report: &SimReport) -> Vec<FindingKind> {
    report.findings.iter().map(|f| f.kind).collect()
}

#[test]
fn the_checked_paths_report_what_the_general_path_reports() {
    let _switch = GENERAL_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    for (entry, grid) in [("clean", 1), ("racy", 1), ("blocks", 2)] {
        let (fast, fast_out) = launch(entry, grid);
        GENERAL_ONLY.store(true, SeqCst);
        let (general, general_out) = launch(entry, grid);
        GENERAL_ONLY.store(false, SeqCst);
        assert_eq!(
            format!("{:?}", fast.findings),
            format!("{:?}", general.findings),
            "{entry}: findings"
        );
        assert_eq!(
            format!("{:?}", fast.counters),
            format!("{:?}", general.counters),
            "{entry}: counters"
        );
        assert_eq!(fast_out, general_out, "{entry}: outputs");
        let found = kinds(&fast);
        match entry {
            "clean" => assert!(found.is_empty(), "clean: {:?}", fast.findings),
            // The plain and the strong read of a neighbour's plain write race, and so do the store
            // over a word a neighbour read and the lanes storing different values to one word;
            // the strong read of a strong write does not; the read of bytes nobody wrote is
            // initcheck's.
            "racy" => {
                let races = found
                    .iter()
                    .filter(|&&k| k == FindingKind::SharedRace)
                    .count();
                assert_eq!(races, 4, "racy: {:?}", fast.findings);
                assert!(
                    found.contains(&FindingKind::UninitializedShared),
                    "racy: {:?}",
                    fast.findings
                );
            }
            _ => assert!(
                found.contains(&FindingKind::GlobalRace),
                "blocks: {:?}",
                fast.findings
            ),
        }
    }
}
