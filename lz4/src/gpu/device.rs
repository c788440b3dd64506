//! [`GpuDeviceInfo`]: what a GPU is, filled from the real device; CUDA discovery as the batch API
//! reports it ([`cuda_probe`], [`cuda_devices`], [`measure_h2d_gbps`], built on
//! `warpforge_runtime::cuda`).

use std::sync::OnceLock;

use super::GpuError;
use crate::runtime::cuda::{self, CudaDeviceInfo};

/// Which API drives a device: the façade's one [`Backend`](crate::Backend) enum (`Cuda` for CUDA
/// devices, `WebGpu` for WebGPU adapters, `Sim` for the simulator).
pub type GpuBackend = crate::Backend;

/// A GPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuDeviceInfo {
    /// Device index (CUDA ordinal, or the WebGPU adapter's position in the list).
    pub index: u32,
    /// The device's name.
    pub name: String,
    /// Device memory in bytes, as the driver reports it; 0 when the API does not say (WebGPU reports
    /// only per-buffer limits, which are not device memory).
    pub total_memory: u64,
    /// L2 cache in bytes, as the driver reports it; 0 when the API does not say (WebGPU).
    pub l2_cache_size: u64,
    /// CUDA compute capability (major, minor); (0, 0) for non-CUDA devices.
    pub compute_capability: (u32, u32),
    /// The API it is driven through.
    pub backend: GpuBackend,
}

impl GpuDeviceInfo {
    /// The backend and device in a line: `{backend} on {name}`.
    pub fn describe(&self) -> String {
        format!("{} on {}", self.backend, self.name)
    }

    /// Pages per batch: enough to fill 80% of the L2 cache with input pages (so the kernels read from
    /// L2 while the next batch streams in), at least 1024 and at most 1/8 of device memory (a size the
    /// device does not report does not bound it).
    pub fn optimal_batch_size(&self) -> usize {
        let by_l2 = (self.l2_cache_size as f64 * 0.8 / crate::PAGE_SIZE as f64) as usize;
        let by_memory = match self.total_memory {
            0 => usize::MAX,
            bytes => ((bytes / 8 / crate::PAGE_SIZE as u64) as usize).max(1),
        };
        by_l2.max(1024).min(by_memory)
    }

    /// Whether warpforge's kernels run on it: CUDA SM 7.0 or newer (independent thread scheduling and
    /// `match.sync`), or any WebGPU adapter.
    pub fn is_supported(&self) -> bool {
        match self.backend {
            GpuBackend::Cuda => self.compute_capability >= (7, 0),
            _ => true,
        }
    }
}

impl From<&CudaDeviceInfo> for GpuDeviceInfo {
    fn from(d: &CudaDeviceInfo) -> GpuDeviceInfo {
        GpuDeviceInfo {
            index: d.index,
            name: d.name.clone(),
            total_memory: d.total_memory,
            l2_cache_size: d.l2_cache_size,
            compute_capability: d.compute_capability,
            backend: GpuBackend::Cuda,
        }
    }
}

/// The first supported CUDA device, or why there is none, probed once per process
/// ([`cuda::cuda_probe`]).
pub fn cuda_probe() -> &'static Result<GpuDeviceInfo, String> {
    static PROBE: OnceLock<Result<GpuDeviceInfo, String>> = OnceLock::new();
    PROBE.get_or_init(|| {
        cuda::cuda_probe()
            .as_ref()
            .map(GpuDeviceInfo::from)
            .map_err(Clone::clone)
    })
}

/// Every CUDA device, described; empty without a driver.
pub fn cuda_devices() -> Vec<Result<GpuDeviceInfo, GpuError>> {
    cuda::cuda_devices()
        .into_iter()
        .map(|d| {
            d.as_ref()
                .map(GpuDeviceInfo::from)
                .map_err(|e| e.clone().into())
        })
        .collect()
}

/// Host-to-device bandwidth of CUDA device `index` in GB/s (10⁹ B/s): pinned memory, one async copy,
/// CUDA events, best of 5.
pub fn measure_h2d_gbps(index: u32, bytes: usize) -> Result<f64, GpuError> {
    Ok(cuda::measure_h2d_gbps(index, bytes)?)
}

/// A GPU model's published figures, for documentation and planning only: the runtime never reads this
/// table, it asks the device (`CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE`, `cuDeviceTotalMem`; `warpforge info`
/// prints what a device reports). The one place these figures are written down: `docs/gpu.md`'s table
/// is generated from it ([`known_gpus_table`]) and a test keeps the two equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnownGpu {
    /// Marketing name.
    pub name: &'static str,
    /// Architecture.
    pub architecture: &'static str,
    /// CUDA compute capability.
    pub compute_capability: (u32, u32),
    /// L2 cache, MiB (NVIDIA's "MB" in its data sheets; the driver reports MiB × 2²⁰ bytes).
    pub l2_mib: u64,
    /// Device memory, GiB (the common board).
    pub memory_gib: u64,
}

/// The GPUs the documentation names, newest first. H100 and H200 are both GH100 with 132 SMs; they
/// differ in L2 and memory. The H200's 60 MiB of L2 was read off a lent H200 of this workplace
/// (PyTorch's `L2_cache_size`, 2026-10-28; ../shared/GPU.md), as the H100's 50 MiB
/// was off a lent H100 (2026-11-13); memory: 80 GiB HBM3, 141 GB HBM3e.
pub const KNOWN_GPUS: [KnownGpu; 6] = [
    KnownGpu {
        name: "H200",
        architecture: "Hopper",
        compute_capability: (9, 0),
        // 60 MiB as read on a lent H200 (PyTorch, 2026-10-28), not the H100's 50 MiB.
        l2_mib: 60,
        memory_gib: 141,
    },
    KnownGpu {
        name: "H100",
        architecture: "Hopper",
        compute_capability: (9, 0),
        l2_mib: 50,
        memory_gib: 80,
    },
    KnownGpu {
        name: "A100",
        architecture: "Ampere",
        compute_capability: (8, 0),
        l2_mib: 40,
        memory_gib: 80,
    },
    KnownGpu {
        name: "RTX 4090",
        architecture: "Ada",
        compute_capability: (8, 9),
        l2_mib: 72,
        memory_gib: 24,
    },
    KnownGpu {
        name: "RTX 3090",
        architecture: "Ampere",
        compute_capability: (8, 6),
        l2_mib: 6,
        memory_gib: 24,
    },
    KnownGpu {
        name: "V100",
        architecture: "Volta",
        compute_capability: (7, 0),
        l2_mib: 6,
        memory_gib: 16,
    },
];

impl KnownGpu {
    /// The device description such a GPU would report as CUDA device 0.
    pub fn info(&self) -> GpuDeviceInfo {
        GpuDeviceInfo {
            index: 0,
            name: self.name.to_owned(),
            total_memory: self.memory_gib << 30,
            l2_cache_size: self.l2_mib << 20,
            compute_capability: self.compute_capability,
            backend: GpuBackend::Cuda,
        }
    }
}

/// [`KNOWN_GPUS`] as the Markdown table of `docs/gpu.md`, with each one's optimal batch.
pub fn known_gpus_table() -> String {
    let mut s = String::from(
        "| GPU | Architecture | SM | L2 | Memory | Optimal batch |\n|---|---|---|---|---|---|\n",
    );
    for gpu in &KNOWN_GPUS {
        let (major, minor) = gpu.compute_capability;
        s += &format!(
            "| {} | {} | {major}.{minor} | {} MiB | {} GiB | {} pages |\n",
            gpu.name,
            gpu.architecture,
            gpu.l2_mib,
            gpu.memory_gib,
            gpu.info().optimal_batch_size()
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_gpu_md_holds_the_generated_table() {
        let docs = include_str!("../../../docs/gpu.md");
        let table = known_gpus_table();
        assert!(
            docs.contains(&table),
            "docs/gpu.md must contain this table, generated from KNOWN_GPUS:\n{table}"
        );
    }

    #[test]
    fn a_device_that_reports_no_memory_is_bounded_by_l2_only() {
        let mut info = KNOWN_GPUS[0].info();
        info.total_memory = 0;
        assert_eq!(
            info.optimal_batch_size(),
            KNOWN_GPUS[0].info().optimal_batch_size()
        );
        info.l2_cache_size = 0;
        assert_eq!(info.optimal_batch_size(), 1024);
    }
}
