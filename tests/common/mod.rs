//! Helpers shared by the integration tests.

use warpforge::ptx::ptxas::{self, Ptxas};

/// The `ptxas` to test with. Without one: a failure under `WARPFORGE_REQUIRE_PTXAS=1` (CI), otherwise
/// a loud skip.
pub fn ptxas_or_skip(test: &str) -> Option<Ptxas> {
    match Ptxas::find() {
        Some(p) => {
            eprintln!(
                "{test}: using ptxas at {} ({})",
                p.path().display(),
                p.version().unwrap_or_default()
            );
            Some(p)
        }
        None if ptxas::required() => panic!(
            "{test}: {}=1 but no ptxas was found (set {} or put ptxas on PATH)",
            ptxas::REQUIRE_ENV,
            ptxas::PTXAS_ENV
        ),
        None => {
            eprintln!(
                "\n*** SKIPPED {test}: no ptxas found. Set {} to NVIDIA's ptxas (pip wheel nvidia-cuda-nvcc-cu12) to run it. ***\n",
                ptxas::PTXAS_ENV
            );
            None
        }
    }
}
