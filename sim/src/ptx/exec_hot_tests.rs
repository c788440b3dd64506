//! The fast forms (`exec_hot.rs`, `exec_mem_fast.rs`) against the general path: one kernel applies
//! every fast form to random operands (NaNs, infinities, subnormals, shift amounts past the width,
//! negative numbers), on all lanes and on half of them, and is run with the fast forms on and off.

use std::sync::atomic::Ordering::SeqCst;

use super::exec_hot::{GENERAL_LOCK, GENERAL_ONLY};
use super::{run, PtxArg, PtxKernel, PtxLaunch};
use crate::{BufferArg, SimOptions};

/// Results per thread.
const OUT: usize = 40;

const PTX: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.shared .align 8 .b8 tile[1024];
.visible .entry hot(.param .u64 in, .param .u64 out)
{
    .reg .pred %p<8>;
    .reg .b32 %r<80>;
    .reg .b64 %rd<40>;
    .reg .f32 %f<20>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 16;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd4];
    mul.wide.u32 %rd5, %r1, 320;
    add.s64 %rd6, %rd2, %rd5;
    and.b32 %r6, %r1, 1;
    setp.eq.s32 %p1, %r6, 0;
    add.s32 %r10, %r2, %r3;
    sub.s32 %r11, %r2, %r3;
    mul.lo.s32 %r12, %r2, %r3;
    and.b32 %r13, %r2, %r3;
    or.b32 %r14, %r2, %r3;
    xor.b32 %r15, %r2, %r3;
    shl.b32 %r16, %r2, %r4;
    shr.u32 %r17, %r2, %r4;
    shr.s32 %r18, %r2, %r4;
    mad.lo.s32 %r19, %r2, %r3, %r4;
    selp.b32 %r20, %r2, %r3, %p1;
    mov.u32 %r21, %r5;
    @%p1 add.s32 %r21, %r2, %r5;
    @!%p1 mul.lo.s32 %r21, %r21, %r3;
    setp.lt.s32 %p2, %r2, %r3;
    selp.u32 %r22, 1, 0, %p2;
    setp.ge.u32 %p3, %r2, %r3;
    selp.u32 %r23, 1, 0, %p3;
    setp.ne.s32 %p4, %r4, %r5;
    setp.gt.and.s32 %p5|%p6, %r2, %r5, %p4;
    selp.u32 %r24, 1, 0, %p5;
    selp.u32 %r25, 1, 0, %p6;
    setp.le.xor.u32 %p5, %r3, %r4, %p1;
    selp.u32 %r26, 1, 0, %p5;
    add.f32 %r27, %r2, %r3;
    sub.f32 %r28, %r3, %r4;
    mul.f32 %r29, %r4, %r5;
    fma.rn.f32 %r30, %r2, %r3, %r5;
    @%p1 fma.rn.f32 %r31, %r3, %r4, %r2;
    @!%p1 mov.b32 %r31, 7;
    mul.wide.u32 %rd10, %r2, %r3;
    mul.wide.s32 %rd11, %r2, %r3;
    mad.wide.u32 %rd12, %r4, %r5, %rd10;
    mad.wide.s32 %rd13, %r4, %r5, %rd11;
    add.s64 %rd14, %rd10, %rd11;
    sub.s64 %rd15, %rd12, %rd13;
    mul.lo.s64 %rd16, %rd12, %rd13;
    shl.b64 %rd17, %rd13, %r4;
    shr.u64 %rd18, %rd13, %r5;
    xor.b64 %rd19, %rd17, %rd12;
    and.b32 %r32, %r2, 65535;
    add.s32 %r33, %r32, %r3;
    shl.b32 %r34, %r1, 2;
    mov.u32 %r35, tile;
    add.s32 %r36, %r35, %r34;
    st.shared.u32 [%r36], %r2;
    st.shared.u8 [%r36+1], %r3;
    bar.sync 0;
    xor.b32 %r37, %r34, 4;
    add.s32 %r38, %r35, %r37;
    ld.shared.u32 %r39, [%r38];
    ld.shared.s8 %r40, [%r38+1];
    ld.shared.u16 %r41, [%r38+2];
    st.global.v4.u32 [%rd6], {%r10, %r11, %r12, %r13};
    st.global.v4.u32 [%rd6+16], {%r14, %r15, %r16, %r17};
    st.global.v4.u32 [%rd6+32], {%r18, %r19, %r20, %r21};
    st.global.v4.u32 [%rd6+48], {%r22, %r23, %r24, %r25};
    st.global.v4.u32 [%rd6+64], {%r26, %r27, %r28, %r29};
    st.global.v2.u32 [%rd6+80], {%r30, %r31};
    st.global.u64 [%rd6+88], %rd10;
    st.global.u64 [%rd6+96], %rd11;
    st.global.u64 [%rd6+104], %rd12;
    st.global.u64 [%rd6+112], %rd13;
    st.global.u64 [%rd6+120], %rd14;
    st.global.u64 [%rd6+128], %rd15;
    st.global.u64 [%rd6+136], %rd16;
    st.global.u64 [%rd6+144], %rd17;
    st.global.u64 [%rd6+152], %rd18;
    st.global.u64 [%rd6+160], %rd19;
    st.global.v4.u32 [%rd6+176], {%r33, %r39, %r40, %r41};
    @%p1 st.global.u8 [%rd6+192], %r2;
    ret;
}
"#;

/// Operands: random words mixed with the values that matter (zeros, ±inf, NaNs, subnormals,
/// extremes, small shift amounts and ones past the width).
fn operands(seed: u64) -> Vec<u8> {
    const EDGE: [u32; 14] = [
        0,
        1,
        31,
        32,
        33,
        63,
        64,
        0x8000_0000,
        0x7fff_ffff,
        0xffff_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0001,
        0x0000_0001,
    ];
    let mut x = seed;
    (0..256 * 4)
        .flat_map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let w = if i % 3 == 0 {
                EDGE[(x % 14) as usize]
            } else {
                x as u32
            };
            w.to_le_bytes()
        })
        .collect()
}

fn launch(kernel: &PtxKernel, input: &[u8], sanitize: bool) -> Vec<u8> {
    let mut out = vec![0u8; 256 * OUT * 8];
    let mut buffers = [BufferArg::ReadOnly(input), BufferArg::ReadWrite(&mut out)];
    let shape = PtxLaunch {
        grid: [1, 1, 1],
        block: [256, 1, 1],
        dynamic_shared: 0,
    };
    let options = SimOptions {
        sanitize,
        threads: 1,
        ..SimOptions::default()
    };
    let report = run(
        kernel,
        &shape,
        &[PtxArg::Buffer, PtxArg::Buffer],
        &mut buffers,
        &options,
    )
    .expect("launches");
    assert!(report.is_clean(), "{:?}", report.findings);
    out
}

#[test]
fn the_fast_forms_give_the_general_paths_results() {
    let kernel = PtxKernel::load(PTX, "hot").expect("decodes");
    let _switch = GENERAL_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    for seed in [1u64, 0x9e37_79b9_7f4a_7c15, 12345] {
        let input = operands(seed);
        for sanitize in [false, true] {
            let fast = launch(&kernel, &input, sanitize);
            GENERAL_ONLY.store(true, SeqCst);
            let general = launch(&kernel, &input, sanitize);
            GENERAL_ONLY.store(false, SeqCst);
            assert!(fast.iter().any(|&b| b != 0), "the kernel wrote its results");
            for (t, (a, b)) in fast
                .chunks(OUT * 8)
                .zip(general.chunks(OUT * 8))
                .enumerate()
            {
                assert_eq!(a, b, "thread {t}, seed {seed:#x}, sanitizer {sanitize}");
            }
        }
    }
}
