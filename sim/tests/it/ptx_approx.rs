//! The `.approx` `f32` functions on the PTX simulator against values computed independently (Python:
//! the function in double precision rounded to the nearest `f32`, `struct.pack('<f', …)`), with the
//! ISA's special cases (infinities, zeros of both signs, negative inputs) and `.ftz` on a subnormal
//! result; CUDA's canonical NaN `0x7fffffff`.

use warpforge_sim::ptx::{self, PtxArg, PtxKernel, PtxLaunch};
use warpforge_sim::BufferArg;
use warpforge_sim::SimOptions;

const INPUTS: [f32; 9] = [
    0.5,
    1.0,
    3.0,
    -1.0,
    0.0,
    -0.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
    -130.0,
];

/// One thread per input: `out[tid] = OP(in[tid])`.
fn kernel(op: &str) -> PtxKernel {
    let text = format!(
        ".version 7.0
.target sm_80
.address_size 64
.visible .entry f(.param .u64 in, .param .u64 out)
{{
    .reg .b32 %r<2>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    ld.global.f32 %f1, [%rd4];
    {op} %f2, %f1;
    st.global.f32 [%rd5], %f2;
    ret;
}}
"
    );
    PtxKernel::load(&text, "f").unwrap_or_else(|e| panic!("{op}: {e}"))
}

fn run(op: &str) -> Vec<u32> {
    let input: Vec<u8> = INPUTS.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut out = vec![0u8; input.len()];
    let launch = PtxLaunch {
        grid: [1, 1, 1],
        block: [INPUTS.len() as u32, 1, 1],
        dynamic_shared: 0,
    };
    let report = ptx::run(
        &kernel(op),
        &launch,
        &[PtxArg::Buffer, PtxArg::Buffer],
        &mut [BufferArg::ReadOnly(&input), BufferArg::ReadWrite(&mut out)],
        &SimOptions::default(),
    )
    .expect("the launch starts");
    assert!(report.is_clean(), "{op}");
    out.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

#[test]
fn approx_functions_give_the_nearest_f32_with_the_isas_special_cases() {
    const NAN: u32 = 0x7fff_ffff;
    let cases: [(&str, [u32; 9]); 6] = [
        (
            "ex2.approx.f32",
            [
                0x3fb504f3, 0x40000000, 0x41000000, 0x3f000000, 0x3f800000, 0x3f800000, 0x7f800000,
                0, 0x80000,
            ],
        ),
        (
            "lg2.approx.f32",
            [
                0xbf800000, 0, 0x3fcae00d, NAN, 0xff800000, 0xff800000, 0x7f800000, NAN, NAN,
            ],
        ),
        (
            "sin.approx.f32",
            [
                0x3ef57744, 0x3f576aa4, 0x3e1081c3, 0xbf576aa4, 0, 0x80000000, NAN, NAN, 0x3f6e1b6c,
            ],
        ),
        (
            "cos.approx.f32",
            [
                0x3f60a940, 0x3f0a5140, 0xbf7d7026, 0x3f0a5140, 0x3f800000, 0x3f800000, NAN, NAN,
                0xbebc0d9c,
            ],
        ),
        (
            "rsqrt.approx.f32",
            [
                0x3fb504f3, 0x3f800000, 0x3f13cd3a, NAN, 0x7f800000, 0xff800000, 0, NAN, NAN,
            ],
        ),
        (
            "tanh.approx.f32",
            [
                0x3eec9a9f, 0x3f42f7d6, 0x3f7ebbe9, 0xbf42f7d6, 0, 0x80000000, 0x3f800000,
                0xbf800000, 0xbf800000,
            ],
        ),
    ];
    for (op, want) in cases {
        let got = run(op);
        assert_eq!(
            got.iter().map(|b| format!("{b:#x}")).collect::<Vec<_>>(),
            want.iter().map(|b| format!("{b:#x}")).collect::<Vec<_>>(),
            "{op} of {INPUTS:?}"
        );
    }
    // `.ftz`: 2^-130 is subnormal and flushes to +0.
    assert_eq!(run("ex2.approx.ftz.f32")[8], 0);
    // `sqrt.approx`, `rcp.approx`: the IEEE result (within the ISA's 1 ulp).
    assert_eq!(
        run("sqrt.approx.f32")[..3],
        [0x3f3504f3, 0x3f800000, 0x3fddb3d7]
    );
    assert_eq!(
        run("rcp.approx.ftz.f32")[..3],
        [0x40000000, 0x3f800000, 0x3eaaaaab]
    );
}

#[test]
fn approx_forms_that_are_not_supported_are_refused_by_name() {
    for (text, says) in [
        ("ex2.f32", "needs `.approx`"),
        ("lg2.approx.f16", "on `.f32` only, not `.f16`"),
        ("rsqrt.approx.f64", "on `.f32` only, not `.f64`"),
    ] {
        let source = format!(
            ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry f()\n{{\n    \
             .reg .f32 %f<3>;\n    .reg .b16 %h<3>;\n    .reg .f64 %fd<3>;\n    {text} %f2, %f1;\n    ret;\n}}\n"
        );
        let err = PtxKernel::load(&source, "f")
            .expect_err("refused")
            .to_string();
        assert!(err.contains(says), "{text}: {err}");
        assert!(err.contains("line 9"), "{text}: {err}");
    }
}
