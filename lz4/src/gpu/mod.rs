//! The GPU batch-compression API: compress and decompress batches of 4 KiB pages on CUDA (cudarc, from
//! warpforge's PTX) or WebGPU (wgpu, from its WGSL), timed stage by stage, with a per-batch CPU fallback
//! that never loses a page.
//!
//! ```no_run
//! use warpforge_lz4::gpu::{gpu_available, GpuBatchCompressor, GpuBatchConfig};
//! use warpforge_lz4::{Algorithm, PAGE_SIZE};
//!
//! # fn main() -> Result<(), warpforge_lz4::gpu::GpuError> {
//! if gpu_available() {
//!     let config = GpuBatchConfig { device_index: 0, algorithm: Algorithm::Lz4, batch_size: 1000, async_dma: true, ring_buffer_slots: 4 };
//!     let mut compressor = GpuBatchCompressor::new(config)?;
//!     let pages: Vec<[u8; PAGE_SIZE]> = vec![[0u8; PAGE_SIZE]; 1000];
//!     let result = compressor.compress_batch(&pages)?;
//!     println!("{:.2}x, H2D {} ns, kernels {} ns, D2H {} ns", result.compression_ratio(), result.h2d_time_ns, result.kernel_time_ns, result.d2h_time_ns);
//!     assert_eq!(compressor.decompress_batch(&result.pages)?, pages);
//! }
//! # Ok(())
//! # }
//! ```
//!
//! **Backends.** [`GpuBatchCompressor::new`] opens CUDA device `config.device_index`;
//! [`GpuBatchCompressor::with_backend`] with [`GpuBackend::WebGpu`] runs the same API on any WebGPU
//! adapter (CI uses Mesa's lavapipe), and with [`GpuBackend::Sim`] on the CPU simulator. Both produce records byte-identical to the CPU reference
//! ([`crate::codec::ReferenceCodec`]).
//!
//! **Supported GPUs.** Any CUDA GPU of SM 7.0 or newer ([`GpuDeviceInfo::is_supported`]). The optimal
//! batch ([`GpuDeviceInfo::optimal_batch_size`]) fills 80% of the L2 cache, as the device reports it,
//! with input pages; `docs/gpu.md` tabulates it for the GPUs of [`KNOWN_GPUS`].
//!
//! Pascal (SM 6.x) and older are refused: the kernels rely on independent thread scheduling.

mod compressor;
mod config;
mod device;
mod device_codec;
mod driver;
mod driver_cuda;
mod driver_replay;
mod driver_sim;
mod driver_wgpu;
mod engine;
mod error;
mod host_pages;
pub mod latency;
#[cfg(test)]
mod lazy_driver;
mod page_blocks;
mod page_io;
mod policy;
mod records_out;
mod registered;
mod result;
pub mod ring;
mod ring_compress;
mod ring_decompress;
mod ring_engine;
mod ring_state;

pub use crate::runtime::Timings;
pub use compressor::GpuBatchCompressor;
pub use config::{GpuBatchConfig, MAX_BATCH_PAGES, MAX_RING_SLOTS};
pub use device::{
    cuda_devices, cuda_probe, known_gpus_table, measure_h2d_gbps, GpuBackend, GpuDeviceInfo,
    KnownGpu, KNOWN_GPUS,
};
pub use device_codec::{DeviceBuffer, DeviceCodec, DeviceRecords, PageSpan};
pub use driver_replay::ReplayTape;
pub use error::GpuError;
pub use host_pages::HostPages;
pub use page_io::{PageInput, PageOutput};
pub use policy::{
    meets_pcie_rule, select_backend, BackendSelection, BATCH_OVERHEAD_S, NOMINAL_GPU_GBPS,
    NOMINAL_PCIE_GBPS, SIMD_MIN_PAGES,
};
pub use registered::{RegisteredPages, Registration};
pub use result::{BatchResult, BatchStats, BatchTimes};

/// Whether a supported CUDA GPU (SM 7.0+) is present. Never panics: false without a driver library,
/// without devices, or when the driver fails. Probed once per process ([`cuda_probe`] says why not).
pub fn gpu_available() -> bool {
    cuda_probe().is_ok()
}
