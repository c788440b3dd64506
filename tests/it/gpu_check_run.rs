//! `scripts/gpu-check.sh run` without a GPU: stand-ins for the bundle's binaries (`warpforge`,
//! `gpu_batch`, `test_it`), `nvidia-smi` and `compute-sanitizer`, each logging its call, so that the
//! bounds that keep the run inside one of the device machine's 10-minute commands are seen to work:
//! a hung step (a program, or the CLI round trip, a shell function) is cut at `STEP_TIMEOUT` and the
//! later steps still run; once `RUN_BUDGET` is spent the rest are skipped, saying so, and the table
//! still comes back. Whether the real binaries pass on a GPU is the GPU run's.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use crate::gpu_check_perf::{row, script};
use crate::gpu_check_script::{gpu_check, pages, skip, temp_dir, text};

/// The steps of `run`, in order (sanitizer steps last).
const STEPS: [&str; 17] = [
    "nvidia-smi",
    "info",
    "tests",
    "doc-snippets",
    "run-cuda-vs-sim",
    "differential-cuda",
    "ptx-corpus-cuda",
    "corpus-cuda",
    "float-cuda",
    "device-functions-cuda",
    "batch",
    "batch-no-async",
    "cli-roundtrip",
    "sanitizer-memcheck",
    "sanitizer-racecheck",
    "sanitizer-synccheck",
    "sanitizer-registered",
];

/// A `run` bundle of stand-ins in `dir` (a call hangs for 60 s when its arguments match the regex
/// in `FAKE_HANG`); returns (bundle, tools folder, call log).
fn stand_ins(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let (bin, tools, log) = (dir.join("bin"), dir.join("tools"), dir.join("calls.log"));
    std::fs::create_dir_all(&bin).expect("bundle dir");
    std::fs::create_dir_all(&tools).expect("tools dir");
    std::fs::write(bin.join("dev.pages"), pages(8)).expect("pages");
    let log_s = log.display();
    let hang = r#"[[ -n ${FAKE_HANG:-} && "$*" =~ $FAKE_HANG ]] && sleep 60"#;
    for name in ["test_it", "gpu_batch"] {
        script(
            &bin.join(name),
            &format!("echo \"{name} $*\" >> \"{log_s}\"\n{hang}\necho \"{name}: ok\"\n"),
        );
    }
    // The CLI: its "archive" is the pages themselves, so the round trip's comparisons hold.
    script(
        &bin.join("warpforge"),
        &format!(
            r#"echo "warpforge $*" >> "{log_s}"
{hang}
case $1 in
  compress|decompress) cp "${{@: -2:1}}" "${{@: -1}}" ;;
  *) echo "warpforge stand-in" ;;
esac
"#
        ),
    );
    script(&tools.join("nvidia-smi"), "echo 'Stand-in GPU, 0.0'\n");
    script(
        &tools.join("compute-sanitizer"),
        &format!("echo \"sanitizer $2\" >> \"{log_s}\"\nshift 4\n\"$@\" > /dev/null\n"),
    );
    (bin, tools, log)
}

/// `run` with the stand-ins and `vars` (the stand-ins' own ride on the environment too): the
/// output, the call log and how long it took. `None` (said loudly) without coreutils' `timeout`,
/// which the script bounds its steps with (without it they run unbounded, by design).
fn run(dir: &Path, vars: &[(&str, &str)]) -> Option<(Output, String, Duration)> {
    let has_timeout = std::process::Command::new("timeout")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_timeout {
        skip(
            "gpu_check_run",
            "coreutils' `timeout` is not installed (the script bounds its steps with it)",
        );
        return None;
    }
    let (bin, tools, log) = stand_ins(dir);
    let out = dir.join("out");
    std::fs::create_dir_all(&out).expect("out dir");
    let values: Vec<(&str, PathBuf)> = vars.iter().map(|(k, v)| (*k, PathBuf::from(v))).collect();
    let mut all: Vec<(&str, &Path)> = vec![("BIN", &bin), ("OUT", &out)];
    all.extend(values.iter().map(|(k, v)| (*k, v.as_path())));
    let start = Instant::now();
    let output = gpu_check("run", &all, Some(&tools));
    let took = start.elapsed();
    Some((
        output,
        std::fs::read_to_string(&log).unwrap_or_default(),
        took,
    ))
}

#[test]
fn a_hung_step_is_cut_at_its_bound_and_the_later_steps_still_run() {
    let dir = temp_dir("run-stand-ins-hung");
    // One program (the differential test) and the CLI round trip (a function of the script) hang.
    let Some((out, calls, took)) = run(
        &dir,
        &[
            ("FAKE_HANG", "differential|^compress --backend cuda"),
            ("STEP_TIMEOUT", "3"),
        ],
    ) else {
        return;
    };
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    // Both stand-ins sleep 60 s: returning well before means the cut killed them and their
    // children (which would otherwise hold the log's pipe open).
    assert!(
        took.as_secs() < 45,
        "took {took:?}: a cut step was not killed\n{stdout}"
    );
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    for step in STEPS {
        let line = row(&stdout, step);
        if step == "differential-cuda" || step == "cli-roundtrip" {
            assert!(
                line.contains("FAILED") && line.contains("cut at its time limit"),
                "{step}:\n{stdout}"
            );
        } else {
            assert!(line.contains(" ok "), "{step}:\n{stdout}");
        }
    }
    assert!(stdout.contains("gpu-check: 2 step(s) FAILED"), "{stdout}");
    // The last step ran after the cut ones: the sanitizer around the registered-pages test.
    let last = calls.lines().last().unwrap_or("");
    assert!(
        last.contains("registered_pages_round_trip_on_cuda"),
        "{calls}"
    );
    let summary =
        std::fs::read_to_string(dir.join("out/gpu-check-summary.txt")).expect("the table");
    assert!(summary.contains("cut at its time limit"), "{summary}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_steps_past_the_run_budget_are_skipped_and_the_table_still_comes_back() {
    let dir = temp_dir("run-stand-ins-budget");
    // Every test_it call hangs and is cut at 4 s: a 30 s budget is spent after a few of them.
    let Some((out, _calls, took)) = run(
        &dir,
        &[
            (
                "FAKE_HANG",
                "^(gpu_batch::|reference|cli_run|differential|ptx_corpus|corpus)",
            ),
            ("STEP_TIMEOUT", "4"),
            ("RUN_BUDGET", "30"),
        ],
    ) else {
        return;
    };
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(
        took.as_secs() < 45,
        "took {took:?}: past the budget\n{stdout}"
    );
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(row(&stdout, "info").contains(" ok "), "{stdout}");
    assert!(
        row(&stdout, "tests").contains("cut at its time limit"),
        "{stdout}"
    );
    // The steps after the budget ran out: skipped, each saying why (none of them ran).
    for step in ["batch", "cli-roundtrip", "sanitizer-registered"] {
        let line = row(&stdout, step);
        assert!(
            line.contains("SKIPPED") && line.contains("no time left: 30 s of RUN_BUDGET spent"),
            "{step}:\n{stdout}"
        );
    }
    let summary =
        std::fs::read_to_string(dir.join("out/gpu-check-summary.txt")).expect("the table");
    assert!(summary.contains("no time left"), "{summary}");
    let _ = std::fs::remove_dir_all(&dir);
}
