//! The one rule for tests that need a WebGPU adapter, shared by this crate's tests and the façade's:
//! an adapter that meets the kernel's requirements runs the test; without one the test fails under
//! `WARPFORGE_REQUIRE_WEBGPU=1` (CI) and otherwise skips loudly, on a line `scripts/test.sh` counts,
//! saying why and how to enable it. Not part of the product API.

use std::io::Write;

use warpforge_wgsl::Requirements;

use super::device::find_adapter;

/// Environment variable that makes a missing WebGPU adapter a test failure instead of a skip.
pub const REQUIRE_WEBGPU_VAR: &str = "WARPFORGE_REQUIRE_WEBGPU";

/// Whether tests must have a WebGPU adapter: `WARPFORGE_REQUIRE_WEBGPU=1` (CI sets it).
pub fn require_webgpu() -> bool {
    std::env::var(REQUIRE_WEBGPU_VAR).is_ok_and(|value| value == "1")
}

/// How to get an adapter on a machine without a GPU.
pub const WEBGPU_HINT: &str =
    "to run it: apt-get install mesa-vulkan-drivers libvulkan1 (Mesa lavapipe; ./scripts/test.sh does it as root)";

/// Skips `test` loudly (past libtest's capture, on a line of its own), or fails it when
/// `WARPFORGE_REQUIRE_WEBGPU=1`.
#[doc(hidden)]
pub fn skip_webgpu_test(test: &str, why: &str) {
    assert!(
        !require_webgpu(),
        "{test}: {REQUIRE_WEBGPU_VAR}=1 but {why}"
    );
    let _ = writeln!(
        std::io::stderr(),
        "\n*** SKIPPED {test}: {why}; {WEBGPU_HINT} ***\n"
    );
}

/// Whether an adapter can run a kernel with `requirements` (found without opening a device); if not,
/// [`skip_webgpu_test`] with the reason.
#[doc(hidden)]
pub fn webgpu_or_skip(test: &str, requirements: &Requirements) -> bool {
    match find_adapter(requirements) {
        Ok(_) => true,
        Err(why) => {
            skip_webgpu_test(test, &format!("no WebGPU adapter can run it ({why})"));
            false
        }
    }
}
