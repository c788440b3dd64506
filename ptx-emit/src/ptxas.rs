//! NVIDIA's `ptxas`: finding it, assembling emitted PTX with it, and parsing its `-v` resource report.
//!
//! `ptxas` assembles PTX for any `sm_XX` without a GPU. It is found through `WARPFORGE_PTXAS` (a path),
//! then `PATH`, then `$CUDA_HOME/bin` and `/usr/local/cuda/bin`. One way to get it on any Linux x86-64
//! machine is the PyPI wheel `nvidia-cuda-nvcc-cu12`, which holds `nvidia/cuda_nvcc/bin/ptxas`.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::Sm;

/// Environment variable naming the `ptxas` executable.
pub const PTXAS_ENV: &str = "WARPFORGE_PTXAS";
/// Environment variable that, set to `1`, turns a missing `ptxas` into a test failure (CI sets it).
pub const REQUIRE_ENV: &str = "WARPFORGE_REQUIRE_PTXAS";

/// Whether `WARPFORGE_REQUIRE_PTXAS=1` is set.
pub fn required() -> bool {
    std::env::var(REQUIRE_ENV).is_ok_and(|v| v == "1")
}

/// What `ptxas -v` reports for one entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourceReport {
    /// The entry.
    pub entry: String,
    /// Registers per thread.
    pub registers: u32,
    /// Static shared memory per block, bytes.
    pub shared_bytes: u32,
    /// Stack frame per thread, bytes.
    pub stack_frame_bytes: u32,
    /// Bytes spilled to local memory.
    pub spill_store_bytes: u32,
    /// Bytes reloaded from spills.
    pub spill_load_bytes: u32,
    /// Named barriers used.
    pub barriers: u32,
}

impl fmt::Display for ResourceReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} registers, {} bytes shared, {} bytes stack, {} bytes spill stores, {} bytes spill loads, {} barriers",
            self.entry,
            self.registers,
            self.shared_bytes,
            self.stack_frame_bytes,
            self.spill_store_bytes,
            self.spill_load_bytes,
            self.barriers
        )
    }
}

/// A failed `ptxas` run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PtxasError {
    /// The executable could not be run.
    Launch {
        /// The path tried.
        path: PathBuf,
        /// The OS error.
        error: String,
    },
    /// `ptxas` rejected the PTX.
    Rejected {
        /// The target.
        target: Sm,
        /// What `ptxas` printed.
        output: String,
    },
    /// `ptxas` accepted the PTX but its report could not be read.
    Report {
        /// What was missing.
        detail: String,
        /// What `ptxas` printed.
        output: String,
    },
}

impl fmt::Display for PtxasError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PtxasError::Launch { path, error } => {
                write!(f, "cannot run {}: {error}", path.display())
            }
            PtxasError::Rejected { target, output } => {
                write!(f, "ptxas rejected the PTX for {target}:\n{output}")
            }
            PtxasError::Report { detail, output } => {
                write!(f, "cannot read the ptxas report ({detail}):\n{output}")
            }
        }
    }
}

impl std::error::Error for PtxasError {}

/// A `ptxas` executable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ptxas {
    path: PathBuf,
}

impl Ptxas {
    /// Finds `ptxas` (see the module docs for where it looks).
    pub fn find() -> Option<Ptxas> {
        if let Some(path) = std::env::var_os(PTXAS_ENV) {
            let path = PathBuf::from(path);
            return path.is_file().then_some(Ptxas { path });
        }
        let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect())
            .unwrap_or_default();
        if let Some(cuda) = std::env::var_os("CUDA_HOME") {
            dirs.push(Path::new(&cuda).join("bin"));
        }
        dirs.push(PathBuf::from("/usr/local/cuda/bin"));
        dirs.into_iter()
            .map(|d| d.join("ptxas"))
            .find(|p| p.is_file())
            .map(|path| Ptxas { path })
    }

    /// A `ptxas` at an explicit path.
    pub fn at(path: impl Into<PathBuf>) -> Ptxas {
        Ptxas { path: path.into() }
    }

    /// The executable's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The last line of `ptxas --version` (e.g. `Build cuda_12.8…`), for logs.
    pub fn version(&self) -> Result<String, PtxasError> {
        let out = Command::new(&self.path)
            .arg("--version")
            .output()
            .map_err(|e| PtxasError::Launch {
                path: self.path.clone(),
                error: e.to_string(),
            })?;
        let text = String::from_utf8_lossy(&out.stdout);
        Ok(text
            .lines()
            .filter(|l| l.contains("release"))
            .collect::<Vec<_>>()
            .join(" "))
    }

    /// Assembles `ptx` for `target` with `-v` and returns the report of its entry.
    pub fn assemble(&self, ptx: &str, target: Sm) -> Result<ResourceReport, PtxasError> {
        let (text, _) = self.run(ptx, target, &["-v"])?;
        parse_report(&text).map_err(|detail| PtxasError::Report {
            detail,
            output: text,
        })
    }

    /// Assembles `ptx` for `target` with `-lineinfo` (the `.loc` lines become the cubin's line table,
    /// what cuda-gdb and Nsight read) and returns the cubin.
    pub fn cubin_with_line_info(&self, ptx: &str, target: Sm) -> Result<Vec<u8>, PtxasError> {
        Ok(self.run(ptx, target, &["-lineinfo"])?.1)
    }

    /// Runs `ptxas -arch=<target> <args> in.ptx -o out.cubin`: what it printed and the cubin.
    fn run(&self, ptx: &str, target: Sm, args: &[&str]) -> Result<(String, Vec<u8>), PtxasError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let stem = std::env::temp_dir().join(format!("warpforge-ptxas-{}-{n}", std::process::id()));
        let (input, output) = (stem.with_extension("ptx"), stem.with_extension("cubin"));
        let io = |e: std::io::Error| PtxasError::Launch {
            path: input.clone(),
            error: e.to_string(),
        };
        std::fs::write(&input, ptx).map_err(io)?;
        let run = Command::new(&self.path)
            .arg(format!("-arch={}", target.name()))
            .args(args)
            .arg(&input)
            .arg("-o")
            .arg(&output)
            .output();
        let cubin = std::fs::read(&output).unwrap_or_default();
        let _ = std::fs::remove_file(&input);
        let _ = std::fs::remove_file(&output);
        let out = run.map_err(|e| PtxasError::Launch {
            path: self.path.clone(),
            error: e.to_string(),
        })?;
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if !out.status.success() {
            return Err(PtxasError::Rejected {
                target,
                output: text,
            });
        }
        Ok((text, cubin))
    }
}

/// Parses the `-v` output of `ptxas` for a module with one entry.
pub fn parse_report(text: &str) -> Result<ResourceReport, String> {
    let mut report = ResourceReport::default();
    let (mut saw_frame, mut saw_used) = (false, false);
    for line in text.lines() {
        if let Some(rest) = line.split("Function properties for ").nth(1) {
            report.entry = rest.trim().to_owned();
        } else if line.contains("bytes stack frame") {
            saw_frame = true;
            for part in line.split(',') {
                let n = leading_number(part);
                if part.contains("stack frame") {
                    report.stack_frame_bytes = n;
                } else if part.contains("spill stores") {
                    report.spill_store_bytes = n;
                } else if part.contains("spill loads") {
                    report.spill_load_bytes = n;
                }
            }
        } else if let Some(rest) = line.split("Used ").nth(1) {
            saw_used = true;
            for part in rest.split(',') {
                let n = leading_number(part.trim_start().trim_start_matches("used "));
                if part.contains("registers") {
                    report.registers = n;
                } else if part.contains("barriers") {
                    report.barriers = n;
                } else if part.contains("smem") {
                    report.shared_bytes = n;
                }
            }
        }
    }
    match (report.entry.is_empty(), saw_frame, saw_used) {
        (false, true, true) => Ok(report),
        (true, _, _) => Err("no `Function properties for` line".into()),
        (_, false, _) => Err("no stack frame / spill line".into()),
        _ => Err("no `Used N registers` line".into()),
    }
}

fn leading_number(text: &str) -> u32 {
    let digits: String = text
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_ptxas_12_report() {
        let text = "ptxas info    : 0 bytes gmem\n\
            ptxas info    : Compiling entry function 'k' for 'sm_70'\n\
            ptxas info    : Function properties for k\n    \
            16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n\
            ptxas info    : Used 10 registers, used 1 barriers, 256 bytes smem, 361 bytes cmem[0]\n";
        let r = parse_report(text).expect("parses");
        assert_eq!(
            r,
            ResourceReport {
                entry: "k".into(),
                registers: 10,
                shared_bytes: 256,
                stack_frame_bytes: 16,
                spill_store_bytes: 8,
                spill_load_bytes: 4,
                barriers: 1,
            }
        );
    }

    #[test]
    fn a_truncated_report_is_an_error() {
        assert!(parse_report("ptxas info    : Function properties for k\n").is_err());
        assert!(parse_report("").is_err());
    }
}
