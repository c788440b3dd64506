//! A crate outside the workspace that uses warpforge as a user would (`tests/fixtures/macro-user`:
//! kernels written with `#[kernel]`, PTX and WGSL emitted by its build.rs, run on `sim`, `ptx-sim` and
//! `webgpu` against Rust references, linted) passes its own tests.
//!
//! Its `cargo test` runs with this build's target directory, so the dependencies already built for
//! the workspace's tests are reused, and with this process's environment (`WARPFORGE_REQUIRE_WEBGPU`,
//! Vulkan's `VK_ICD_FILENAMES` for lavapipe, ...): without an adapter its WebGPU test skips loudly, and
//! under `WARPFORGE_REQUIRE_WEBGPU=1` (CI) it fails.

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

/// The target directory this test was built in: the executable is `<target>/<profile>/deps/<name>`
/// (or `<target>/<triple>/<profile>/deps/<name>`, whose `<target>/<triple>` serves as well).
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    exe.ancestors()
        .nth(3)
        .expect("<target>/<profile>/deps/<test>")
        .to_path_buf()
}

#[test]
fn the_macro_user_fixture_passes_its_tests() {
    let manifest = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/macro-user/Cargo.toml"
    );
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let target = target_dir();
    let started = Instant::now();
    let out = Command::new(cargo)
        .args(["test", "--locked", "--manifest-path", manifest])
        .env("CARGO_TARGET_DIR", &target)
        // Show the fixture's lines (which backend ran on which device, skips) in this test's output.
        .args(["--", "--nocapture"])
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "`cargo test --manifest-path {manifest}` (target {}) failed: {}\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}",
        target.display(),
        out.status
    );
    assert!(
        stdout.contains("test result: ok. 6 passed"),
        "the fixture's tests did not all run:\n{stdout}"
    );
    // Past libtest's capture: which backends ran where, and any loud skip of the fixture's tests.
    let mut err = std::io::stderr();
    let _ = writeln!(
        err,
        "macro-user fixture: built and tested in {:.1}s (target {})",
        started.elapsed().as_secs_f64(),
        target.display()
    );
    for line in stderr.lines().chain(stdout.lines()) {
        if line.contains("matches the Rust reference") || line.contains("*** SKIPPED") {
            let _ = writeln!(err, "  {line}");
        }
    }
}
