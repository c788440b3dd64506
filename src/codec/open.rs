//! Opening a codec by [`Backend`], or by `--backend auto`'s rule ([`crate::auto`]).

use super::{Backend, CpuCodec, CudaCodec, KernelCodec, PageCodec, ReferenceCodec};
use crate::auto::{first_gpu, AutoChoice};

/// The codec of `backend` (CUDA: device 0 through the batch API; WebGPU: the first adapter that runs
/// the kernels).
pub fn open(backend: Backend) -> anyhow::Result<Box<dyn PageCodec>> {
    Ok(match backend {
        Backend::Cpu => Box::new(CpuCodec),
        Backend::Reference => Box::new(ReferenceCodec),
        Backend::Sim => Box::new(KernelCodec::sim()),
        Backend::WebGpu => Box::new(KernelCodec::webgpu()?),
        Backend::Cuda => Box::new(CudaCodec::new(0)?),
        Backend::PtxSim => Box::new(CudaCodec::ptx_sim()?),
    })
}

/// The codec `--backend auto` runs: the first GPU backend that opens, else the CPU reference; and what
/// was passed over, with the reasons.
pub fn open_auto() -> (Box<dyn PageCodec>, AutoChoice) {
    let (gpu, passed_over) = first_gpu(|backend| open(backend).map_err(|e| format!("{e:#}")));
    let (backend, codec) = gpu.unwrap_or((Backend::Reference, Box::new(ReferenceCodec)));
    (
        codec,
        AutoChoice {
            backend,
            passed_over,
        },
    )
}
