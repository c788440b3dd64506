//! `--backend auto`, decided in one place for `demo`, `compress`, `decompress` and the GPU batch API
//! ([`crate::gpu::GpuBatchCompressor::auto`]): CUDA on a supported GPU, else a hardware WebGPU adapter
//! that can run the LZ4 kernels, else the CPU reference. Software adapters (lavapipe, llvmpipe,
//! SwiftShader) run only when named (`--backend webgpu`): they are correct but slower than the CPU
//! reference. Every backend passed over is kept with the reason, so the choice can be explained in one
//! line ([`AutoChoice::explain`]).

use std::fmt;
use std::sync::OnceLock;

use crate::kernels::{Kernel, Lz4WarpCompressKernel, Lz4WarpDecompressKernel};
use crate::runtime::cuda::cuda_probe;
use crate::runtime::launch::joint;
use crate::runtime::webgpu::find_adapter;
use crate::wgsl::Requirements;
use crate::Backend;

/// The GPU backends `auto` tries, best first.
pub const GPU_ORDER: [Backend; 2] = [Backend::Cuda, Backend::WebGpu];

/// Why `auto` can use `backend` on this machine, or why not: a cheap probe that opens nothing (the CUDA
/// probe is cached per process; WebGPU adapters are enumerated once per process).
pub fn probe(backend: Backend) -> Result<String, String> {
    match backend {
        Backend::Cuda => match cuda_probe() {
            Ok(d) => Ok(d.label()),
            Err(why) => Err(why.clone()),
        },
        Backend::WebGpu => {
            let requirements = webgpu_requirements().map_err(|e| e.to_string())?;
            match find_adapter(&requirements) {
                Ok(a) if !a.is_software => Ok(a.label()),
                Ok(a) => Err(format!(
                    "no hardware adapter can run the LZ4 kernels; {} is software (`--backend webgpu` runs on it)",
                    a.label()
                )),
                Err(e) => Err(e.to_string()),
            }
        }
        Backend::Cpu | Backend::Reference | Backend::Sim | Backend::PtxSim => Ok("the CPU".into()),
    }
}

/// What `auto` picked and what it passed over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AutoChoice {
    /// The backend that runs.
    pub backend: Backend,
    /// Each better backend passed over, with the reason.
    pub passed_over: PassedOver,
}

impl AutoChoice {
    /// One line: which backend runs and why the better ones did not.
    pub fn explain(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for AutoChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "backend auto: {}", self.backend)?;
        if !self.passed_over.is_empty() {
            write!(f, " (not {})", reasons(&self.passed_over, "; not "))?;
        }
        Ok(())
    }
}

/// Each backend passed over, with the reason.
pub type PassedOver = Vec<(Backend, String)>;

/// `backend: why` for each backend passed over, joined with `separator`.
pub fn reasons(passed_over: &[(Backend, String)], separator: &str) -> String {
    let each: Vec<String> = passed_over
        .iter()
        .map(|(b, why)| format!("{b}: {why}"))
        .collect();
    each.join(separator)
}

/// Tries the GPU backends best first: each that [`probe`]s usable is opened with `open`; the first that
/// opens wins. Returns it (if any) and every backend passed over with the reason.
pub fn first_gpu<T>(
    mut open: impl FnMut(Backend) -> Result<T, String>,
) -> (Option<(Backend, T)>, PassedOver) {
    let mut passed_over = Vec::new();
    for backend in GPU_ORDER {
        match probe(backend).and_then(|_| open(backend)) {
            Ok(opened) => return (Some((backend, opened)), passed_over),
            Err(why) => passed_over.push((backend, why)),
        }
    }
    (None, passed_over)
}

/// What a WebGPU adapter must offer to run both LZ4 page kernels (their WGSL emitted and validated by
/// naga once per process: `auto` probes with it, then a codec opens a device with it).
pub fn webgpu_requirements() -> Result<Requirements, KernelBuildError> {
    static REQUIREMENTS: OnceLock<Result<Requirements, KernelBuildError>> = OnceLock::new();
    REQUIREMENTS
        .get_or_init(|| {
            let backend = crate::runtime::Backend::WebGpu;
            let kernels = [
                Lz4WarpCompressKernel::new(0).ir_for(backend),
                Lz4WarpDecompressKernel::new(0).ir_for(backend),
            ];
            let mut needs: Option<Requirements> = None;
            for kernel in &kernels {
                let verified = warpforge_ir::verify(kernel).map_err(KernelBuildError::Verify)?;
                let wgsl = crate::wgsl::emit(&verified).map_err(KernelBuildError::Wgsl)?;
                needs = Some(match needs {
                    Some(n) => joint(&n, &wgsl.requirements),
                    None => wgsl.requirements,
                });
            }
            Ok(needs.expect("two kernels"))
        })
        .clone()
}

/// Why the LZ4 page kernels cannot be built for WebGPU (a bug in the kernels or an emitter: the
/// tests build them on every run).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KernelBuildError {
    /// The verifier rejected a kernel.
    #[error("an LZ4 kernel does not verify: {0}")]
    Verify(#[source] warpforge_ir::VerifyError),
    /// The WGSL emitter refused a kernel.
    #[error("an LZ4 kernel has no WGSL: {0}")]
    Wgsl(#[source] crate::wgsl::WgslError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_explanation_names_the_backend_and_every_reason() {
        let choice = AutoChoice {
            backend: Backend::Reference,
            passed_over: vec![
                (Backend::Cuda, "no CUDA driver library".into()),
                (Backend::WebGpu, "no adapter".into()),
            ],
        };
        assert_eq!(
            choice.explain(),
            "backend auto: reference (not cuda: no CUDA driver library; not webgpu: no adapter)"
        );
    }

    #[test]
    fn gpu_backends_are_tried_in_order_and_failures_to_open_are_reasons() {
        let mut tried = Vec::new();
        let (picked, passed) = first_gpu(|b| {
            tried.push(b);
            Err::<(), _>(format!("cannot open {b}"))
        });
        assert!(picked.is_none());
        assert_eq!(passed.len(), 2);
        assert_eq!(passed[0].0, Backend::Cuda);
        assert_eq!(passed[1].0, Backend::WebGpu);
        // Only backends whose probe succeeded were opened, in order.
        let mut sorted = tried.clone();
        sorted.sort_by_key(|b| GPU_ORDER.iter().position(|g| g == b));
        assert_eq!(tried, sorted);
        for (backend, why) in &passed {
            assert!(
                tried.contains(backend) == why.starts_with("cannot open"),
                "{backend}: {why}"
            );
        }
    }
}
