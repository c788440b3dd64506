//! [`Backend`]: what compresses and decompresses pages — the one backend enum of the façade, used by
//! the codecs, `--backend`, `auto`, the batch API and [`crate::gpu::GpuDeviceInfo`]. The three that run
//! the warp kernels map to the runtime's launch backends ([`Backend::launcher`]).

use std::fmt;
use std::str::FromStr;

use warpforge_runtime::Backend as Launch;

/// Which implementation runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// lz4_flex on all cores.
    Cpu,
    /// The CPU reference of the warp kernels, on all cores.
    Reference,
    /// The warp kernels on the CPU simulator (`warpforge_runtime::sim`).
    Sim,
    /// The warp kernels' emitted PTX on the CPU simulator (`warpforge_runtime::sim::ptx`). `run`
    /// launches with it; `compress`/`decompress` do not support it yet (the CUDA engine's host
    /// pipeline on the PTX simulator is issue 14's other half) and say so.
    PtxSim,
    /// The warp kernels on a WebGPU adapter, from their WGSL.
    WebGpu,
    /// The warp kernels on a CUDA GPU, from their PTX, through the GPU batch API (async-DMA ring).
    Cuda,
}

impl Backend {
    /// Every backend, in the order `--help` lists them.
    pub const ALL: [Backend; 6] = [
        Backend::Cpu,
        Backend::Reference,
        Backend::Sim,
        Backend::PtxSim,
        Backend::WebGpu,
        Backend::Cuda,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
            Backend::Reference => "reference",
            Backend::Sim => "sim",
            Backend::PtxSim => "ptx-sim",
            Backend::WebGpu => "webgpu",
            Backend::Cuda => "cuda",
        }
    }

    /// The runtime backend that launches the kernels, for the backends that run them.
    pub fn launcher(self) -> Option<Launch> {
        match self {
            Backend::Sim => Some(Launch::Sim),
            Backend::PtxSim => Some(Launch::PtxSim),
            Backend::WebGpu => Some(Launch::WebGpu),
            Backend::Cuda => Some(Launch::Cuda),
            Backend::Cpu | Backend::Reference => None,
        }
    }
}

impl From<Launch> for Backend {
    fn from(launch: Launch) -> Backend {
        match launch {
            Launch::Sim => Backend::Sim,
            Launch::PtxSim => Backend::PtxSim,
            Launch::WebGpu => Backend::WebGpu,
            Launch::Cuda => Backend::Cuda,
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Backend {
    type Err = String;

    fn from_str(s: &str) -> Result<Backend, String> {
        Backend::ALL
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Backend::ALL.iter().map(|b| b.name()).collect();
                format!("unknown backend `{s}`; valid: {}", names.join(", "))
            })
    }
}
