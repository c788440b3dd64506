//! Rust source positions in the emitted PTX: a `.file` table and a `.loc` line where the position
//! changes; the code itself is the same as without positions; ptxas accepts it for sm_70, sm_80 and
//! sm_90 and puts the file in the cubin's line table (`-lineinfo`).

use proptest::prelude::*;
use warpforge_ir::builder::{KernelBuilder, U32};
use warpforge_ir::random::random_kernel;
use warpforge_ir::text::locate_in_printed_text;
use warpforge_ir::{samples, verify, Access, Kernel, SourceLoc};
use warpforge_lz4::kernels::lz4::{lz4_compact_kernel, lz4_compress_kernel, lz4_decompress_kernel};
use warpforge_ptx::ast::ptx_file_name;
use warpforge_ptx::ptxas::{self, Ptxas};
use warpforge_ptx::{emit, Sm};

/// What `#[warpforge::kernel]` would build from
/// ```text
/// 10 fn saxpy(x: &mut [u32], n: u32) {
/// 11     let i = thread_index();
/// 12     if i < n {
/// 13         x[i] = x[i] + 1;
/// 14     }
/// 15 }
/// ```
fn saxpy() -> Kernel {
    let mut b = KernelBuilder::new("saxpy", 32);
    let x = b.buffer::<U32>("x", Access::ReadWrite);
    let n = b.scalar_param::<U32>("n");
    b.set_loc("src/saxpy.rs", 11, 13);
    let i = b.thread_index();
    b.set_loc("src/saxpy.rs", 12, 8);
    let n = b.param(n);
    let in_range = b.lt(i, n);
    b.set_loc("src/saxpy.rs", 12, 5);
    b.if_(in_range, |b| {
        b.set_loc("src/saxpy.rs", 13, 16);
        let old = b.load(x, i);
        let one = b.u32(1);
        let new = b.add(old, one);
        b.set_loc("src/saxpy.rs", 13, 9);
        b.store(x, i, new);
    });
    b.finish().expect("verifies")
}

/// The PTX without its `.file` and `.loc` lines (and the blank line after the `.file` table).
fn without_positions(ptx: &str) -> String {
    let mut out = String::new();
    let mut after_files = false;
    for line in ptx.lines() {
        let t = line.trim_start();
        if t.starts_with(".file ") {
            after_files = true;
            continue;
        }
        if after_files && t.is_empty() {
            after_files = false;
            continue;
        }
        after_files = false;
        if !t.starts_with(".loc ") {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn ptx(kernel: &Kernel, sm: Sm) -> String {
    emit(&verify(kernel).expect("verifies"), sm)
        .expect("emits")
        .text
}

#[test]
fn loc_lines_precede_each_statement_whose_position_changes() {
    let text = ptx(&saxpy(), Sm::Sm80);
    let expected = r#"
.file 1 "src/saxpy.rs"

.visible .entry saxpy(
    .param .u64 p_x,
    .param .u32 p_n
)
.reqntid 32, 1, 1
{
    .reg .pred %p<1>;
    .reg .b32 %r<5>;
    .reg .b64 %rd<6>;

    ld.param.u64 %rd0, [p_x];
    cvta.to.global.u64 %rd1, %rd0;
    .loc 1 11 13
    mov.u32 %r0, %tid.x;
    .loc 1 12 8
    ld.param.u32 %r1, [p_n];
    setp.lt.u32 %p0, %r0, %r1;
    .loc 1 12 5
    @!%p0 bra $L__end_if_0;
    .loc 1 13 16
    mul.wide.u32 %rd2, %r0, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r2, [%rd3];
    mov.b32 %r3, 1;
    add.u32 %r4, %r2, %r3;
    .loc 1 13 9
    mul.wide.u32 %rd4, %r0, 4;
    add.s64 %rd5, %rd1, %rd4;
    st.global.u32 [%rd5], %r4;
$L__end_if_0:
    ret;
}
"#;
    assert!(text.ends_with(expected), "{text}");
    assert!(text.contains(".address_size 64\n\n.file 1 "), "{text}");
    // Deterministic.
    assert_eq!(text, ptx(&saxpy(), Sm::Sm80));
}

#[test]
fn an_if_else_and_a_loop_restate_their_position_before_their_closing_branch() {
    let mut b = KernelBuilder::new("k", 32);
    let data = b.buffer::<U32>("data", Access::ReadWrite);
    b.set_loc("k.rs", 1, 1);
    let i = b.lane_id();
    let zero = b.u32(0);
    let first = b.eq(i, zero);
    b.set_loc("k.rs", 2, 1);
    b.if_else(
        first,
        |b| {
            b.set_loc("k.rs", 3, 1);
            b.store(data, i, i);
        },
        |b| {
            b.set_loc("k.rs", 5, 1);
            b.store(data, i, zero);
        },
    );
    b.set_loc("k.rs", 7, 1);
    b.loop_(|b| {
        b.set_loc("k.rs", 8, 1);
        b.break_();
    });
    let text = ptx(&b.finish().unwrap(), Sm::Sm70);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with(".loc") || l.starts_with("bra") || l.contains(':'))
        .filter(|l| !l.starts_with(".version") && !l.starts_with(".target"))
        .collect();
    assert_eq!(
        lines,
        [
            ".loc 1 1 1",
            ".loc 1 2 1",
            ".loc 1 3 1",
            ".loc 1 2 1", // the if's `bra $L__end_if` after the then block
            "bra $L__end_if_0;",
            "$L__else_1:",
            ".loc 1 5 1",
            "$L__end_if_0:",
            ".loc 1 7 1",
            "$L__loop_2:",
            ".loc 1 8 1",
            "bra $L__end_loop_3;",
            ".loc 1 7 1", // the loop's back edge
            "bra $L__loop_2;",
            "$L__end_loop_3:",
        ],
        "{text}"
    );
}

#[test]
fn without_positions_nothing_changes() {
    let mut kernels: Vec<Kernel> = samples::ALL.iter().map(|s| (s.build)()).collect();
    kernels.push(lz4_compress_kernel(4));
    kernels.push(lz4_decompress_kernel(4));
    kernels.push(lz4_compact_kernel(4));
    for kernel in &mut kernels {
        // The compaction kernel is written with `#[kernel]` and has Rust positions: set aside.
        kernel.locs = Default::default();
        let kernel = &*kernel;
        let mut located = kernel.clone();
        locate_in_printed_text(&mut located, "k.wfir");
        for sm in Sm::ALL {
            let plain = ptx(kernel, sm);
            assert!(!plain.contains(".loc") && !plain.contains(".file"));
            let with = ptx(&located, sm);
            assert!(with.contains(".file 1 \"k.wfir\"\n"), "{}", kernel.name);
            assert_eq!(without_positions(&with), plain, "{} {sm}", kernel.name);
        }
    }
}

#[test]
fn file_names_are_made_to_fit_ptx() {
    assert_eq!(ptx_file_name("src/saxpy.rs"), "src/saxpy.rs");
    assert_eq!(ptx_file_name("C:\\a b\\lib.rs"), "C:\\a b\\lib.rs");
    assert_eq!(ptx_file_name("q\"d.rs"), "q%22d.rs");
    assert_eq!(ptx_file_name("ü\t.rs"), "%C3%BC%09.rs");
    assert_eq!(ptx_file_name("dir\\"), "dir%5C");
}

/// The `ptxas` to test with: a failure under `WARPFORGE_REQUIRE_PTXAS=1`, else a loud skip.
fn ptxas_or_skip(test: &str) -> Option<Ptxas> {
    let found = Ptxas::find();
    if found.is_none() {
        assert!(
            !ptxas::required(),
            "{test}: {}=1 but no ptxas was found",
            ptxas::REQUIRE_ENV
        );
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "\n*** SKIPPED {test}: no ptxas found (set {}). ***\n",
            ptxas::PTXAS_ENV
        );
    }
    found
}

#[test]
fn ptxas_accepts_loc_lines_and_maps_them_for_every_target() {
    let Some(ptxas) = ptxas_or_skip("ptxas_accepts_loc_lines_and_maps_them_for_every_target")
    else {
        return;
    };
    let mut odd = saxpy();
    odd.locs
        .insert("body[0]".into(), SourceLoc::new("ünï \"q\"\\dir\\", 1, 1));
    let mut lz4 = lz4_decompress_kernel(4);
    locate_in_printed_text(&mut lz4, "kernels/lz4_decompress.wfir");
    for sm in Sm::ALL {
        for kernel in [&saxpy(), &odd, &lz4] {
            let text = ptx(kernel, sm);
            ptxas
                .assemble(&text, sm)
                .unwrap_or_else(|e| panic!("{} {sm}: {e}\n{text}", kernel.name));
            let cubin = ptxas
                .cubin_with_line_info(&text, sm)
                .unwrap_or_else(|e| panic!("{} {sm} -lineinfo: {e}", kernel.name));
            // ptxas splits the name at its last separator into a directory and a file entry of
            // the line table.
            let file = ptx_file_name(kernel.locs.files()[0]);
            let base = file.rsplit(['/', '\\']).next().unwrap_or(&file);
            assert!(base.len() > 5, "{file}");
            let found = cubin.windows(base.len()).any(|w| w == base.as_bytes());
            assert!(found, "{} {sm}: `{base}` not in the cubin", kernel.name);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Positions on every statement of a random kernel change nothing but the `.file`/`.loc` lines.
    #[test]
    fn positions_add_only_loc_lines(choices in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let kernel = random_kernel(&choices);
        let mut located = kernel.clone();
        locate_in_printed_text(&mut located, "random.wfir");
        for sm in Sm::ALL {
            let plain = ptx(&kernel, sm);
            let with = ptx(&located, sm);
            prop_assert_eq!(without_positions(&with), plain);
        }
    }
}
