//! The fast forms (`exec_hot.rs`, `exec_mem_fast.rs`) against the general path: one kernel applies
//! every fast form to random operands (NaNs, infinities, subnormals, shift amounts past the width,
//! negative numbers), on all lanes and on half of them, and is run with the fast forms on and off.

use std::sync::atomic::Ordering::SeqCst;

use super::exec_hot::{GENERAL_LOCK, GENERAL_ONLY};
use super::{run, PtxArg, PtxKernel, PtxLaunch};
use crate::{BufferArg, SimOptions};

/// Results per thread.
const OUT: usize = 48;

const PTX: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.shared .align 8 .b8 tile[1024];
.visible .entry hot(.param .u64 in, .param .u64 out)
{
    .reg .pred %p<40>;
    .reg .b16 %rs<4>;
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
    mul.wide.u32 %rd5, %r1, 384;
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
    min.s32 %r42, %r2, %r3;
    max.u32 %r43, %r2, %r3;
    min.u64 %rd20, %rd13, %rd12;
    max.s64 %rd21, %rd13, %rd12;
    neg.s32 %r44, %r2;
    not.b32 %r45, %r3;
    not.pred %p7, %p2;
    selp.u32 %r46, 1, 0, %p7;
    cvt.s64.s32 %rd22, %r2;
    cvt.u64.u32 %rd23, %r3;
    cvt.u32.u64 %r47, %rd13;
    cvt.u16.u32 %rs1, %r2;
    cvt.s32.s16 %r48, %rs1;
    mov.u64 %rd25, tile;
    cvta.shared.u64 %rd26, %rd25;
    cvta.to.shared.u64 %rd27, %rd26;
    setp.eq.f32 %p10, %r2, %r3;
    selp.u32 %r50, 1, 0, %p10;
    setp.ne.f32 %p11, %r2, %r4;
    selp.u32 %r51, 1, 0, %p11;
    setp.lt.f32 %p12, %r2, %r5;
    selp.u32 %r52, 1, 0, %p12;
    setp.le.f32 %p13, %r2, %r3;
    selp.u32 %r53, 1, 0, %p13;
    setp.gt.f32 %p14, %r2, %r4;
    selp.u32 %r54, 1, 0, %p14;
    setp.ge.f32 %p15, %r2, %r5;
    selp.u32 %r55, 1, 0, %p15;
    setp.equ.f32 %p16, %r2, %r3;
    selp.u32 %r56, 1, 0, %p16;
    setp.neu.f32 %p17, %r2, %r4;
    selp.u32 %r57, 1, 0, %p17;
    setp.ltu.f32 %p18, %r2, %r5;
    selp.u32 %r58, 1, 0, %p18;
    setp.leu.f32 %p19, %r2, %r3;
    selp.u32 %r59, 1, 0, %p19;
    setp.gtu.f32 %p20, %r2, %r4;
    selp.u32 %r60, 1, 0, %p20;
    setp.geu.f32 %p21, %r2, %r5;
    selp.u32 %r61, 1, 0, %p21;
    setp.num.f32 %p22, %r2, %r3;
    selp.u32 %r62, 1, 0, %p22;
    setp.nan.f32 %p23, %r2, %r4;
    selp.u32 %r63, 1, 0, %p23;
    setp.ltu.and.f32 %p24|%p25, %r2, %r4, %p1;
    selp.u32 %r64, 1, 0, %p24;
    selp.u32 %r65, 1, 0, %p25;
    setp.num.or.f32 %p26, %r3, %r5, %p2;
    selp.u32 %r66, 1, 0, %p26;
    max.f32 %r67, %r2, %r3;
    min.f32 %r68, %r3, %r4;
    @%p1 max.f32 %r68, %r4, %r5;
    setp.gt.f32 %p27, %r1, %r3;
    selp.u32 %r69, 1, 0, %p27;
    st.global.u32 [%rd6+352], %r69;
    cvt.u16.u32 %rs2, %r3;
    cvt.f32.f16 %r70, %rs2;
    cvt.f32.bf16 %r71, %rs2;
    mov.u32 %r72, 5;
    @%p1 cvt.f32.f16 %r72, %rs1;
    st.global.u32 [%rd6+356], %r70;
    st.global.u32 [%rd6+360], %r71;
    st.global.u32 [%rd6+364], %r72;
    st.global.u32 [%rd6+200], %r42;
    st.global.u32 [%rd6+204], %r43;
    st.global.u32 [%rd6+208], %r44;
    st.global.u32 [%rd6+212], %r45;
    st.global.u32 [%rd6+216], %r46;
    st.global.u32 [%rd6+220], %r47;
    st.global.u32 [%rd6+224], %r48;
    st.global.u32 [%rd6+228], %r50;
    st.global.u32 [%rd6+232], %r51;
    st.global.u32 [%rd6+236], %r52;
    st.global.u32 [%rd6+240], %r53;
    st.global.u32 [%rd6+244], %r54;
    st.global.u32 [%rd6+248], %r55;
    st.global.u32 [%rd6+252], %r56;
    st.global.u32 [%rd6+256], %r57;
    st.global.u32 [%rd6+260], %r58;
    st.global.u32 [%rd6+264], %r59;
    st.global.u32 [%rd6+268], %r60;
    st.global.u32 [%rd6+272], %r61;
    st.global.u32 [%rd6+276], %r62;
    st.global.u32 [%rd6+280], %r63;
    st.global.u32 [%rd6+284], %r64;
    st.global.u32 [%rd6+288], %r65;
    st.global.u32 [%rd6+292], %r66;
    st.global.u32 [%rd6+296], %r67;
    st.global.u32 [%rd6+300], %r68;
    st.global.u64 [%rd6+304], %rd20;
    st.global.u64 [%rd6+312], %rd21;
    st.global.u64 [%rd6+320], %rd22;
    st.global.u64 [%rd6+328], %rd23;
    st.global.u64 [%rd6+336], %rd26;
    st.global.u64 [%rd6+344], %rd27;
    ret;
}
"#;

/// Operands: random words mixed with the values that matter (zeros, ±inf, NaNs, subnormals,
/// extremes, small shift amounts and ones past the width, signaling NaNs of `f16` and `bf16`).
fn operands(seed: u64) -> Vec<u8> {
    const EDGE: [u32; 16] = [
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
        0x0000_7c01,
        0x0000_7f81,
    ];
    let mut x = seed;
    (0..256 * 4)
        .flat_map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let w = if i % 3 == 0 {
                EDGE[(x % 16) as usize]
            } else {
                x as u32
            };
            w.to_le_bytes()
        })
        .collect()
}

fn launch(kernel: &PtxKernel, input: &[u8], sanitize: bool) -> (Vec<u8>, crate::Counters) {
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
    (out, report.counters)
}

#[test]
fn the_fast_forms_give_the_general_paths_results() {
    let kernel = PtxKernel::load(PTX, "hot").expect("decodes");
    let _switch = GENERAL_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    for seed in [1u64, 0x9e37_79b9_7f4a_7c15, 12345] {
        let input = operands(seed);
        for sanitize in [false, true] {
            let (fast, fast_counters) = launch(&kernel, &input, sanitize);
            GENERAL_ONLY.store(true, SeqCst);
            let (general, general_counters) = launch(&kernel, &input, sanitize);
            GENERAL_ONLY.store(false, SeqCst);
            assert_eq!(
                fast_counters, general_counters,
                "seed {seed:#x}, sanitizer {sanitize}"
            );
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
