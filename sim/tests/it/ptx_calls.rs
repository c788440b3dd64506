//! Calls of `.func`s on the PTX simulator (PTX ISA, "Control Flow Instructions: call, ret, brx.idx"
//! and "Function declarations and definitions"): parameters and return values by value (scalars,
//! registers, immediates and byte arrays), calls made by some lanes of a warp with each lane
//! returning its own value, nested calls, recursion within the call-depth limit and past it (a
//! stack-overflow finding naming the limit), `.local` memory in a fresh frame per call and thread,
//! and `brx.idx` through a `.branchtargets` list (an index past the list is a finding). Each
//! kernel's expected output is computed here in Rust. The lint corpus's calls: `ptx_calls_corpus.rs`.

use crate::common;
use common::calls::{run, u32s, u64s, HEADER, PROLOGUE};
use warpforge_sim::ptx::PtxKernel;
use warpforge_sim::FindingKind;

/// `madd(a, b, c) = a * b + c`, called as nvcc writes calls (`.param` variables in a call
/// sequence) and with registers and immediates as arguments and a register for the result.
const MADD: &str = "
.func (.param .b32 madd_ret) madd(.param .b32 madd_a, .param .b32 madd_b, .param .b32 madd_c)
{
    .reg .b32 %r<5>;
    ld.param.u32 %r1, [madd_a];
    ld.param.u32 %r2, [madd_b];
    ld.param.u32 %r3, [madd_c];
    mad.lo.s32 %r4, %r1, %r2, %r3;
    st.param.b32 [madd_ret+0], %r4;
    ret;
}
";

#[test]
fn a_function_takes_parameters_and_returns_a_value() {
    let text = format!(
        "{MADD}
.visible .entry k(.param .u64 out)
{{{PROLOGUE}
    {{ // callseq 0
    .param .b32 param0;
    st.param.b32 [param0+0], %r1;
    .param .b32 param1;
    st.param.b32 [param1+0], 3;
    .param .b32 param2;
    st.param.b32 [param2+0], 7;
    .param .b32 retval0;
    call.uni (retval0), madd, (param0, param1, param2);
    ld.param.b32 %r2, [retval0+0];
    }}
    call.uni (%r3), madd, (%r2, 2, %r1);
    st.global.v2.u32 [%rd3], {{%r2, %r3}};
    ret;
}}
"
    );
    let (report, out) = run(&text, 64, 64 * 8, &[]);
    assert!(report.is_clean(), "{:#?}", report.findings);
    let want: Vec<u32> = (0..64u32)
        .flat_map(|t| [t * 3 + 7, (t * 3 + 7) * 2 + t])
        .collect();
    assert_eq!(u32s(&out), want);
    assert!(
        report.counters.control >= 4 * 2,
        "calls and returns count as control"
    );
}

#[test]
fn a_byte_array_parameter_is_passed_by_value() {
    // `sum4(p)` reads four u32 from a 16-byte parameter, overwrites its copy, and returns a u64;
    // the caller's array is unchanged after the call.
    let text = format!(
        "
.func (.param .b64 sum4_ret) sum4(.param .align 8 .b8 sum4_p[16])
{{
    .reg .b32 %r<6>;
    .reg .b64 %rd<6>;
    ld.param.v2.u32 {{%r1, %r2}}, [sum4_p+0];
    ld.param.u32 %r3, [sum4_p+8];
    ld.param.u32 %r4, [sum4_p+12];
    mad.lo.s32 %r2, %r2, 10, %r1;
    mad.lo.s32 %r3, %r3, 100, %r2;
    mul.wide.u32 %rd1, %r4, 1000;
    cvt.u64.u32 %rd2, %r3;
    add.s64 %rd3, %rd1, %rd2;
    st.param.u32 [sum4_p+0], 99;
    st.param.b64 [sum4_ret+0], %rd3;
    ret;
}}
.visible .entry k(.param .u64 out)
{{{PROLOGUE}
    {{
    .param .align 8 .b8 param0[16];
    add.s32 %r2, %r1, 1;
    st.param.v2.u32 [param0+0], {{%r1, %r2}};
    add.s32 %r3, %r1, 2;
    st.param.u32 [param0+8], %r3;
    add.s32 %r4, %r1, 3;
    st.param.u32 [param0+12], %r4;
    .param .b64 retval0;
    call.uni (retval0), sum4, (param0);
    ld.param.b64 %rd5, [retval0+0];
    ld.param.u32 %r5, [param0+0];
    }}
    st.global.u64 [%rd3], %rd5;
    mul.wide.u32 %rd6, %r1, 4;
    add.s64 %rd7, %rd1, %rd6;
    st.global.u32 [%rd7+512], %r5;
    ret;
}}
"
    );
    let (report, out) = run(&text, 64, 512 + 64 * 4, &[]);
    assert!(report.is_clean(), "{:#?}", report.findings);
    let want: Vec<u64> = (0..64u64)
        .map(|t| t + 10 * (t + 1) + 100 * (t + 2) + 1000 * (t + 3))
        .collect();
    assert_eq!(u64s(&out[..512]), want);
    assert_eq!(u32s(&out[512..]), (0..64).collect::<Vec<u32>>(), "by value");
}

/// `pick(x)`: `x * 100` when `x % 4 == 1`, else `x + 1000` — two `ret`s, so the callee's lanes
/// diverge and return at different instructions.
const PICK: &str = "
.func (.param .b32 pick_ret) pick(.param .b32 pick_x)
{
    .reg .pred %p<2>;
    .reg .b32 %r<5>;
    ld.param.u32 %r1, [pick_x];
    and.b32 %r2, %r1, 3;
    setp.ne.u32 %p1, %r2, 1;
    @%p1 bra OTHER;
    mul.lo.s32 %r3, %r1, 100;
    st.param.b32 [pick_ret+0], %r3;
    ret;
OTHER:
    add.s32 %r4, %r1, 1000;
    st.param.b32 [pick_ret+0], %r4;
    ret;
}
";

fn pick(x: u32) -> u32 {
    if x % 4 == 1 {
        x * 100
    } else {
        x + 1000
    }
}

#[test]
fn a_call_by_some_lanes_returns_each_lanes_value_and_the_warp_reconverges() {
    // Odd threads call (a guarded `call`), even threads keep their id; then a branch around a call
    // sequence: threads below 40 call again. A `bar.sync` after each proves the warp reconverged.
    let text = format!(
        "{PICK}
.visible .entry k(.param .u64 out)
{{{PROLOGUE}
    mov.u32 %r2, %r1;
    and.b32 %r3, %r1, 1;
    setp.eq.u32 %p1, %r3, 1;
    {{
    .param .b32 param0;
    st.param.b32 [param0+0], %r1;
    .param .b32 retval0;
    @%p1 call (retval0), pick, (param0);
    @%p1 ld.param.b32 %r2, [retval0+0];
    }}
    bar.sync 0;
    mov.u32 %r4, 0;
    setp.ge.u32 %p2, %r1, 40;
    @%p2 bra SKIP;
    {{
    .param .b32 param0;
    add.s32 %r5, %r1, 1;
    st.param.b32 [param0+0], %r5;
    .param .b32 retval0;
    call (retval0), pick, (param0);
    ld.param.b32 %r4, [retval0+0];
    }}
SKIP:
    bar.sync 0;
    st.global.v2.u32 [%rd3], {{%r2, %r4}};
    ret;
}}
"
    );
    let (report, out) = run(&text, 64, 64 * 8, &[]);
    assert!(report.is_clean(), "{:#?}", report.findings);
    let want: Vec<u32> = (0..64u32)
        .flat_map(|t| {
            let first = if t % 2 == 1 { pick(t) } else { t };
            let second = if t < 40 { pick(t + 1) } else { 0 };
            [first, second]
        })
        .collect();
    assert_eq!(u32s(&out), want);
}

#[test]
fn nested_calls_return_through_each_caller() {
    // outer(x) = 2 * inner(x) + inner(x + 1) + madd(x, x, 1), inner(x) = pick(x) + 1.
    let text = format!(
        "{MADD}{PICK}
.func (.param .b32 inner_ret) inner(.param .b32 inner_x)
{{
    .reg .b32 %r<4>;
    ld.param.u32 %r1, [inner_x];
    call.uni (%r2), pick, (%r1);
    add.s32 %r3, %r2, 1;
    st.param.b32 [inner_ret+0], %r3;
    ret;
}}
.func (.param .b32 outer_ret) outer(.param .b32 outer_x)
{{
    .reg .b32 %r<8>;
    ld.param.u32 %r1, [outer_x];
    call.uni (%r2), inner, (%r1);
    add.s32 %r3, %r1, 1;
    call.uni (%r4), inner, (%r3);
    call.uni (%r5), madd, (%r1, %r1, 1);
    mad.lo.s32 %r6, %r2, 2, %r4;
    add.s32 %r7, %r6, %r5;
    st.param.b32 [outer_ret+0], %r7;
    ret;
}}
.visible .entry k(.param .u64 out)
{{{PROLOGUE}
    call.uni (%r2), outer, (%r1);
    st.global.u32 [%rd2], %r2;
    ret;
}}
"
    );
    let (report, out) = run(&text, 64, 64 * 4, &[]);
    assert!(report.is_clean(), "{:#?}", report.findings);
    let inner = |x: u32| pick(x) + 1;
    let want: Vec<u32> = (0..64u32)
        .map(|x| 2 * inner(x) + inner(x + 1) + x * x + 1)
        .collect();
    assert_eq!(u32s(&out), want);
}

/// `fact(n) = n <= 1 ? 1 : n * fact(n - 1)` (u64), and `depth(n) = n == 0 ? 0 : 1 + depth(n - 1)`:
/// each reads its own registers after the recursive call returns.
const RECURSIVE: &str = "
.func (.param .b64 fact_ret) fact(.param .b64 fact_n)
{
    .reg .pred %p<2>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [fact_n];
    setp.gt.u64 %p1, %rd1, 1;
    @%p1 bra RECURSE;
    st.param.b64 [fact_ret+0], 1;
    ret;
RECURSE:
    sub.s64 %rd2, %rd1, 1;
    {
    .param .b64 param0;
    st.param.b64 [param0+0], %rd2;
    .param .b64 retval0;
    call (retval0), fact, (param0);
    ld.param.b64 %rd3, [retval0+0];
    }
    mul.lo.s64 %rd4, %rd3, %rd1;
    st.param.b64 [fact_ret+0], %rd4;
    ret;
}
.func (.param .b32 depth_ret) depth(.param .b32 depth_n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<5>;
    ld.param.u32 %r1, [depth_n];
    setp.eq.u32 %p1, %r1, 0;
    @%p1 bra BOTTOM;
    sub.s32 %r2, %r1, 1;
    call (%r3), depth, (%r2);
    add.s32 %r4, %r3, 1;
    st.param.b32 [depth_ret+0], %r4;
    ret;
BOTTOM:
    st.param.b32 [depth_ret+0], 0;
    ret;
}
.visible .entry k(.param .u64 out, .param .u32 n)
{
    .reg .pred %p<8>;
    .reg .b32 %r<32>;
    .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 16;
    add.s64 %rd3, %rd1, %rd4;
    rem.u32 %r2, %r1, 21;
    cvt.u64.u32 %rd5, %r2;
    call (%rd6), fact, (%rd5);
    ld.param.u32 %r3, [n];
    add.s32 %r4, %r3, %r1;
    call (%r5), depth, (%r4);
    st.global.u64 [%rd3], %rd6;
    st.global.u32 [%rd3+8], %r5;
    ret;
}
";

#[test]
fn recursion_within_the_depth_limit_computes_factorials() {
    let (report, out) = run(RECURSIVE, 64, 64 * 16, &[900]);
    assert!(report.is_clean(), "{:#?}", report.findings);
    let fact = |n: u64| (1..=n).product::<u64>();
    for (t, chunk) in out.chunks(16).enumerate() {
        let t = t as u64;
        assert_eq!(u64s(&chunk[..8])[0], fact(t % 21), "fact({})", t % 21);
        assert_eq!(u32s(&chunk[8..12])[0], 900 + t as u32, "depth");
    }
}

#[test]
fn recursion_past_the_depth_limit_is_a_stack_overflow_finding() {
    let (report, _) = run(RECURSIVE, 32, 32 * 16, &[5000]);
    let f = report
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::StackOverflow)
        .unwrap_or_else(|| panic!("{:#?}", report.findings));
    assert!(f.detail.contains("1024 calls deep"), "{}", f.detail);
    assert!(f.detail.contains("MAX_CALL_DEPTH"), "{}", f.detail);
    assert!(f.statement.contains("call (%r3), depth"), "{}", f.statement);
    assert_eq!(report.stopped_blocks, 1);
}

#[test]
fn local_memory_is_a_fresh_frame_per_call_and_thread() {
    // tri(n) keeps n and a copy in its `.local` array (through a generic address as nvcc writes
    // `%SP`), recurses, and adds what it kept after the call: deeper calls must not overwrite it.
    // rev(x) fills 8 words of `.local` memory and reads them back in reverse.
    let text = format!(
        "
.func (.param .b32 tri_ret) tri(.param .b32 tri_n)
{{
    .local .align 4 .b8 keep[8];
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %SP, %SPL, %rd<2>;
    mov.u64 %SPL, keep;
    cvta.local.u64 %SP, %SPL;
    ld.param.u32 %r1, [tri_n];
    st.local.u32 [%SPL], %r1;
    st.u32 [%SP+4], %r1;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    sub.s32 %r2, %r1, 1;
    call (%r3), tri, (%r2);
    ld.local.u32 %r4, [keep];
    ld.u32 %r5, [%SP+4];
    add.s32 %r6, %r3, %r4;
    sub.s32 %r7, %r6, %r5;
    add.s32 %r7, %r7, %r4;
    st.param.b32 [tri_ret+0], %r7;
    ret;
DONE:
    st.param.b32 [tri_ret+0], 0;
    ret;
}}
.func (.param .b32 rev_ret) rev(.param .b32 rev_x)
{{
    .local .align 4 .b8 buf[32];
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u32 %r1, [rev_x];
    mov.u64 %rd1, buf;
    mov.u32 %r2, 0;
FILL:
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    add.s32 %r3, %r1, %r2;
    st.local.u32 [%rd3], %r3;
    add.s32 %r2, %r2, 1;
    setp.lt.u32 %p1, %r2, 8;
    @%p1 bra FILL;
    mov.u32 %r4, 0;
    mov.u32 %r2, 0;
SUM:
    sub.s32 %r5, 7, %r2;
    mul.wide.u32 %rd2, %r5, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.local.u32 %r6, [%rd3];
    add.s32 %r7, %r2, 1;
    mad.lo.s32 %r4, %r6, %r7, %r4;
    add.s32 %r2, %r2, 1;
    setp.lt.u32 %p1, %r2, 8;
    @%p1 bra SUM;
    st.param.b32 [rev_ret+0], %r4;
    ret;
}}
.visible .entry k(.param .u64 out)
{{{PROLOGUE}
    rem.u32 %r2, %r1, 13;
    call (%r3), tri, (%r2);
    call.uni (%r4), rev, (%r1);
    st.global.v2.u32 [%rd3], {{%r3, %r4}};
    ret;
}}
"
    );
    let (report, out) = run(&text, 64, 64 * 8, &[]);
    assert!(report.is_clean(), "{:#?}", report.findings);
    let want: Vec<u32> = (0..64u32)
        .flat_map(|t| {
            let n = t % 13;
            let rev: u32 = (0..8).map(|i| (t + 7 - i) * (i + 1)).sum();
            [n * (n + 1) / 2, rev]
        })
        .collect();
    assert_eq!(u32s(&out), want);
}

const SWITCH: &str = "
.visible .entry k(.param .u64 out, .param .u32 modulus)
{
    .reg .pred %p<8>;
    .reg .b32 %r<32>;
    .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd2, %rd1, %rd4;
    ld.param.u32 %r9, [modulus];
    rem.u32 %r2, %r1, %r9;
    mov.u32 %r3, 0;
    setp.eq.u32 %p1, %r1, 63;
    @%p1 bra JOIN;
TABLE: .branchtargets CASE0, CASE1, CASE2, CASE3;
    brx.idx %r2, TABLE;
CASE0:
    mov.u32 %r3, 100;
    bra.uni JOIN;
CASE1:
    mov.u32 %r3, 200;
CASE2:
    add.s32 %r3, %r3, 30;
    bra.uni JOIN;
CASE3:
    mul.lo.s32 %r3, %r1, 7;
JOIN:
    bar.sync 0;
    st.global.u32 [%rd2], %r3;
    ret;
}
";

#[test]
fn brx_idx_switches_through_a_branchtargets_list() {
    let (report, out) = run(SWITCH, 64, 64 * 4, &[4]);
    assert!(report.is_clean(), "{:#?}", report.findings);
    let want: Vec<u32> = (0..64u32)
        .map(|t| match (t, t % 4) {
            (63, _) => 0,
            (_, 0) => 100,
            (_, 1) => 230,
            (_, 2) => 30,
            _ => t * 7,
        })
        .collect();
    assert_eq!(u32s(&out), want);
}

#[test]
fn a_brx_idx_index_past_its_list_is_a_finding() {
    let (report, _) = run(SWITCH, 64, 64 * 4, &[6]);
    let f = report
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::BranchIndex)
        .unwrap_or_else(|| panic!("{:#?}", report.findings));
    assert!(f.detail.contains("past the 4 labels"), "{}", f.detail);
    assert_eq!(f.lanes, 0x30c3_0c30, "threads with tid % 6 of 4 or 5");
    assert!(f.statement.contains("brx.idx"), "{}", f.statement);
}

#[test]
fn an_indirect_call_is_refused_by_name() {
    let text = format!(
        "{MADD}
.visible .entry k(.param .u64 out)
{{{PROLOGUE}
    ld.param.u64 %rd5, [out];
    {{
    .param .b32 retval0;
    proto: .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _, .param .b32 _);
    call (retval0), %rd5, (%r1, %r1, %r1), proto;
    }}
    ret;
}}
"
    );
    let e = PtxKernel::load(&format!("{HEADER}{text}"), "k").expect_err("refused");
    let m = e.to_string();
    assert!(m.contains("indirect call"), "{m}");
    assert!(m.contains("`.callprototype`"), "{m}");
    assert!(m.contains("line "), "{m}");
}
