//! Blocks ordered by a fence and an atomic (`sync_blocks.rs`): the last-block idiom of CUDA's
//! `threadFenceReduction` — each block writes its partial result, `__threadfence()`, then takes a
//! ticket with an atomic; the block with the last ticket reads every partial result. Clean with the
//! fence; without it the reads race with the other blocks' writes.

use warpforge_sim::ptx::{run, PtxArg, PtxKernel, PtxLaunch};
use warpforge_sim::{BufferArg, FindingKind, SimOptions};

/// `partial[b] = b + 1` by thread 0 of block `b`, then (FENCE) a ticket; the last block sums the
/// partials into `total`.
const LAST_BLOCK: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry last_block(.param .u64 partial, .param .u64 ticket, .param .u64 total)
.reqntid 32, 1, 1
{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [partial];
    ld.param.u64 %rd2, [ticket];
    ld.param.u64 %rd3, [total];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    cvta.to.global.u64 %rd3, %rd3;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %nctaid.x;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra DONE;
    add.s32 %r4, %r2, 1;
    mul.wide.u32 %rd4, %r2, 4;
    add.s64 %rd5, %rd1, %rd4;
    st.global.u32 [%rd5], %r4;
    FENCE
    atom.global.add.u32 %r5, [%rd2], 1;
    add.s32 %r6, %r3, -1;
    setp.ne.s32 %p2, %r5, %r6;
    @%p2 bra DONE;
    mov.u32 %r7, 0;
    mov.u32 %r8, 0;
LOOP:
    mul.wide.u32 %rd6, %r8, 4;
    add.s64 %rd7, %rd1, %rd6;
    ld.global.u32 %r9, [%rd7];
    add.s32 %r7, %r7, %r9;
    add.s32 %r8, %r8, 1;
    setp.lt.u32 %p3, %r8, %r3;
    @%p3 bra LOOP;
    st.global.u32 [%rd3], %r7;
DONE:
    ret;
}
"#;

fn launch(fence: &str, threads: usize) -> (Vec<u8>, warpforge_sim::SimReport) {
    let text = LAST_BLOCK.replace("FENCE", fence);
    let kernel = PtxKernel::load(&text, "last_block").expect("decodes");
    let blocks = 8u32;
    let mut partial = vec![0u8; 4 * blocks as usize];
    let mut ticket = vec![0u8; 4];
    let mut total = vec![0u8; 4];
    let mut buffers = [
        BufferArg::ReadWrite(&mut partial),
        BufferArg::ReadWrite(&mut ticket),
        BufferArg::ReadWrite(&mut total),
    ];
    let shape = PtxLaunch {
        grid: [blocks, 1, 1],
        block: [32, 1, 1],
        dynamic_shared: 0,
    };
    let options = SimOptions {
        threads,
        ..SimOptions::default()
    };
    let report = run(
        &kernel,
        &shape,
        &[PtxArg::Buffer, PtxArg::Buffer, PtxArg::Buffer],
        &mut buffers,
        &options,
    )
    .expect("launches");
    (total, report)
}

#[test]
fn a_fence_before_the_ticket_orders_the_partials_before_the_last_blocks_reads() {
    for fence in ["membar.gl;", "fence.sc.gpu;", "fence.acq_rel.gpu;"] {
        for threads in [1, 2] {
            let (total, report) = launch(fence, threads);
            assert!(report.is_clean(), "{fence}: {:?}", report.findings);
            assert_eq!(total, 36u32.to_le_bytes(), "{fence}: 1 + 2 + … + 8");
        }
    }
}

#[test]
fn without_a_device_fence_the_last_blocks_reads_race() {
    for fence in ["", "membar.cta;", "fence.acq_rel.cta;"] {
        let (_, report) = launch(fence, 1);
        assert!(
            report
                .findings
                .iter()
                .any(|f| f.kind == FindingKind::GlobalRace),
            "`{fence}`: {:?}",
            report.findings
        );
    }
}

#[test]
fn the_last_block_resets_the_counter_after_its_own_atomic() {
    // `retirementCount = 0;` by the last block: every other block's atomic on the counter came
    // before its own, which came before the store.
    let reset = LAST_BLOCK.replace("FENCE", "membar.gl;").replace(
        "    st.global.u32 [%rd3], %r7;\n",
        "    st.global.u32 [%rd3], %r7;\n    mov.u32 %r10, 0;\n    st.global.u32 [%rd2], %r10;\n",
    );
    assert_ne!(reset, LAST_BLOCK.replace("FENCE", "membar.gl;"));
    let kernel = PtxKernel::load(&reset, "last_block").expect("decodes");
    let mut partial = vec![0u8; 32];
    let mut ticket = vec![0u8; 4];
    let mut total = vec![0u8; 4];
    let mut buffers = [
        BufferArg::ReadWrite(&mut partial),
        BufferArg::ReadWrite(&mut ticket),
        BufferArg::ReadWrite(&mut total),
    ];
    let shape = PtxLaunch {
        grid: [8, 1, 1],
        block: [32, 1, 1],
        dynamic_shared: 0,
    };
    let args = [PtxArg::Buffer, PtxArg::Buffer, PtxArg::Buffer];
    let report = run(&kernel, &shape, &args, &mut buffers, &SimOptions::default()).expect("runs");
    assert!(report.is_clean(), "{:?}", report.findings);
    assert_eq!(ticket, [0; 4]);
    assert_eq!(total, 36u32.to_le_bytes());
}
