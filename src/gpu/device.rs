//! [`GpuDeviceInfo`]: what a GPU is, filled from the real device.

/// Which GPU API runs the kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GpuBackend {
    /// CUDA through the driver API (cudarc), from warpforge's PTX.
    Cuda,
    /// WebGPU through wgpu, from warpforge's WGSL.
    Wgpu,
}

/// A GPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuDeviceInfo {
    /// Device index (CUDA ordinal, or the WebGPU adapter's position in the list).
    pub index: u32,
    /// The device's name.
    pub name: String,
    /// Device memory in bytes.
    pub total_memory: u64,
    /// L2 cache in bytes.
    pub l2_cache_size: u64,
    /// CUDA compute capability (major, minor); (0, 0) for non-CUDA devices.
    pub compute_capability: (u32, u32),
    /// The API it is driven through.
    pub backend: GpuBackend,
}

impl GpuDeviceInfo {
    /// Pages per batch: enough to fill 80% of the L2 cache with input pages (so the kernels read from
    /// L2 while the next batch streams in), at least 1024 and at most 1/8 of device memory.
    pub fn optimal_batch_size(&self) -> usize {
        let by_l2 = (self.l2_cache_size as f64 * 0.8 / crate::PAGE_SIZE as f64) as usize;
        let by_memory = (self.total_memory / 8 / crate::PAGE_SIZE as u64) as usize;
        by_l2.max(1024).min(by_memory.max(1))
    }

    /// Whether warpforge's kernels run on it: CUDA SM 7.0 or newer (independent thread scheduling and
    /// `match.sync`), or any WebGPU adapter.
    pub fn is_supported(&self) -> bool {
        match self.backend {
            GpuBackend::Cuda => self.compute_capability >= (7, 0),
            GpuBackend::Wgpu => true,
        }
    }
}
