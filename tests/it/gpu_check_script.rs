//! `scripts/gpu-check.sh`, the one command run unattended on a lent GPU machine: its corpus checks and
//! the bundling of the pages into `$BIN/` work without cargo, a GPU or `../shared`, and a missing
//! corpus or pages file stops it at once with exit status 2 and a message saying how to fix it. So do
//! a bad mode, `perf-build` without the nvCOMP wheels and `perf` without its bundle.
#![cfg(unix)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const PAGE_SIZE: usize = 4096;

/// Says loudly, past libtest's capture, that `test` did not run and why (`scripts/test.sh` counts these
/// lines as skips).
pub(crate) fn skip(test: &str, why: &str) {
    let _ = writeln!(std::io::stderr(), "\n*** SKIPPED {test}: {why} ***\n");
}

/// A fresh temp folder of this test process.
pub(crate) fn temp_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("warpforge-gpu-check-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// `bash scripts/gpu-check.sh MODE` with none of the script's variables inherited, then `vars`.
pub(crate) fn gpu_check(mode: &str, vars: &[(&str, &Path)], path_prefix: Option<&Path>) -> Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gpu-check.sh");
    let mut cmd = Command::new("bash");
    cmd.arg(&script).arg(mode);
    for var in [
        "PAGES",
        "CORPUS",
        "BIN",
        "OUT",
        "MIB",
        "SANITIZER",
        "PERF_BIN",
        "WHEELS",
        "NCU",
        "GL",
        "BENCH_TIMEOUT",
        "NCU_TIMEOUT",
        "SANITIZER_TIMEOUT",
        "WEBGPU_TIMEOUT",
        "STEP_TIMEOUT",
        "RUN_BUDGET",
        "VK_DRIVER_FILES",
        "WARPFORGE_WEBGPU_WARPS",
    ] {
        cmd.env_remove(var);
    }
    for (key, value) in vars {
        cmd.env(key, value);
    }
    if let Some(prefix) = path_prefix {
        let path = std::env::var("PATH").unwrap_or_default();
        cmd.env("PATH", format!("{}:{path}", prefix.display()));
    }
    cmd.output().expect("bash runs scripts/gpu-check.sh")
}

pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Pages of different kinds: zero, same-filled, counting bytes, pseudo-random.
pub(crate) fn pages(count: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(count * PAGE_SIZE);
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for p in 0..count {
        for i in 0..PAGE_SIZE {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            out.push(match p % 4 {
                0 => 0,
                1 => 0xa5,
                2 => (i % 251) as u8,
                _ => x as u8,
            });
        }
    }
    out
}

pub(crate) fn xz_available() -> bool {
    Command::new("xz")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn bundle_without_a_corpus_stops_with_status_2_and_says_how_to_fix_it() {
    let dir = temp_dir("no-corpus");
    let corpus = dir.join("no-such-corpus.pages.xz");
    let bin = dir.join("bin");
    let out = gpu_check("bundle", &[("CORPUS", &corpus), ("BIN", &bin)], None);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&corpus.display().to_string()),
        "names the missing path: {err}"
    );
    assert!(
        err.contains("set CORPUS") && err.contains("set PAGES") && err.contains("4 KiB pages"),
        "says how to fix it: {err}"
    );
    assert!(!bin.exists(), "nothing was bundled into {}", bin.display());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn build_without_a_corpus_stops_before_cargo() {
    let dir = temp_dir("build-no-corpus");
    let corpus = dir.join("no-such-corpus.pages.xz");
    let bin = dir.join("bin");
    // A `cargo` first on PATH that only leaves a mark: it must never run.
    let fake = dir.join("fake-path");
    std::fs::create_dir_all(&fake).expect("dir");
    let mark = dir.join("cargo-ran");
    let cargo = fake.join("cargo");
    std::fs::write(
        &cargo,
        format!("#!/bin/sh\ntouch '{}'\nexit 0\n", mark.display()),
    )
    .expect("write");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).expect("chmod");

    let out = gpu_check("build", &[("CORPUS", &corpus), ("BIN", &bin)], Some(&fake));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&corpus.display().to_string()), "{err}");
    assert!(err.contains("Nothing was built"), "{err}");
    assert!(!mark.exists(), "cargo ran although the corpus is missing");
    assert!(!bin.exists(), "nothing was bundled into {}", bin.display());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bundle_unpacks_an_xz_corpus_into_bin() {
    let test = "bundle_unpacks_an_xz_corpus_into_bin";
    if !xz_available() {
        skip(test, "no `xz` on PATH (install xz-utils)");
        return;
    }
    let dir = temp_dir("xz-corpus");
    let input = pages(5);
    let plain = dir.join("small.pages");
    std::fs::write(&plain, &input).expect("write");
    let status = Command::new("xz")
        .arg("-kq")
        .arg(&plain)
        .status()
        .expect("xz runs");
    assert!(status.success(), "xz compresses {}", plain.display());
    let corpus = dir.join("small.pages.xz");
    assert!(corpus.exists());

    let bin = dir.join("bin");
    let out = gpu_check("bundle", &[("CORPUS", &corpus), ("BIN", &bin)], None);
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let bundled = std::fs::read(bin.join("dev.pages")).expect("bin/dev.pages was written");
    assert!(bundled == input, "the bundled pages are the input bytes");
    assert!(
        text(&out.stdout).contains("5 pages"),
        "{}",
        text(&out.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bundle_refuses_a_file_that_is_not_whole_pages() {
    let dir = temp_dir("partial-page");
    let corpus = dir.join("odd.pages");
    std::fs::write(&corpus, vec![1u8; PAGE_SIZE + 100]).expect("write");
    let bin = dir.join("bin");
    let out = gpu_check("bundle", &[("CORPUS", &corpus), ("BIN", &bin)], None);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("not a whole, non-zero number of 4 KiB pages"),
        "{err}"
    );
    assert!(!bin.join("dev.pages").exists(), "no partial bundle is left");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_without_pages_says_to_build_first() {
    let dir = temp_dir("run-no-pages");
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("dir");
    let out = gpu_check("run", &[("BIN", &bin)], None);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&bin.join("dev.pages").display().to_string()),
        "names the missing pages file: {err}"
    );
    assert!(
        err.contains("scripts/gpu-check.sh build") && err.contains("set PAGES"),
        "says to build first or set PAGES: {err}"
    );
    assert!(
        std::fs::read_dir(&bin).expect("bin").next().is_none(),
        "run wrote nothing into BIN"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `cargo` first on PATH that only leaves a mark (it must never run): (PATH prefix, mark file).
fn fake_cargo(dir: &Path) -> (PathBuf, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let fake = dir.join("fake-path");
    std::fs::create_dir_all(&fake).expect("dir");
    let mark = dir.join("cargo-ran");
    let cargo = fake.join("cargo");
    std::fs::write(
        &cargo,
        format!("#!/bin/sh\ntouch '{}'\nexit 0\n", mark.display()),
    )
    .expect("write");
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    (fake, mark)
}

#[test]
fn an_unknown_mode_is_a_usage_error_naming_the_modes() {
    let out = gpu_check("no-such-mode", &[], None);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("usage:") && err.contains("perf-build|perf"),
        "{err}"
    );
}

#[test]
fn perf_build_without_the_nvcomp_wheels_stops_before_cargo_and_says_how_to_get_them() {
    let dir = temp_dir("perf-no-wheels");
    let wheels = dir.join("wheels");
    std::fs::create_dir_all(&wheels).expect("dir");
    let perf_bin = dir.join("perf");
    let (fake, mark) = fake_cargo(&dir);
    let out = gpu_check(
        "perf-build",
        &[("WHEELS", &wheels), ("PERF_BIN", &perf_bin)],
        Some(&fake),
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&wheels.display().to_string()), "{err}");
    assert!(
        err.contains("pip download") && err.contains("nvidia-libnvcomp-cu13==6.0"),
        "says how to get the wheels: {err}"
    );
    assert!(err.contains("Nothing was built"), "{err}");
    assert!(!mark.exists(), "cargo ran although the wheels are missing");
    assert!(!perf_bin.exists(), "nothing was bundled");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn perf_without_its_bundle_says_to_run_perf_build_first() {
    let dir = temp_dir("perf-no-bundle");
    let perf_bin = dir.join("perf");
    let out = gpu_check("perf", &[("PERF_BIN", &perf_bin)], None);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&perf_bin.join("gpu_kernel_bench").display().to_string())
            && err.contains("libnvcomp.so.6"),
        "names what is missing: {err}"
    );
    assert!(err.contains("scripts/gpu-check.sh perf-build"), "{err}");
    assert!(!perf_bin.exists(), "perf wrote nothing");
    let _ = std::fs::remove_dir_all(&dir);
}
