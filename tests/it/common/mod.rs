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

/// Names the `spirv-val` to test with (otherwise `spirv-val` on PATH).
pub const SPIRV_VAL_ENV: &str = "WARPFORGE_SPIRV_VAL";
/// `=1` makes a missing `spirv-val` a test failure instead of a skip (CI sets it).
pub const REQUIRE_SPIRV_VAL_ENV: &str = "WARPFORGE_REQUIRE_SPIRV_VAL";

/// SPIRV-Tools' `spirv-val` (`WARPFORGE_SPIRV_VAL`, else on PATH), checked to run. Without one: a
/// failure under `WARPFORGE_REQUIRE_SPIRV_VAL=1` (CI), otherwise a loud skip. Where it was found is
/// printed once per test binary.
pub fn spirv_val_or_skip(test: &str) -> Option<std::path::PathBuf> {
    static FOUND: OnceLock<Option<std::path::PathBuf>> = OnceLock::new();
    let found = FOUND.get_or_init(|| {
        let path = std::env::var_os(SPIRV_VAL_ENV)
            .map(std::path::PathBuf::from)
            .or_else(|| {
                let dirs = std::env::var_os("PATH")?;
                std::env::split_paths(&dirs)
                    .map(|dir| dir.join("spirv-val"))
                    .find(|p| p.is_file())
            })?;
        let version = std::process::Command::new(&path)
            .arg("--version")
            .output()
            .ok()
            .filter(|out| out.status.success())?;
        let version = String::from_utf8_lossy(&version.stdout);
        eprintln!(
            "using spirv-val at {} ({})",
            path.display(),
            version.lines().next().unwrap_or_default()
        );
        Some(path)
    });
    match found.clone() {
        Some(path) => Some(path),
        None if std::env::var(REQUIRE_SPIRV_VAL_ENV).is_ok_and(|v| v == "1") => panic!(
            "{test}: {REQUIRE_SPIRV_VAL_ENV}=1 but no spirv-val runs (set {SPIRV_VAL_ENV} or put \
             SPIRV-Tools' spirv-val on PATH)"
        ),
        None => {
            skip(
                test,
                &format!(
                    "no spirv-val found. Install SPIRV-Tools (apt-get install spirv-tools; \
                     ./scripts/test.sh does it as root) or set {SPIRV_VAL_ENV} to run it"
                ),
            );
            None
        }
    }
}

/// Runs `spirv_val` on a SPIR-V module for Vulkan 1.1 (SPIR-V 1.3, what warpforge writes); `Err` with
/// its diagnostics when it rejects the module.
pub fn spirv_val(spirv_val: &std::path::Path, words: &[u32]) -> Result<(), String> {
    use std::process::{Command, Stdio};
    let mut child = Command::new(spirv_val)
        .args(["--target-env", "vulkan1.1", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", spirv_val.display()))?;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(&bytes)
        .map_err(|e| format!("cannot feed spirv-val: {e}"))?;
    let out = child
        .wait_with_output()
        .map_err(|e| format!("spirv-val: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "spirv-val ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// One LZ4 block of `input` from liblz4 (`LZ4_compress_default`), for interop checks.
pub fn liblz4_compress(input: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; warpforge::kernels::lz4::lz4_compress_bound(input.len())];
    // SAFETY: both pointers are valid for the lengths passed.
    let n = unsafe {
        lz4_sys::LZ4_compress_default(
            input.as_ptr().cast(),
            out.as_mut_ptr().cast(),
            input.len() as i32,
            out.len() as i32,
        )
    };
    out.truncate(n as usize);
    out
}

/// liblz4's `LZ4_decompress_safe` into `capacity` bytes: the decoded bytes, or `None` if it rejects.
pub fn liblz4_decompress(block: &[u8], capacity: usize) -> Option<Vec<u8>> {
    let mut out = vec![0u8; capacity];
    // SAFETY: both pointers are valid for the lengths passed; liblz4 never writes past `capacity`.
    let n = unsafe {
        lz4_sys::LZ4_decompress_safe(
            block.as_ptr().cast(),
            out.as_mut_ptr().cast(),
            block.len() as i32,
            capacity as i32,
        )
    };
    (n >= 0).then(|| {
        out.truncate(n as usize);
        out
    })
}

/// A splitmix64 stream: a test's only source of randomness, so a seed reproduces its inputs.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (not 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// `n` bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// How many records of each kind (LZ4, raw, same-filled) `records` holds.
pub fn record_kinds(records: &[warpforge::archive::Record]) -> [usize; 3] {
    use warpforge::archive::Record;
    let mut k = [0; 3];
    for r in records {
        k[match r {
            Record::Lz4(_) => 0,
            Record::Raw(_) => 1,
            Record::SameFilled(_) => 2,
        }] += 1;
    }
    k
}

/// `n` pages: every `step`-th sample page, then one page of every synthetic kind (seeds from `seed`),
/// so raw, same-filled and LZ4 records all occur.
pub fn mixed_pages(n: usize, step: usize, seed: u64) -> Vec<[u8; warpforge::PAGE_SIZE]> {
    use warpforge::kernels::lz4::pages::{page, PageKind};
    let mut pages: Vec<[u8; warpforge::PAGE_SIZE]> = warpforge::sample_pages()
        .expect("the sample pages decode")
        .into_iter()
        .step_by(step)
        .take(n.saturating_sub(PageKind::ALL.len()))
        .collect();
    pages.extend(
        PageKind::ALL
            .iter()
            .enumerate()
            .map(|(i, k)| page(*k, i as u64 + seed)),
    );
    pages.truncate(n);
    pages
}

/// The default batch configuration with `batch_size` pages per batch.
pub fn batch_config(batch_size: usize) -> warpforge::gpu::GpuBatchConfig {
    warpforge::gpu::GpuBatchConfig {
        batch_size,
        ..warpforge::gpu::GpuBatchConfig::default()
    }
}

/// The launchers the CUDA host pipeline runs on without a GPU: the IR simulator, and the PTX
/// simulator at every target.
pub fn cpu_launchers() -> impl Iterator<Item = warpforge::runtime::Launcher> {
    use warpforge::runtime::{sim::SimOptions, Launcher};
    std::iter::once(Launcher::Sim(SimOptions::default()))
        .chain(warpforge::ptx::Sm::ALL.map(|sm| Launcher::PtxSim(SimOptions::default(), sm)))
}
