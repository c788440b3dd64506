//! Regressions from the `ptx_sim` fuzz target (fuzz/): hostile PTX is refused with its line and the
//! limit it passes, or runs to a report; never a panic, a hang or an unbounded allocation.

use warpforge_sim::ptx::{run, PtxArg, PtxError, PtxKernel, PtxLaunch};
use warpforge_sim::{BufferArg, SimOptions};

/// A module with one entry `k(.param .u64 p)` whose body is `body`.
fn entry(body: &str) -> String {
    format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n    .param .u64 p\n)\n{{\n{body}\nret;\n}}\n"
    )
}

/// Loads `body` as entry `k` and runs it on one block of 32 threads with a 256-byte buffer.
fn load_and_run(body: &str) -> Result<(), PtxError> {
    let kernel = PtxKernel::load(&entry(body), "k")?;
    let mut buffer = vec![0u8; 256];
    let launch = PtxLaunch {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        dynamic_shared: 0,
    };
    let options = SimOptions {
        step_limit: 10_000,
        ..SimOptions::default()
    };
    let buffers = &mut [BufferArg::ReadWrite(&mut buffer)];
    run(&kernel, &launch, &[PtxArg::Buffer], buffers, &options).expect("arguments match");
    Ok(())
}

#[test]
fn a_huge_register_range_is_refused_with_its_line() {
    // Was: 100 million register names built (and a register file of 25 GiB per warp).
    let e = load_and_run(".reg .b32 %r<5>;\n.reg .b32 %big<100000000>;").expect_err("too many");
    let PtxError::Unsupported {
        line,
        text,
        message,
    } = &e
    else {
        panic!("{e}")
    };
    assert_eq!(*line, 10, "{e}");
    assert_eq!(text, ".reg .b32 %big<100000000>", "{e}");
    assert!(message.contains("allows 65536 per entry"), "{e}");
}

#[test]
fn many_registers_under_the_limit_load() {
    load_and_run(".reg .b32 %r<60000>;\nmov.u32 %r59999, %tid.x;").expect("under the limit");
}

#[test]
fn module_globals_past_the_limit_are_refused_with_their_line() {
    // Was: 260 MB of module variables accepted, and with racecheck over 2 blocks a 2 GB shadow.
    let text = entry("ret;").replace(
        ".address_size 64\n",
        ".address_size 64\n.global .align 4 .b8 g[260000000];\n",
    );
    let e = PtxKernel::load(&text, "k").expect_err("too large");
    let PtxError::Unsupported { line, message, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!(*line, 4, "{e}");
    assert!(message.contains("past 16 MiB (MAX_MODULE_GLOBALS"), "{e}");
    let fits = text.replace("260000000", "1000000");
    PtxKernel::load(&fits, "k").expect("1 MB of module variables");
}

#[test]
fn a_block_shape_whose_product_overflows_is_refused() {
    // (2^31 + 1) · 2 threads wraps to 2 in 32 bits.
    let kernel = PtxKernel::load(&entry("ret;"), "k").expect("loads");
    let launch = PtxLaunch {
        grid: [1, 1, 1],
        block: [(1 << 31) + 1, 2, 1],
        dynamic_shared: 0,
    };
    let mut buffer = vec![0u8; 256];
    let buffers = &mut [BufferArg::ReadWrite(&mut buffer)];
    let e = run(
        &kernel,
        &launch,
        &[PtxArg::Buffer],
        buffers,
        &SimOptions::default(),
    )
    .expect_err("too many threads");
    assert!(e.to_string().contains("1 to 1024 threads"), "{e}");
    let req = entry("ret;").replace(")\n{", ")\n.reqntid 2147483649, 2, 1\n{");
    let kernel = PtxKernel::load(&req, "k").expect("loads");
    let e = kernel
        .block_shape(Some([2, 1, 1]))
        .expect_err("not 2 threads");
    assert!(e.contains("4294967298 threads"), "{e}");
}

#[test]
fn grids_past_the_limit_are_refused() {
    let kernel = PtxKernel::load(&entry("ret;"), "k").expect("loads");
    let launch = PtxLaunch {
        grid: [i32::MAX as u32, 2, 1],
        block: [32, 1, 1],
        dynamic_shared: 0,
    };
    let mut buffer = vec![0u8; 256];
    let buffers = &mut [BufferArg::ReadWrite(&mut buffer)];
    let e = run(
        &kernel,
        &launch,
        &[PtxArg::Buffer],
        buffers,
        &SimOptions::default(),
    )
    .expect_err("too many blocks");
    assert!(
        e.to_string().contains("runs at most 4194304 per launch"),
        "{e}"
    );
}

#[test]
fn hostile_float_operands_and_modifiers_never_panic() {
    // Immediates of every kind in `f32` and `f64` instructions, every rounding, extreme values:
    // each line loads and runs, or is refused with its line.
    let lines = [
        "add.rz.f64 %fd1, 0dFFFFFFFFFFFFFFFF, 0d7FF0000000000001;",
        "add.rm.f32 %f1, 0dFFF8000000000001, 1e999;",
        "fma.rp.f64 %fd1, 0f7FFFFFFF, -1e-999, 0d0000000000000001;",
        "div.rz.f64 %fd1, 0d8000000000000000, 0d0000000000000000;",
        "sqrt.rm.f32 %f1, 0fFF800000;",
        "rcp.approx.ftz.f64 %fd1, 0d000FFFFFFFFFFFFF;",
        "cvt.rpi.s8.f64 %r1, 0dC3E0000000000001;",
        "cvt.rm.f32.u64 %f1, 0xFFFFFFFFFFFFFFFF;",
        "cvt.rp.f64.s64 %fd1, -9223372036854775808;",
        "cvt.rz.f32.f64 %f1, 0d47EFFFFFE0000000;",
        "cvt.rni.u16.f64 %rs1, 0dFFF0000000000000;",
        "setp.nan.f64 %p1, 0dFFF8000000000000, 1.0e308;",
        "mov.f64 %fd1, 0f00000001;",
        "mov.f64 %fd1, not_a_number;",
        "mul.rn.f64 %fd1, %fd1, 12;",
    ];
    for line in lines {
        let body = format!(
            ".reg .f32 %f<2>;\n.reg .f64 %fd<2>;\n.reg .b32 %r<2>;\n.reg .b16 %rs<2>;\n.reg .pred %p<2>;\n{line}"
        );
        if let Err(e) = load_and_run(&body) {
            assert!(e.to_string().contains("line 14"), "{line}: {e}");
        }
    }
}

#[test]
fn malformed_integer_forms_are_refused_with_their_line_never_a_panic() {
    // Wrong operand counts, missing or contradictory modes, bad types and immediates for the
    // 24-bit multiplies, carry chains, bit-mask, dot-product, permute, funnel-shift and `lop3`
    // forms: each one is refused naming its line (14) — or, where the form is valid, runs.
    let lines = [
        "mul24.lo.u32 %r1, %r1;",
        "mul24.lo.u32 %r1, %r1, %r1, %r1;",
        "mul24.lo.hi.u32 %r1, %r1, %r1;",
        "mul24.lo.f32 %r1, %r1, %r1;",
        "mad24.lo.u32 %r1, %r1, %r1;",
        "mad24.hi.sat.u32 %r1, %r1, %r1, %r1;",
        "add.cc %r1, %r1, %r1;",
        "add.cc.u8 %r1, %r1, %r1;",
        "addc.cc.b32 %r1, %r1, %r1;",
        "addc.u32 %r1, %r1;",
        "subc.cc.s64 %rd1, %rd1;",
        "sub.cc.f64 %rd1, %rd1, %rd1;",
        "mad.cc.u32 %r1, %r1, %r1, %r1;",
        "madc.lo.cc.u32 %r1, %r1, %r1;",
        "madc.wide.u32 %rd1, %r1, %r1, %rd1;",
        "madc.hi.cc.u16 %rs1, %rs1, %rs1, %rs1;",
        "bmsk.b32 %r1, %r1, %r1;",
        "bmsk.clamp.u32 %r1, %r1, %r1;",
        "bmsk.wrap.b32 %r1, %r1;",
        "szext.clamp.b32 %r1, %r1, %r1;",
        "szext.wrap.s64 %rd1, %rd1, %rd1;",
        "szext.s32 %r1, %r1, %r1;",
        "fns.b32 %r1, %r1, %r1;",
        "fns.b64 %rd1, %rd1, %rd1, %rd1;",
        "dp4a.s32 %r1, %r1, %r1, %r1;",
        "dp4a.s32.s32.s32 %r1, %r1, %r1, %r1;",
        "dp2a.s32.s32 %r1, %r1, %r1, %r1;",
        "dp2a.lo.s32.f32 %r1, %r1, %r1, %r1;",
        "prmt.b32.f4e %r1, %r1, %r1;",
        "prmt.b32.nope %r1, %r1, %r1, %r1;",
        "prmt.b16.rc8 %rs1, %rs1, %rs1, %rs1;",
        "shf.l.clamp.b64 %rd1, %rd1, %rd1, %rd1;",
        "shf.l.r.clamp.b32 %r1, %r1, %r1, %r1;",
        "shf.r.wrap.b32 %r1, %r1, %r1;",
        "lop3.b32 %r1, %r1, %r1, %r1, -1;",
        "lop3.b32 %r1, %r1, %r1, %r1, 0.5;",
        "lop3.xor.b32 %r1|%p1, %r1, %r1, %r1, 3, %p1;",
        "lop3.and.b32 %r1|%p1, %r1, %r1, %r1, 3;",
        "lop3.or.b32 %r1, %r1, %r1, %r1, 3, %p1;",
        "sad.b32 %r1, %r1, %r1, %r1;",
        "sad.u32 %r1, %r1, %r1;",
        "mad.hi.sat.s64 %rd1, %rd1, %rd1, %rd1;",
    ];
    for line in lines {
        let body = format!(
            ".reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n.reg .b16 %rs<2>;\n.reg .pred %p<2>;\n\n{line}"
        );
        let e = load_and_run(&body).expect_err(line);
        assert!(e.to_string().starts_with("line 14: "), "{line}: {e}");
    }
    // `_|_` discards both results: a parse error at its line.
    let e = load_and_run(
        ".reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n.reg .b16 %rs<2>;\n.reg .pred %p<2>;\n\n\
         lop3.or.b32 _|_, %r1, %r1, %r1, 3, %p1;",
    )
    .expect_err("_|_");
    assert!(e.to_string().contains("line 14, column"), "{e}");
    // The valid forms beside them run.
    let valid = "add.cc.u32 %r1, %r1, 1;\naddc.cc.u32 %r1, %r1, %r1;\nmadc.hi.cc.u64 %rd1, %rd1, %rd1, %rd1;\n\
                 bmsk.clamp.b32 %r1, 40, %r1;\nfns.b32 %r1, -1, 77, -2147483648;\n\
                 lop3.and.b32 %r1|%p1, %r1, %r1, %r1, 255, !%p1;\n\
                 lop3.or.b32 _|%p1, %r1, %r1, %r1, 3, %p1;\nshfl.sync.idx.b32 %r1|_, %r1, 0, 31, -1;";
    load_and_run(&format!(
        ".reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n.reg .pred %p<2>;\n{valid}"
    ))
    .expect("valid forms run");
}

/// A module of `funcs` (`.func` definitions) and an entry `k(.param .u64 p)` whose body is `body`.
fn with_funcs(funcs: &str, body: &str) -> String {
    format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n\n{funcs}\n.visible .entry k(\n    .param .u64 p\n)\n{{\n{body}\nret;\n}}\n"
    )
}

/// The line of the first line of `text` holding `needle`.
fn line_of(text: &str, needle: &str) -> u32 {
    text.lines()
        .position(|l| l.contains(needle))
        .expect("present") as u32
        + 1
}

/// The refusal of `text`'s entry `k`: (line, message).
fn refusal(text: &str) -> (u32, String) {
    let e = PtxKernel::load(text, "k").expect_err("refused");
    let PtxError::Unsupported { line, .. } = &e else {
        panic!("{e}")
    };
    (*line, e.to_string())
}

#[test]
fn unbounded_recursion_is_a_finding_not_a_host_stack_overflow() {
    // A function calling itself forever, with a 4 KiB `.local` frame: the per-thread stack limit
    // stops it (a finding), as a frame-less one meets the depth limit; neither recurses on the host.
    for local in ["", ".local .align 8 .b8 big[4096];"] {
        let f = format!(".func f()\n{{\n{local}\ncall.uni f;\nret;\n}}\n");
        let text = with_funcs(&f, "call.uni f;");
        let kernel = PtxKernel::load(&text, "k").expect("loads");
        let mut buffer = vec![0u8; 256];
        let launch = PtxLaunch {
            grid: [1, 1, 1],
            block: [64, 1, 1],
            dynamic_shared: 0,
        };
        let buffers = &mut [BufferArg::ReadWrite(&mut buffer)];
        let report = run(
            &kernel,
            &launch,
            &[PtxArg::Buffer],
            buffers,
            &SimOptions::default(),
        )
        .expect("runs");
        let f = report.findings.first().expect("a finding");
        assert_eq!(f.kind.name(), "stack-overflow", "{f:?}");
        assert!(f.detail.contains("the simulator's limit"), "{}", f.detail);
        let line = format!("line {}", line_of(&text, "call.uni f;"));
        assert!(f.statement.contains(&line), "{} {line}", f.statement);
    }
}

#[test]
fn a_call_of_an_undefined_function_is_refused_with_its_line() {
    let text = with_funcs("", "call.uni nowhere;");
    let (line, m) = refusal(&text);
    assert_eq!(line, line_of(&text, "nowhere"), "{m}");
    assert!(m.contains("no function `nowhere`"), "{m}");
    let declared = ".extern .func elsewhere(.param .b32 x);";
    let text = with_funcs(declared, "call.uni elsewhere, (1);");
    let (line, m) = refusal(&text);
    assert_eq!(line, line_of(&text, "call.uni elsewhere"), "{m}");
    assert!(m.contains("declared but not defined"), "{m}");
    let (_, m) = refusal(&with_funcs("", "call.uni k;"));
    assert!(m.contains("is an `.entry`"), "{m}");
}

#[test]
fn mismatched_call_arguments_are_refused_with_their_line() {
    let f =
        ".func (.param .b32 r) f(.param .b32 a, .param .b32 b)\n{\nst.param.b32 [r], 0;\nret;\n}\n";
    let cases = [
        (
            "call.uni (%x), f, (1);",
            "`f` has 2 parameters, the call gives 1",
        ),
        (
            "call.uni f, (1, 2);",
            "`f` has 1 return parameters, the call gives 0",
        ),
        (
            "{\n.param .b64 q;\ncall.uni (%x), f, (q, 2);\n}",
            "`q` has 8 bytes, parameter `a` of `f` 4",
        ),
        (
            "call.uni (%x), f, (nothing, 2);",
            "`nothing` is not a `.param` variable",
        ),
        ("call.uni (%x), f, (1, 2), f;", "unexpected operand"),
        ("brx.idx %x, nolist;", "no `.branchtargets` list `nolist`"),
    ];
    for (call, want) in cases {
        let body = format!(".reg .b32 %x;\n{call}");
        let text = with_funcs(f, &body);
        let (line, m) = refusal(&text);
        assert!(m.contains(want), "{call}: {m}");
        let inst = call
            .lines()
            .find(|l| l.starts_with("call") || l.starts_with("brx"));
        assert_eq!(line, line_of(&text, inst.unwrap_or(call)), "{m}");
    }
    let reg = ".func g(.reg .b32 a)\n{\nret;\n}\n";
    let (_, m) = refusal(&with_funcs(reg, "call.uni g, (1);"));
    assert!(m.contains("`.reg` parameter"), "{m}");
}
