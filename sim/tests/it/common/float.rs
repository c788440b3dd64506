//! A kernel harness for the floating-point tests: one thread per operand set.

// Each test binary uses a part of these helpers.
#![allow(dead_code)]

use warpforge_sim::ptx::{self, PtxArg, PtxKernel, PtxLaunch};
use warpforge_sim::{BufferArg, SimOptions};

/// The PTX of a kernel in which each thread loads three 64-bit words from `in` (24 bytes per
/// thread) as `%fd1`..`%fd3` (`ld.global.f64`), also as bits in `%rd1`..`%rd3` (`mov.b64`) and their
/// low halves as `%f1`..`%f3` (`mov.b32`), runs `body`, which leaves its result in `%rd9`, and stores
/// `%rd9` to `out`. `body` starts on line 30.
pub fn text(body: &str) -> String {
    format!(
        ".version 7.0
.target sm_80
.address_size 64
.visible .entry f(.param .u64 in, .param .u64 out)
{{
    .reg .pred %p<4>;
    .reg .b16 %h<4>;
    .reg .b32 %r<8>;
    .reg .f32 %f<8>;
    .reg .f64 %fd<8>;
    .reg .b64 %rd<16>;
    ld.param.u64 %rd10, [in];
    ld.param.u64 %rd11, [out];
    mov.u32 %r7, %tid.x;
    mul.wide.u32 %rd12, %r7, 24;
    add.s64 %rd13, %rd10, %rd12;
    ld.global.f64 %fd1, [%rd13];
    ld.global.f64 %fd2, [%rd13+8];
    ld.global.f64 %fd3, [%rd13+16];
    mov.b64 %rd1, %fd1;
    mov.b64 %rd2, %fd2;
    mov.b64 %rd3, %fd3;
    cvt.u32.u64 %r1, %rd1;
    cvt.u32.u64 %r2, %rd2;
    cvt.u32.u64 %r3, %rd3;
    mov.b32 %f1, %r1;
    mov.b32 %f2, %r2;
    mov.b32 %f3, %r3;
    mov.u64 %rd9, 0;
{body}
    mul.wide.u32 %rd12, %r7, 8;
    add.s64 %rd14, %rd11, %rd12;
    st.global.u64 [%rd14], %rd9;
    ret;
}}
"
    )
}

/// `body` run on each operand set; the `%rd9` of each.
pub fn run(body: &str, inputs: &[[u64; 3]]) -> Vec<u64> {
    let kernel = PtxKernel::load(&text(body), "f").unwrap_or_else(|e| panic!("{body}: {e}"));
    let bytes: Vec<u8> = inputs
        .iter()
        .flat_map(|w| w.iter().flat_map(|x| x.to_le_bytes()))
        .collect();
    let mut out = vec![0u8; inputs.len() * 8];
    let launch = PtxLaunch {
        grid: [1, 1, 1],
        block: [inputs.len() as u32, 1, 1],
        dynamic_shared: 0,
    };
    let report = ptx::run(
        &kernel,
        &launch,
        &[PtxArg::Buffer, PtxArg::Buffer],
        &mut [BufferArg::ReadOnly(&bytes), BufferArg::ReadWrite(&mut out)],
        &SimOptions::default(),
    )
    .expect("the launch starts");
    assert!(report.is_clean(), "{body}");
    out.chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

/// The error loading `body` (it must be refused).
pub fn refusal(body: &str) -> String {
    PtxKernel::load(&text(body), "f")
        .expect_err(body)
        .to_string()
}

/// Hex strings, for readable comparisons.
pub fn hex(v: &[u64]) -> Vec<String> {
    v.iter().map(|b| format!("{b:#x}")).collect()
}
