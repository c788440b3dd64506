//! `--accept FILE` on `warpforge lint` and `warpforge run`: accepted findings are still said, marked
//! with the entry that accepts them, and do not fail; new findings still do; an entry that matches
//! nothing is said; a malformed file is a usage error naming its file and line. On the planted race
//! of the lint corpus (`bug_r001_reduce_no_barrier`, nvcc 13, launched with 256 threads).

use std::process::Command;

use crate::run_support::{scratch, text};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_warpforge"))
}

const PTX: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/analysis/tests/corpus/ptx/bug_r001_reduce_no_barrier.nvcc13.sm80.ptx"
);

fn lint(accept: Option<&std::path::Path>) -> (Option<i32>, String, String) {
    let mut c = bin();
    c.args(["lint", "--block", "256", PTX]);
    if let Some(a) = accept {
        c.arg("--accept").arg(a);
    }
    let out = c.output().expect("runs");
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

fn run(accept: Option<&std::path::Path>, input: &std::path::Path) -> (Option<i32>, String) {
    let mut c = bin();
    c.args(["run", PTX, "--backend", "sim", "--block", "256"])
        .args([
            "--dynamic-shared",
            "1024",
            "--arg",
            "1=zeros:4",
            "--arg",
            "2=256",
        ])
        .arg(format!("--arg=0=@{}", input.display()));
    if let Some(a) = accept {
        c.arg("--accept").arg(a);
    }
    let out = c.output().expect("runs");
    (out.status.code(), text(&out.stderr))
}

#[test]
fn lint_accepts_a_known_finding_and_names_a_stale_entry() {
    let dir = scratch("accept-lint");
    let (code, stdout, _) = lint(None);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(stdout.contains("error[R001 shared-race] kernel `bug_r001_reduce_no_barrier`, line 63"));
    let file = dir.join("accepted.txt");
    std::fs::write(
        &file,
        "# the reduction is known to race; fixed in the next release\n\
         shared-race bug_r001_reduce_no_barrier line:63\n\
         W002 bug_r001_reduce_no_barrier *\n",
    )
    .unwrap();
    let (code, stdout, stderr) = lint(Some(&file));
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!(
            "note[R001 shared-race] kernel `bug_r001_reduce_no_barrier`, line 63, column 2: \
             accepted ({}:2, was error)",
            file.display()
        )),
        "{stdout}"
    );
    assert!(
        stderr.contains(&format!(
            "warning: {}:3: accepted finding `W002 bug_r001_reduce_no_barrier *` matched no finding",
            file.display()
        )),
        "{stderr}"
    );
    // Another line is another finding: not accepted.
    std::fs::write(&file, "R001 bug_r001_reduce_no_barrier line:64\n").unwrap();
    assert_eq!(lint(Some(&file)).0, Some(1));
}

#[test]
fn run_accepts_known_sanitizer_findings_and_fails_on_others() {
    let dir = scratch("accept-run");
    let input = dir.join("in.bin");
    std::fs::write(&input, 1.0f32.to_le_bytes().repeat(256)).unwrap();
    let (code, stderr) = run(None, &input);
    assert_eq!(code, Some(1), "{stderr}");
    let file = dir.join("accepted.txt");
    std::fs::write(&file, "shared-race bug_r001_reduce_no_barrier line:63\n").unwrap();
    let (code, stderr) = run(Some(&file), &input);
    assert_eq!(
        code,
        Some(1),
        "the race at line 65 is not accepted: {stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "accepted ({}:1): error[racecheck/shared-race] line 63",
            file.display()
        )),
        "{stderr}"
    );
    std::fs::write(
        &file,
        "shared-race bug_r001_reduce_no_barrier line:63\nshared-race bug_r001_reduce_no_barrier *\n",
    )
    .unwrap();
    let (code, stderr) = run(Some(&file), &input);
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn a_malformed_or_missing_accept_file_is_a_usage_error_naming_where() {
    let dir = scratch("accept-bad");
    let file = dir.join("bad.txt");
    std::fs::write(
        &file,
        "R001 k line:1\nR001 only-two\nR001 k line:x\nR001 k nowhere\n",
    )
    .unwrap();
    let (code, _, stderr) = lint(Some(&file));
    assert_eq!(code, Some(2), "{stderr}");
    for (line, what) in [
        (2, "expected `RULE KERNEL WHERE`"),
        (3, "`line:x`"),
        (4, "`nowhere`"),
    ] {
        let want = format!("error: {}:{line}: {what}", file.display());
        assert!(stderr.contains(&want), "`{want}` in {stderr}");
    }
    let input = dir.join("in.bin");
    std::fs::write(&input, [0u8; 1024]).unwrap();
    let (code, stderr) = run(Some(&file), &input);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("{}:2: expected", file.display())),
        "{stderr}"
    );
    let missing = dir.join("missing.txt");
    let (code, _, stderr) = lint(Some(&missing));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("cannot read it"), "{stderr}");
}
