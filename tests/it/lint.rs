//! The linter on the repository's own kernels (IR and the PTX emitted for every target) and through
//! the command line.

use std::process::Command;
use warpforge::analysis::Rule;

use warpforge::analysis::{has_errors, lint_kernel, lint_ptx, render_text};
use warpforge::catalog;
use warpforge::ir::verify;
use warpforge::ptx::{emit, Sm};

#[test]
fn every_kernel_of_the_repository_lints_clean_as_ir_and_as_ptx() {
    for entry in catalog::entries() {
        for kernel in [entry.build(), entry.webgpu_build()] {
            let verified = verify(&kernel).expect("verifies");
            let diags = lint_kernel(&verified);
            assert!(
                !has_errors(&diags),
                "{} (IR):\n{}",
                entry.name,
                render_text(entry.name, &diags)
            );
            for sm in Sm::ALL {
                let ptx = emit(&verified, sm).expect("emits").text;
                let diags = lint_ptx(&ptx).expect("emitted PTX is PTX");
                assert!(
                    !has_errors(&diags),
                    "{} ({sm} PTX):\n{}",
                    entry.name,
                    render_text(entry.name, &diags)
                );
                assert!(
                    diags.iter().all(|d| d.rule != Rule::N001),
                    "{}: the PTX front end models all emitted PTX",
                    entry.name
                );
            }
        }
    }
}

fn warpforge(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args(args)
        .output()
        .expect("runs")
}

#[test]
fn lint_exits_1_on_errors_and_reports_json() {
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/analysis/tests/fixtures/");
    let bad = format!("{fixtures}divergent_barrier.ptx");
    let out = warpforge(&["lint", &bad]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("error[B001 divergent-barrier]") && text.contains("line 14, column 5"),
        "{text}"
    );
    let json = warpforge(&[
        "lint",
        "--format",
        "json",
        &bad,
        &format!("{fixtures}mask_mismatch.wfir"),
    ]);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).expect("one JSON array");
    let findings = json.as_array().expect("an array");
    let rules: Vec<&str> = findings
        .iter()
        .map(|f| f["rule"].as_str().expect("rule"))
        .collect();
    assert_eq!(rules, ["B001", "W002"], "{json}");
    let (b001, w002) = (&findings[0], &findings[1]);
    assert_eq!(b001["file"], bad.as_str());
    assert_eq!(b001["name"], "divergent-barrier");
    assert_eq!(b001["severity"], "error");
    assert_eq!(b001["kernel"], "divergent_barrier");
    assert_eq!(
        b001["location"],
        serde_json::json!({"line": 14, "column": 5})
    );
    assert!(b001["causes"][0]
        .as_str()
        .expect("a cause")
        .starts_with("the branch at line 13, column 5 on %p1 is divergent"));
    assert_eq!(b001["also"], serde_json::json!([]));
    assert_eq!(
        w002["location"],
        serde_json::json!({"statement": "body[3]"})
    );
    assert_eq!(w002["kernel"], "mask_mismatch");
    let clean = warpforge(&[
        "lint",
        &format!("{fixtures}clean_reduction.wfir"),
        "--kernel",
        "lz4-compress",
    ]);
    assert_eq!(
        clean.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&clean.stdout)
    );
    let explain = warpforge(&["lint", "--explain"]);
    assert!(String::from_utf8_lossy(&explain.stdout).contains("CUDA_ERROR_MISALIGNED_ADDRESS"));
}

/// `--block X`: a PTX entry without `.reqntid` linted for the block it is launched with. The
/// corpus's 1-D stencil (written for blocks of 128) has a shared race only in blocks above 128
/// threads: a warning naming the sizes without `--block`, clean with `--block 128`, an error with
/// `--block 256`.
#[test]
fn lint_block_lints_a_ptx_entry_for_the_launched_block() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/ptx/stencils.nvcc13.sm80.ptx"
    );
    let r001 = |out: &std::process::Output| {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .any(|l| l.contains("error[R001") && l.contains("`stencil1d`"))
    };
    // Without the launch, a race that some block sizes have and others do not is a warning that
    // names them and says to give the block size.
    let plain = warpforge(&["lint", file]);
    let text = String::from_utf8_lossy(&plain.stdout);
    assert_eq!(plain.status.code(), Some(0), "{text}");
    assert!(
        text.lines().any(|l| l.contains("warning[R001")
            && l.contains("`stencil1d`")
            && l.contains("`--block`")),
        "{text}"
    );
    let launched = warpforge(&["lint", "--block", "128", file]);
    assert!(
        !r001(&launched),
        "{}",
        String::from_utf8_lossy(&launched.stdout)
    );
    assert_eq!(launched.status.code(), Some(0), "no error left in the file");
    let bigger = warpforge(&["lint", "--block", "256", file]);
    assert!(r001(&bigger), "{}", String::from_utf8_lossy(&bigger.stdout));
    let bad = warpforge(&["lint", "--block", "0", file]);
    assert_eq!(
        bad.status.code(),
        Some(2),
        "a block of 0 threads is bad usage"
    );
}

#[test]
fn lint_block_takes_y_and_z_and_names_a_bad_shape() {
    // A full-mask-of-16 shuffle every thread executes: with blocks of 16 threads the mask names
    // every lane there is; with 16 × 2 the warp has 32 lanes and the mask leaves half out.
    let dir = crate::run_support::scratch("lint-block-yz");
    let ptx = dir.join("half_mask.ptx");
    std::fs::write(
        &ptx,
        ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry half_mask(.param .u64 out)\n{\n\
         .reg .b32 %r<4>;\n.reg .pred %p<2>;\n.reg .b64 %rd<4>;\n\
         mov.u32 %r1, %tid.x;\nshfl.sync.idx.b32 %r2|%p1, %r1, 0, 31, 0x0000ffff;\n\
         ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\nst.global.u32 [%rd2], %r2;\nret;\n}\n",
    )
    .expect("writes");
    let file = ptx.to_str().expect("a UTF-8 path");
    let w002_error = |out: &std::process::Output| {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .any(|l| l.contains("error[W002"))
    };
    let x = warpforge(&["lint", "--block", "16", file]);
    assert!(!w002_error(&x), "{}", String::from_utf8_lossy(&x.stdout));
    let xy = warpforge(&["lint", "--block", "16,2", file]);
    assert!(w002_error(&xy), "{}", String::from_utf8_lossy(&xy.stdout));
    let xyz = warpforge(&["lint", "--block", "8,1,2", file]);
    assert!(
        !w002_error(&xyz),
        "{}",
        String::from_utf8_lossy(&xyz.stdout)
    );
    for (bad, says) in [
        ("16,0", "at least 1"),
        ("32,32,2", "at most 1,024 threads"),
        ("1,1,65", "at most 64 in z"),
        ("4,4,4,4", "at most three numbers"),
        ("16,x", "`x` in `16,x` is not a number"),
    ] {
        let out = warpforge(&["lint", "--block", bad, file]);
        assert_eq!(out.status.code(), Some(2), "--block {bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "--block {bad}: {err}");
    }
}
