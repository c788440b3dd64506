//! The PTX front end on input as compilers write it and as users mistype it: `.loc`/`.file` line
//! directives (every `-lineinfo` and Triton module) do not hide the statement after them; text that is
//! not PTX, or a module cut short, is an error naming the line rather than a clean bill of health.

use warpforge_analysis::lint_ptx;
use warpforge_analysis::Rule;

const DIVERGENT_BARRIER: &str = include_str!("../fixtures/divergent_barrier.ptx");

fn rules(source: &str) -> Vec<&'static str> {
    lint_ptx(source)
        .expect("PTX")
        .iter()
        .map(|d| d.rule.code())
        .collect()
}

#[test]
fn line_directives_do_not_hide_the_next_statement() {
    // As nvcc -lineinfo writes it: a `.file` table and a `.loc` line (no `;`) before each statement.
    let with_loc = DIVERGENT_BARRIER
        .replace(
            ".address_size 64\n",
            ".address_size 64\n\t.file\t1 \"/tmp/k.cu\"\n",
        )
        .replace("    bar.sync 0;", "\t.loc\t1 7 5\n    bar.sync 0;")
        .replace("    setp.lt", "\t.loc\t1 6 3\n    setp.lt");
    assert_ne!(with_loc, DIVERGENT_BARRIER);
    assert_eq!(rules(DIVERGENT_BARRIER), vec!["B001"]);
    assert_eq!(
        rules(&with_loc),
        vec!["B001"],
        "a `.loc` line must not swallow the barrier after it"
    );
}

#[test]
fn text_that_is_not_ptx_is_an_error_naming_the_line() {
    let e = lint_ptx("int main() { return 0; }\n").expect_err("C is not PTX");
    assert_eq!(e.line, 1);
    assert!(e.message.contains("not PTX"), "{e}");
    let e = lint_ptx("\n\n").expect_err("nothing is not PTX");
    assert!(e.message.contains("empty"), "{e}");
    let e = lint_ptx("// a comment\n\nhello world\n").expect_err("prose is not PTX");
    assert_eq!(e.line, 3, "{e}");
}

#[test]
fn a_module_cut_short_is_an_error_naming_the_line() {
    // Cut inside the body, after a whole statement: the entry's body never closes.
    let cut = &DIVERGENT_BARRIER[..DIVERGENT_BARRIER.find("LATER:").expect("label")];
    let e = lint_ptx(cut).expect_err("cut short");
    assert!(
        e.message.contains("`.entry divergent_barrier`") && e.message.contains("cut short"),
        "{e}"
    );
    // Cut in the middle of a statement.
    let cut = &DIVERGENT_BARRIER[..DIVERGENT_BARRIER.find("%r1, 5").expect("operand")];
    let e = lint_ptx(cut).expect_err("cut short");
    assert_eq!(e.line, 12, "{e}");
    assert!(e.message.contains("cut short"), "{e}");
}

/// `@%p ret` / `@%p exit` on a thread-dependent predicate is a divergent early exit: a barrier after
/// it is B001. On a block-uniform predicate (`%ctaid.x`) it is not.
#[test]
fn a_predicated_return_is_a_divergent_exit() {
    let ptx = |exit: &str, special: &str| {
        format!(
            ".version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(.param .u64 out)\n{{\n    \
             .reg .pred %p<2>;\n    .reg .b32 %r<4>;\n    mov.u32 %r1, {special};\n    \
             setp.lt.u32 %p1, %r1, 5;\n    @%p1 {exit};\n    bar.sync 0;\n    ret;\n}}\n"
        )
    };
    for exit in ["ret", "exit"] {
        assert_eq!(rules(&ptx(exit, "%tid.x")), vec!["B001"], "@%p1 {exit}");
        assert!(
            rules(&ptx(exit, "%ctaid.x")).is_empty(),
            "@%p1 {exit} on %ctaid.x"
        );
    }
}

/// nvcc never writes a collective's mask as an immediate: `mov.b32 %r5, -1; shfl.sync … %r5`. The
/// register's known value is checked like a constant, so `if (i >= n) return; __shfl_down_sync(…)`
/// is W001; a mask register whose value is not known stays unchecked.
#[test]
fn a_mask_held_in_a_register_is_checked() {
    let ptx = |mask_def: &str| {
        format!(
            ".version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(.param .u64 out, .param .u32 n)\n{{\n    \
             .reg .pred %p<2>;\n    .reg .b32 %r<8>;\n    ld.param.u32 %r2, [n];\n    mov.u32 %r1, %tid.x;\n    \
             setp.ge.u32 %p1, %r1, %r2;\n    @%p1 bra DONE;\n    {mask_def}\n    \
             shfl.sync.down.b32 %r3, %r1, 1, 31, %r5;\nDONE:\n    ret;\n}}\n"
        )
    };
    assert_eq!(rules(&ptx("mov.b32 %r5, -1;")), vec!["W001"]);
    assert_eq!(rules(&ptx("mov.b32 %r5, 0xffffffff;")), vec!["W001"]);
    // A partial constant mask under divergence cannot be checked: a warning, not W001.
    assert_eq!(rules(&ptx("mov.b32 %r5, 0xffff;")), vec!["W002"]);
    // A mask computed at run time (a parameter) is not known: nothing to say.
    assert!(rules(&ptx("ld.param.u32 %r5, [n];")).is_empty());
}

/// Offsets are known modulo a power of two (their low bits), so an access misaligned for every thread
/// is an error even when the threads' offsets differ: `s + 4*tid + 2` as a 4-byte load, and a 16-byte
/// `ld.shared.v4` at `s + 16*tid + 8`. The aligned versions say nothing.
#[test]
fn an_access_misaligned_for_every_thread_is_an_error() {
    let ptx = |scale: u32, offset: u32, load: &str| {
        format!(
            ".version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(.param .u64 out)\n{{\n    \
             .reg .b32 %r<8>;\n    .reg .f32 %f<8>;\n    .shared .align 16 .b8 s[8192];\n    \
             mov.u32 %r1, %tid.x;\n    mul.lo.u32 %r2, %r1, {scale};\n    mov.u32 %r3, s;\n    \
             add.u32 %r4, %r3, %r2;\n    {load} [%r4+{offset}];\n    ret;\n}}\n"
        )
    };
    let scalar = "ld.shared.u32 %r5,";
    let vector = "ld.shared.v4.f32 {%f1, %f2, %f3, %f4},";
    let errors = |source: &str| -> Vec<String> {
        lint_ptx(source)
            .expect("PTX")
            .iter()
            .filter(|d| d.rule == Rule::A001)
            .map(|d| format!("{} {}", d.severity, d.message))
            .collect()
    };
    let misaligned = errors(&ptx(4, 2, scalar));
    assert_eq!(misaligned.len(), 1, "{misaligned:?}");
    assert!(
        misaligned[0].starts_with("error") && misaligned[0].contains("≡ 2 (mod 4)"),
        "{misaligned:?}"
    );
    let misaligned = errors(&ptx(16, 8, vector));
    assert!(
        misaligned.len() == 1 && misaligned[0].contains("≡ 8 (mod 16)"),
        "{misaligned:?}"
    );
    assert!(errors(&ptx(4, 4, scalar)).is_empty());
    assert!(errors(&ptx(16, 16, vector)).is_empty());
    // Only 2-aligned for 4-byte loads: not provably misaligned for every thread, not provably aligned.
    let unknown = errors(&ptx(2, 0, scalar));
    assert!(
        unknown.len() == 1 && unknown[0].starts_with("warning"),
        "{unknown:?}"
    );
}

/// CUB's raking pattern: only warp 0 (`%tid.x > 31` skips it) runs a warp sync. With a block
/// x-dimension that is a multiple of 32 (`.reqntid`, or assumed without it), the branch splits whole
/// warps: no W001. Turning the assumption off, or a `.reqntid` of 48, makes it W001 again; so does a
/// split inside a warp (`tid < 16`). `%tid.x / 32` compared with anything is warp-uniform too, and
/// so are tests of `%tid.x >> s` (s < 5) at multiples of 2^(5-s).
#[test]
fn conditions_that_split_at_multiples_of_32_are_warp_uniform() {
    use warpforge_analysis::lint_ptx_with;
    let ptx = |reqntid: &str, compute: &str| {
        format!(
            ".version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(.param .u64 out){reqntid}\n{{\n    \
             .reg .pred %p<2>;\n    .reg .b32 %r<8>;\n    mov.u32 %r1, %tid.x;\n    {compute}\n    \
             @%p1 bra DONE;\n    bar.warp.sync -1;\nDONE:\n    ret;\n}}\n"
        )
    };
    let w001 = |source: &str, assume: bool| {
        lint_ptx_with(source, assume)
            .expect("PTX")
            .iter()
            .filter(|d| d.rule == Rule::W001)
            .count()
    };
    let raking = "setp.gt.u32 %p1, %r1, 31;";
    assert_eq!(w001(&ptx("", raking), true), 0, "assumed warp-aligned");
    assert_eq!(w001(&ptx("", raking), false), 1, "assumption off");
    assert_eq!(w001(&ptx(" .reqntid 128", raking), false), 0, "known: 128");
    assert_eq!(w001(&ptx(" .reqntid 48", raking), true), 1, "known: 48");
    for uniform in [
        "setp.lt.u32 %p1, %r1, 64;",
        "setp.ge.u32 %p1, %r1, 32;",
        "setp.le.u32 %p1, %r1, 95;",
        "setp.gt.u32 %p1, 64, %r1;",
        "div.u32 %r2, %r1, 32;\n    setp.eq.u32 %p1, %r2, 1;",
        // nvcc writes `warpSize` as the ISA's predefined constant WARP_SZ (32).
        "setp.lt.u32 %p1, %r1, WARP_SZ;",
        "div.u32 %r2, %r1, WARP_SZ;\n    setp.eq.u32 %p1, %r2, 1;",
        // nvcc folds `(tid / 32) * 16` into `(tid >> 1) & ~15`: 16 values per warp, each even.
        "shr.u32 %r2, %r1, 1;\n    and.b32 %r3, %r2, -16;\n    setp.lt.u32 %p1, %r3, 48;",
        "shr.u32 %r2, %r1, 2;\n    shr.u32 %r3, %r2, 3;\n    setp.eq.u32 %p1, %r3, 1;",
        "shr.u32 %r2, %r1, 3;\n    setp.lt.u32 %p1, %r2, 12;",
    ] {
        assert_eq!(w001(&ptx("", uniform), true), 0, "{uniform}");
    }
    for divergent in [
        "setp.lt.u32 %p1, %r1, 16;",
        "setp.le.u32 %p1, %r1, 32;",
        "setp.eq.u32 %p1, %r1, 0;",
        "div.u32 %r2, %r1, 16;\n    setp.eq.u32 %p1, %r2, 1;",
        "rem.u32 %r2, %r1, WARP_SZ;\n    setp.lt.u32 %p1, %r2, 8;",
        // Shifted by less than 5, the low bits still vary within a warp.
        "shr.u32 %r2, %r1, 1;\n    and.b32 %r3, %r2, -8;\n    setp.lt.u32 %p1, %r3, 48;",
        "shr.u32 %r2, %r1, 3;\n    setp.lt.u32 %p1, %r2, 10;",
        "shr.u32 %r2, %r1, 2;\n    shr.u32 %r3, %r2, 2;\n    setp.eq.u32 %p1, %r3, 1;",
    ] {
        assert_eq!(w001(&ptx("", divergent), true), 1, "{divergent}");
    }
}

/// What recent nvcc writes is modelled, not N001: `mad.wide`, `activemask`, `redux.sync`, `cp.async`
/// and its group fences, `mbarrier`, `nanosleep`, `bmsk`, `::` sub-qualifiers; the warp-synchronous
/// matrix instructions need their whole warp, so one under a lane-dependent branch is W001.
#[test]
fn recent_instructions_are_modelled() {
    let body = "mov.u32 %r1, %tid.x;\n    mad.wide.u32 %rd1, %r1, 4, %rd2;\n    \
                activemask.b32 %r2;\n    redux.sync.add.u32 %r3, %r1, %r2;\n    \
                mov.u32 %r4, s;\n    cp.async.ca.shared.global [%r4], [%rd1], 4;\n    \
                cp.async.commit_group;\n    cp.async.wait_group 0;\n    \
                mbarrier.init.shared::cta.b64 [%r4], 32;\n    nanosleep.u32 100;\n    \
                bmsk.clamp.b32 %r5, %r1, 3;\n    ld.shared::cta.u32 %r6, [%r4];\n    \
                st.global.u32 [%rd1], %r6;";
    let ptx = |extra: &str| {
        format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry k(.param .u64 out)\n{{\n    \
             .reg .pred %p<2>;\n    .reg .b32 %r<16>;\n    .reg .b64 %rd<4>;\n    .reg .f32 %f<8>;\n    \
             .shared .align 16 .b8 s[512];\n    {body}\n{extra}    ret;\n}}\n"
        )
    };
    let found = lint_ptx(&ptx("")).expect("PTX");
    let unmodelled: Vec<&str> = found
        .iter()
        .filter(|d| d.rule == Rule::N001)
        .map(|d| d.message.as_str())
        .collect();
    assert!(unmodelled.is_empty(), "{unmodelled:?}");
    assert!(
        !found
            .iter()
            .any(|d| d.rule == Rule::W001 || d.rule == Rule::B001),
        "{found:?}"
    );
    let mma = "    setp.lt.u32 %p1, %r1, 16;\n    @%p1 bra DONE;\n    \
               mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r7, %r8}, {%r9}, {%f5, %f6, %f7, %f8};\nDONE:\n";
    let found = lint_ptx(&ptx(mma)).expect("PTX");
    assert!(found.iter().any(|d| d.rule == Rule::W001), "{found:?}");
}

/// A `__syncthreads()` inside a device function is B001 when the function is called under a
/// thread-dependent branch (through another function too), and nothing when every thread calls it; a
/// full-mask shuffle inside one is W001 under a lane-dependent branch; a call to a function without a
/// body in the module stays N001; a call's return value is divergent.
#[test]
fn calls_count_as_what_the_function_reaches() {
    let module = |call_site: &str| {
        format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n\n\
             .func sync_all()\n{{\n    bar.sync 0;\n    ret;\n}}\n\n\
             .func (.param .b32 func_retval0) wrapped(.param .b32 x)\n{{\n    .reg .b32 %r<4>;\n    \
             call.uni sync_all, ();\n    ld.param.b32 %r1, [x];\n    st.param.b32 [func_retval0], %r1;\n    ret;\n}}\n\n\
             .func shuffle_down()\n{{\n    .reg .b32 %r<4>;\n    shfl.sync.down.b32 %r2, %r1, 1, 31, -1;\n    ret;\n}}\n\n\
             .visible .entry k(.param .u64 out)\n{{\n    .reg .pred %p<2>;\n    .reg .b32 %r<8>;\n    \
             mov.u32 %r1, %tid.x;\n    setp.lt.u32 %p1, %r1, 5;\n    {call_site}\n    ret;\n}}\n"
        )
    };
    let under_branch = |call: &str| module(&format!("@%p1 bra DONE;\n    {call}\nDONE:"));
    assert_eq!(rules(&under_branch("call.uni sync_all, ();")), vec!["B001"]);
    let nested = "{\n    .param .b32 param0;\n    .param .b32 retval0;\n    st.param.b32 [param0], %r1;\n    \
                  call.uni (retval0), wrapped, (param0);\n    ld.param.b32 %r2, [retval0];\n    }";
    assert_eq!(
        rules(&under_branch(nested)),
        vec!["B001"],
        "through `wrapped`"
    );
    assert!(
        rules(&module("call.uni sync_all, ();")).is_empty(),
        "every thread calls it"
    );
    assert_eq!(
        rules(&under_branch("call.uni shuffle_down, ();")),
        vec!["W001"]
    );
    assert_eq!(rules(&module("call.uni external_fn, ();")), vec!["N001"]);
    // The return value is per thread: a barrier under a branch on it is B001.
    let on_result = format!(
        "{nested}\n    setp.eq.u32 %p1, %r2, 0;\n    @%p1 bra DONE;\n    bar.sync 0;\nDONE:"
    );
    assert!(
        rules(&module(&on_result)).contains(&"B001"),
        "{:?}",
        rules(&module(&on_result))
    );
}

/// With `.reqntid`, the thread-index range is exact: `s[tid + 1]` in an array of one element per
/// thread is out of bounds for the last thread, an S001 error. Without `.reqntid` the block size is
/// not known: a warning. `s[tid]` is in bounds.
#[test]
fn an_index_out_of_bounds_for_some_thread_is_an_error() {
    let ptx = |reqntid: &str, offset: u32| {
        format!(
            ".version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(.param .u64 out){reqntid}\n{{\n    \
             .reg .b32 %r<8>;\n    .shared .align 4 .b8 s[512];\n    mov.u32 %r1, %tid.x;\n    \
             shl.b32 %r2, %r1, 2;\n    mov.u32 %r3, s;\n    add.u32 %r4, %r3, %r2;\n    \
             ld.shared.u32 %r5, [%r4+{offset}];\n    ret;\n}}\n"
        )
    };
    let s001 = |source: &str| -> Vec<String> {
        lint_ptx(source)
            .expect("PTX")
            .iter()
            .filter(|d| d.rule == Rule::S001)
            .map(|d| format!("{} {}", d.severity, d.message))
            .collect()
    };
    let past = s001(&ptx(" .reqntid 128", 4));
    assert!(past.len() == 1 && past[0].starts_with("error"), "{past:?}");
    assert!(past[0].contains("byte 512"), "{past:?}");
    let unknown = s001(&ptx("", 4));
    assert!(
        unknown.len() == 1 && unknown[0].starts_with("warning"),
        "{unknown:?}"
    );
    assert!(s001(&ptx(" .reqntid 128", 0)).is_empty());
}

/// R001: `s[tid]` written, then `s[tid ^ 32]` read with no barrier between — thread t reads what a
/// thread of the next warp wrote. A barrier in between, or `tid ^ 16` (the same warp), is not R001;
/// without a declared block size the claim names the sizes it was checked for (`tests/it/race.rs` has
/// the loop-carried case and the possible races).
#[test]
fn a_shared_race_between_warps_is_an_error() {
    let ptx = |launch: &str, between: &str, xor: u32| {
        format!(
            ".version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(.param .u64 out){launch}\n{{\n    \
             .reg .b32 %r<12>;\n    .shared .align 4 .b8 s[1024];\n    mov.u32 %r1, %tid.x;\n    \
             shl.b32 %r6, %r1, 2;\n    mov.u32 %r7, s;\n    add.s32 %r8, %r7, %r6;\n    \
             st.shared.u32 [%r8], %r1;\n    {between}\n    xor.b32 %r9, %r6, {};\n    \
             add.s32 %r10, %r7, %r9;\n    ld.shared.u32 %r11, [%r10];\n    ret;\n}}\n",
            4 * xor
        )
    };
    let r001 = |source: &str| -> Vec<String> {
        lint_ptx(source)
            .expect("PTX")
            .iter()
            .filter(|d| d.rule == Rule::R001)
            .map(|d| format!("{} {}", d.severity, d.message))
            .collect()
    };
    let race = r001(&ptx(" .reqntid 256", "", 32));
    assert_eq!(race.len(), 1, "{race:?}");
    assert!(
        race[0].starts_with("error") && race[0].contains("a race between warps"),
        "{race:?}"
    );
    assert!(r001(&ptx(" .reqntid 256", "bar.sync 0;", 32)).is_empty());
    assert!(r001(&ptx(" .reqntid 256", "", 16)).is_empty(), "same warp");
    let undeclared = r001(&ptx("", "", 32));
    assert!(
        undeclared.len() == 1
            && undeclared[0].starts_with("error")
            && undeclared[0].contains("for every block x-dimension checked from 64 to 1024")
            && undeclared[0].contains("the kernel does not declare its block size"),
        "{undeclared:?}"
    );
}

/// A module around one entry's body (`%r9` = `%tid.x`).
fn entry(body: &str) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{{\n\t.reg .pred %p<4>;\n\
         \t.reg .b32 %r<10>;\n\tmov.u32 %r9, %tid.x;\n{body}\nDONE:\n\tret;\n}}\n"
    )
}

#[test]
fn a_reused_register_is_divergent_only_where_its_divergent_value_reaches() {
    // %r1 holds %tid.x, then (reused) a constant: the branch on the constant is uniform, so the
    // barrier after it is reached by the whole block.
    let reused = entry(
        "\tmov.u32 %r1, %r9;\n\tsetp.lt.u32 %p1, %r1, 16;\n\t@%p1 bra SKIP;\n\tadd.u32 %r2, %r1, 1;\n\
         SKIP:\n\tmov.u32 %r1, 7;\n\tsetp.eq.u32 %p2, %r1, 7;\n\t@%p2 bra DONE;\n\tbar.sync 0;",
    );
    assert_eq!(rules(&reused), Vec::<&str>::new());
    // Without the reuse, the branch is on %tid.x: B001.
    let divergent = reused.replace("\tmov.u32 %r1, 7;\n", "");
    assert_eq!(rules(&divergent), vec!["B001"]);
    // A loop-carried register stays one value: its divergent update reaches the branch after the loop.
    let carried = entry(
        "\tmov.u32 %r1, 0;\nLOOP:\n\tadd.u32 %r1, %r1, %r9;\n\tsetp.lt.u32 %p1, %r1, 100;\n\
         \t@%p1 bra LOOP;\n\tsetp.eq.u32 %p2, %r1, 5;\n\t@%p2 bra DONE;\n\tbar.sync 0;",
    );
    assert_eq!(rules(&carried), vec!["B001"]);
}
