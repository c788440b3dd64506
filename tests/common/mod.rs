//! Helpers shared by the integration tests (each test binary uses some of them).
#![allow(dead_code)]

use std::io::Write;
use std::sync::OnceLock;

use warpforge::ptx::ptxas::{self, Ptxas};

/// The `ptxas` to test with. Without one: a failure under `WARPFORGE_REQUIRE_PTXAS=1` (CI), otherwise
/// a loud skip. Where it was found is printed once per test binary.
pub fn ptxas_or_skip(test: &str) -> Option<Ptxas> {
    static FOUND: OnceLock<Option<Ptxas>> = OnceLock::new();
    let found = FOUND.get_or_init(|| {
        let p = Ptxas::find()?;
        let version = p.version().unwrap_or_default();
        eprintln!("using ptxas at {} ({version})", p.path().display());
        Some(p)
    });
    match found.clone() {
        Some(p) => Some(p),
        None if ptxas::required() => panic!(
            "{test}: {}=1 but no ptxas was found (set {} or put ptxas on PATH)",
            ptxas::REQUIRE_ENV,
            ptxas::PTXAS_ENV
        ),
        None => {
            // Straight to the stderr handle: libtest captures `eprintln!`, and a skip must be seen.
            let _ = writeln!(
                std::io::stderr(),
                "\n*** SKIPPED {test}: no ptxas found. Set {} to NVIDIA's ptxas (pip wheel nvidia-cuda-nvcc-cu12) to run it. ***\n",
                ptxas::PTXAS_ENV
            );
            None
        }
    }
}

/// Whether an adapter can run a kernel with `requirements`; otherwise a failure under
/// `WARPFORGE_REQUIRE_WEBGPU=1` (CI) or a loud skip saying why and how to enable the test (the runtime's
/// one rule, shared with its own tests).
pub fn webgpu_or_skip(test: &str, requirements: &warpforge::wgsl::Requirements) -> bool {
    warpforge::runtime::webgpu::webgpu_or_skip(test, requirements)
}

/// [`webgpu_or_skip`] for the LZ4 kernels, the most demanding of the repository (64-bit integers,
/// workgroup memory): every WebGPU test goes through one of the two.
pub fn adapter_or_skip(test: &str) -> bool {
    let requirements = warpforge::auto::webgpu_requirements().expect("the LZ4 kernels emit WGSL");
    webgpu_or_skip(test, &requirements)
}

/// Says loudly, past libtest's capture, that `test` did not run and why (`scripts/test.sh` counts these
/// lines as skips).
pub fn skip(test: &str, why: &str) {
    let _ = writeln!(std::io::stderr(), "\n*** SKIPPED {test}: {why} ***\n");
}

/// Prints `line` past libtest's capture, so the log shows what a test measured or used.
pub fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}
