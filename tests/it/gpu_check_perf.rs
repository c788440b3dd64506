//! `scripts/gpu-check.sh perf` end to end without a GPU: stand-ins for `nvidia-smi`, the bench,
//! `ncu` and `compute-sanitizer` on `PATH` (each logs how it was called), so every step of the one
//! call a lent machine's time allows runs in order, passes its arguments, and ends in the summary —
//! and a step that fails or is cut at its time limit says so while the later steps still run. What
//! the stand-ins cannot show is whether the real tools accept those arguments: that is the GPU run's.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::gpu_check_script::{gpu_check, pages, skip, temp_dir, text, xz_available};

/// Writes an executable shell script.
pub(crate) fn script(path: &Path, body: &str) {
    std::fs::write(path, format!("#!/bin/bash\n{body}")).expect("writes a stand-in");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// The stand-ins and a perf bundle in `dir`; returns (bundle, tools folder, call log).
fn stand_ins(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let (bundle, tools, log) = (dir.join("perf"), dir.join("tools"), dir.join("calls.log"));
    std::fs::create_dir_all(&bundle).expect("bundle dir");
    std::fs::create_dir_all(&tools).expect("tools dir");
    let raw = dir.join("dev.pages");
    std::fs::write(&raw, pages(8)).expect("pages");
    let xz = Command::new("xz")
        .args(["-k", "-f"])
        .arg(&raw)
        .status()
        .expect("xz runs");
    assert!(xz.success());
    std::fs::rename(dir.join("dev.pages.xz"), bundle.join("dev.pages.xz")).expect("moves the xz");
    std::fs::write(bundle.join("libnvcomp.so.6"), b"stand-in").expect("library");
    let log_s = log.display();
    script(
        &bundle.join("gpu_kernel_bench"),
        &format!(
            r#"echo "bench ${{WARPFORGE_WEBGPU_WARPS:-native}} $*" >> "{log_s}"
prev=
for a in "$@"; do [[ $prev == --json ]] && echo '{{"stand_in": true}}' > "$a"; prev=$a; done
echo "== gpu_kernel_bench summary"
echo "stand-in row: 1.00 GB/s"
"#
        ),
    );
    script(
        &tools.join("nvidia-smi"),
        "echo 'name, driver_version'\necho 'Stand-in GPU, 0.0'\n",
    );
    script(
        &tools.join("compute-sanitizer"),
        &format!(
            r#"echo "sanitizer $2 $3 $4" >> "{log_s}"
tool=$2
shift 4
"$@" > /dev/null || exit $?
[[ $tool == "${{FAKE_SANITIZER_FAILS:-}}" ]] && {{ echo "========= ERROR SUMMARY: 1 error"; exit 9; }}
[[ $tool == "${{FAKE_SANITIZER_HANGS:-}}" ]] && sleep 60
echo "========= ERROR SUMMARY: 0 errors"
"#
        ),
    );
    let rows = [
        ("sm__inst_issued.avg.per_cycle_active", "inst/cycle", "1.62"),
        ("l1tex__t_sector_hit_rate.pct", "%", "71.5"),
        (
            "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct",
            "%",
            "12.5",
        ),
    ];
    let mut csv = String::from(
        r#""ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value""#,
    );
    for (metric, unit, value) in rows {
        csv.push_str(&format!(
            "\n\"0\",\"1\",\"gpu_kernel_bench\",\"host\",\"lz4_compress_pages\",\"1\",\"7\",\"(128, 1, 1)\",\"(65536, 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"{metric}\",\"{unit}\",\"{value}\""
        ));
    }
    script(
        &tools.join("ncu"),
        &format!(
            r#"echo "ncu $*" >> "{log_s}"
[[ -n ${{FAKE_NCU_HANGS:-}} ]] && sleep 60
prev= csv= app=()
for a in "$@"; do
  [[ $prev == --log-file ]] && csv=$a
  if ((${{#app[@]}})) || [[ $a == */gpu_kernel_bench ]]; then app+=("$a"); fi
  prev=$a
done
"${{app[@]}}" > /dev/null || exit 1
cat > "$csv" <<'CSV'
{csv}
CSV
"#
        ),
    );
    (bundle, tools, log)
}

/// `perf` with the stand-ins, results in `dir/out`; `extra` variables on top.
fn perf(dir: &Path, extra: &[(&str, &str)]) -> Option<(Output, String, PathBuf)> {
    let test = "gpu_check_perf";
    if !xz_available() {
        skip(
            test,
            "xz is not installed (the perf bundle's pages travel xz-compressed)",
        );
        return None;
    }
    if !Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        skip(
            test,
            "python3 is not installed (the ncu summary is written by it)",
        );
        return None;
    }
    let (bundle, tools, log) = stand_ins(dir);
    let (out, gl) = (dir.join("out"), dir.join("gl"));
    std::fs::create_dir_all(&out).expect("out dir");
    std::fs::create_dir_all(&gl).expect("an empty GL folder: nothing is installed");
    // gpu_check clears the script's variables; the stand-ins' own ones ride on the environment.
    let mut vars: Vec<(&str, &Path)> = vec![("PERF_BIN", &bundle), ("OUT", &out), ("GL", &gl)];
    let extra_paths: Vec<(String, PathBuf)> = extra
        .iter()
        .map(|(k, v)| (k.to_string(), PathBuf::from(v)))
        .collect();
    for (k, v) in &extra_paths {
        vars.push((k.as_str(), v.as_path()));
    }
    let output = gpu_check("perf", &vars, Some(&tools));
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    Some((output, calls, out))
}

/// The summary table's row of `step`: its result, time and note.
pub(crate) fn row<'a>(summary: &'a str, step: &str) -> &'a str {
    summary
        .lines()
        .find(|l| {
            let mut words = l.split_whitespace();
            words.next() == Some(step)
                && matches!(words.next(), Some("ok" | "FAILED" | "SKIPPED" | "not"))
        })
        .unwrap_or_else(|| panic!("no summary row for {step}:\n{summary}"))
}

#[test]
fn perf_runs_every_step_in_order_and_summarizes_them() {
    let dir = temp_dir("perf-stand-ins");
    let Some((out, calls, results)) = perf(&dir, &[]) else {
        return;
    };
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    for step in [
        "nvidia-smi",
        "unpack",
        "bench",
        "ncu",
        "sanitizer-memcheck",
        "sanitizer-racecheck",
        "sanitizer-synccheck",
        "webgpu-emulated",
    ] {
        assert!(row(&stdout, step).contains(" ok "), "{step}:\n{stdout}");
    }
    assert!(row(&stdout, "vulkan").contains("SKIPPED"), "{stdout}");
    assert!(stdout.contains("gpu-check: no step failed"), "{stdout}");
    // The calls, in order: the timed bench with nvCOMP, ncu running the bench, the three tools on
    // 1 MiB of our sections, then WebGPU with warps emulated.
    let lines: Vec<&str> = calls.lines().collect();
    let bundle = dir.join("perf");
    let json = results.join("perf.json");
    assert!(
        lines[0].starts_with("bench native --pages ")
            && lines[0].contains(&format!(
                "--nvcomp {}",
                bundle.join("libnvcomp.so.6").display()
            ))
            && lines[0].contains(&format!("--json {}", json.display())),
        "{calls}"
    );
    assert!(lines[1].starts_with("ncu --clock-control none"), "{calls}");
    assert!(
        lines[2].contains("--only ours") && lines[2].contains("--mib 256"),
        "{calls}"
    );
    for (i, tool) in ["memcheck", "racecheck", "synccheck"].iter().enumerate() {
        assert_eq!(
            lines[3 + 2 * i],
            format!("sanitizer {tool} --error-exitcode 9")
        );
        assert!(
            lines[4 + 2 * i].contains("--mib 1 --sets 1 --warmup 0 --runs 1 --host-runs 1")
                && lines[4 + 2 * i].ends_with("--only ours,host,fused"),
            "{calls}"
        );
    }
    assert!(
        lines[9].starts_with("bench emulated ") && lines[9].contains("--only webgpu"),
        "{calls}"
    );
    assert_eq!(lines.len(), 10, "{calls}");
    // What comes back: the bench's JSON, ncu's CSV and its summary, the log and the table.
    assert!(std::fs::read_to_string(&json)
        .expect("perf.json")
        .contains("stand_in"));
    let ncu = std::fs::read_to_string(results.join("ncu-summary.txt")).expect("ncu summary");
    assert!(
        ncu.contains("issued/cycle/SM (max 4)")
            && ncu.contains("1.62")
            && ncu.contains("L1 sector hit %")
            && ncu.contains("stalled on L1TEX (global) %"),
        "{ncu}"
    );
    let summary = std::fs::read_to_string(results.join("perf-summary.txt")).expect("summary");
    assert!(
        summary.contains("stand-in row: 1.00 GB/s") && summary.contains("issued/cycle"),
        "{summary}"
    );
    assert!(results.join("perf.log").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_failing_or_cut_step_is_reported_and_the_later_steps_still_run() {
    let dir = temp_dir("perf-stand-ins-failing");
    let start = std::time::Instant::now();
    let Some((out, calls, _)) = perf(
        &dir,
        &[
            ("FAKE_SANITIZER_FAILS", "racecheck"),
            ("FAKE_SANITIZER_HANGS", "synccheck"),
            ("SANITIZER_TIMEOUT", "3"),
            ("FAKE_NCU_HANGS", "1"),
            ("NCU_TIMEOUT", "3"),
        ],
    ) else {
        return;
    };
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    // The hanging stand-in sleeps 60 s: the run returns long before, so the cut killed it (and its
    // children, which would otherwise hold the log's pipe open).
    let took = start.elapsed();
    assert!(
        took.as_secs() < 45,
        "took {took:?}: the cut step was not killed"
    );
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let ncu = row(&stdout, "ncu");
    assert!(
        ncu.contains("FAILED") && ncu.contains("cut at its time limit"),
        "{stdout}"
    );
    assert!(
        row(&stdout, "sanitizer-memcheck").contains(" ok "),
        "{stdout}"
    );
    let race = row(&stdout, "sanitizer-racecheck");
    assert!(
        race.contains("FAILED") && race.contains("compute-sanitizer reported errors"),
        "{stdout}"
    );
    let sync = row(&stdout, "sanitizer-synccheck");
    assert!(
        sync.contains("FAILED") && sync.contains("cut at its time limit"),
        "{stdout}"
    );
    assert!(row(&stdout, "webgpu-emulated").contains(" ok "), "{stdout}");
    assert!(
        calls
            .lines()
            .last()
            .unwrap_or("")
            .starts_with("bench emulated"),
        "{calls}"
    );
    assert!(stdout.contains("gpu-check: 3 step(s) FAILED"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}
