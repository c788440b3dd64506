//! Opening a codec by [`Backend`], or by `--backend auto`'s rule ([`crate::auto`]).

use super::batch::BatchCodec;
use super::cpu::CpuCodec;
use super::kernel::KernelCodec;
use super::page_codec::PageCodec;
use super::reference_codec::ReferenceCodec;
use crate::auto::{first_gpu, AutoChoice};
use crate::kernels::lz4::Lz4Level;
use crate::runtime::sim::SimOptions;
use crate::runtime::Launcher;
use crate::Backend;

/// The codec of `backend` (CUDA: device 0 through the batch API; WebGPU: the first adapter that runs
/// the kernels, through the batch API too), compressing at the default level.
pub fn open(backend: Backend) -> anyhow::Result<Box<dyn PageCodec>> {
    open_at(backend, Lz4Level::DEFAULT)
}

/// [`open`] compressing at `level`. `cpu` (lz4_flex) has no levels: any level but the default is an
/// error there, not silently ignored.
pub fn open_at(backend: Backend, level: Lz4Level) -> anyhow::Result<Box<dyn PageCodec>> {
    Ok(match backend {
        Backend::Cpu if level != Lz4Level::DEFAULT => anyhow::bail!(
            "--backend cpu compresses with lz4_flex, which has no levels; {level} needs reference, \
             sim, webgpu, cuda or ptx-sim"
        ),
        Backend::Cpu => Box::new(CpuCodec),
        Backend::Reference => Box::new(ReferenceCodec::at_level(level)),
        Backend::Sim => Box::new(KernelCodec::at_level(
            Launcher::Sim(SimOptions::default()),
            level,
        )?),
        Backend::WebGpu => Box::new(BatchCodec::webgpu_at(level)?),
        Backend::Cuda => Box::new(BatchCodec::at_level(0, level)?),
        Backend::PtxSim => Box::new(BatchCodec::ptx_sim_with(SimOptions::default(), level)?),
    })
}

/// The codec `--backend auto` runs: the first GPU backend that opens, else the CPU reference; and what
/// was passed over, with the reasons.
pub fn open_auto() -> (Box<dyn PageCodec>, AutoChoice) {
    open_auto_at(Lz4Level::DEFAULT)
}

/// [`open_auto`] compressing at `level`.
pub fn open_auto_at(level: Lz4Level) -> (Box<dyn PageCodec>, AutoChoice) {
    let (gpu, passed_over) =
        first_gpu(|backend| open_at(backend, level).map_err(|e| format!("{e:#}")));
    let (backend, codec) = gpu.unwrap_or_else(|| {
        let reference: Box<dyn PageCodec> = Box::new(ReferenceCodec::at_level(level));
        (Backend::Reference, reference)
    });
    (
        codec,
        AutoChoice {
            backend,
            passed_over,
        },
    )
}
