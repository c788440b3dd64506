//! The snippets of `../shared/reference/gpu-batch-api.md` and `gpu-batch-compression.md`, copied
//! verbatim with only their `use` lines changed (`trueno_zram_core` → `warpforge`). Snippets that need a
//! compressor run on WebGPU here (lavapipe in CI) and on CUDA where `gpu_available()`; the CUDA
//! constructor snippets run where there is a CUDA GPU.

use crate::common;
use common::adapter_or_skip;

use warpforge::gpu::{gpu_available, GpuBackend, GpuBatchCompressor, GpuBatchConfig, GpuError};
use warpforge::PAGE_SIZE;

// gpu-batch-api.md, "GpuBatchConfig".
#[allow(clippy::let_and_return)]
#[rustfmt::skip]
fn api_config() -> GpuBatchConfig {
    use warpforge::gpu::GpuBatchConfig;
    use warpforge::Algorithm;

    let config = GpuBatchConfig {
        device_index: 0,        // CUDA device (0 = first GPU)
        algorithm: Algorithm::Lz4,
        batch_size: 1000,       // Pages per batch
        async_dma: true,        // Enable async transfers
        ring_buffer_slots: 4,   // Pipeline depth
    };
    config
}

// gpu-batch-api.md, "Creation".
#[rustfmt::skip]
fn api_creation() -> Result<GpuBatchCompressor, GpuError> {
    use warpforge::gpu::{GpuBatchCompressor, GpuBatchConfig};

    let config = GpuBatchConfig::default();
    let mut compressor = GpuBatchCompressor::new(config)?;
    let _ = &mut compressor;
    Ok(compressor)
}

// gpu-batch-api.md, "Batch Compression", "Statistics", "Configuration Access", "Methods".
#[rustfmt::skip]
fn api_batch(compressor: &mut GpuBatchCompressor) -> Result<(), GpuError> {
    let pages: Vec<[u8; PAGE_SIZE]> = vec![[0u8; PAGE_SIZE]; 1000];
    let result = compressor.compress_batch(&pages)?;

    let stats = compressor.stats();

    println!("Pages compressed: {}", stats.pages_compressed);
    println!("Input bytes: {}", stats.total_bytes_in);
    println!("Output bytes: {}", stats.total_bytes_out);
    println!("Time: {} ns", stats.total_time_ns);
    println!("Ratio: {:.2}x", stats.compression_ratio());
    println!("Throughput: {:.2} GB/s", stats.throughput_gbps());

    let config = compressor.config();
    println!("Batch size: {}", config.batch_size);
    println!("Async DMA: {}", config.async_dma);

    let input_bytes = pages.len() * PAGE_SIZE;
    // Throughput in bytes/second
    let throughput = result.throughput_bytes_per_sec(input_bytes);

    // Compression ratio
    let ratio = result.compression_ratio();

    // Check PCIe 5x rule
    let beneficial = result.pcie_rule_satisfied();

    // Not in the docs: what the snippet's values must be for zero pages.
    assert!(throughput > 0.0 && ratio > 100.0, "{throughput} {ratio}");
    // The rule over the measured rates, recomputed here from the same figures.
    let gpu_bytes = (result.gpu_pages() * PAGE_SIZE) as f64;
    let transfer_s = (result.h2d_time_ns + result.d2h_time_ns) as f64 / 1e9;
    let kernel_s = result.kernel_time_ns as f64 / 1e9;
    let expected = transfer_s > 0.0
        && kernel_s > 0.0
        && warpforge::gpu::meets_pcie_rule(
            result.gpu_pages(),
            gpu_bytes / transfer_s / 1e9,
            gpu_bytes / kernel_s / 1e9,
        );
    assert_eq!(beneficial, expected);
    assert_eq!(compressor.decompress_batch(&result.pages)?, pages);
    Ok(())
}

// gpu-batch-api.md, "Helper Functions".
#[rustfmt::skip]
fn api_helpers() {
    use warpforge::gpu::gpu_available;

    if gpu_available() {
        println!("CUDA GPU detected");
    }

    use warpforge::gpu::{select_backend, BackendSelection};
    let batch_size = 5000;

    let backend = select_backend(batch_size, gpu_available());

    match backend {
        BackendSelection::Gpu => { /* use GPU */ }
        BackendSelection::Simd => { /* use CPU SIMD */ }
        BackendSelection::Scalar => { /* use scalar */ }
    }

    use warpforge::gpu::meets_pcie_rule;

    let pages = 10000;
    let pcie_bandwidth = 64.0;  // GB/s (PCIe 5.0)
    let gpu_throughput = 500.0; // GB/s

    if meets_pcie_rule(pages, pcie_bandwidth, gpu_throughput) {
        println!("GPU offload beneficial");
    }
    // Not in the docs: the values the docs imply.
    assert!(meets_pcie_rule(pages, pcie_bandwidth, gpu_throughput));
    assert_eq!(backend == BackendSelection::Gpu, gpu_available());
}

// gpu-batch-api.md, "GpuDeviceInfo".
#[rustfmt::skip]
fn api_device_info() {
    use warpforge::gpu::GpuDeviceInfo;
    use warpforge::gpu::GpuBackend;

    let info = GpuDeviceInfo {
        index: 0,
        name: "RTX 4090".to_string(),
        total_memory: 24 * 1024 * 1024 * 1024,
        l2_cache_size: 72 * 1024 * 1024,
        compute_capability: (8, 9),
        backend: GpuBackend::Cuda,
    };

    println!("Optimal batch: {} pages", info.optimal_batch_size());
    println!("Supported: {}", info.is_supported());
    // Not in the docs: the supported-GPU table's figure.
    assert_eq!(info.optimal_batch_size(), 14_745);
    assert!(info.is_supported());
}

// gpu-batch-compression.md, "Basic Usage".
#[rustfmt::skip]
fn compression_basic() -> Result<(), GpuError> {
    use warpforge::gpu::{GpuBatchCompressor, GpuBatchConfig, gpu_available};
    use warpforge::{Algorithm, PAGE_SIZE};

    if gpu_available() {
        let config = GpuBatchConfig {
            device_index: 0,
            algorithm: Algorithm::Lz4,
            batch_size: 1000,
            async_dma: true,
            ring_buffer_slots: 4,
        };

        let mut compressor = GpuBatchCompressor::new(config)?;

        let pages: Vec<[u8; PAGE_SIZE]> = vec![[0u8; PAGE_SIZE]; 1000];
        let result = compressor.compress_batch(&pages)?;

        println!("Compression ratio: {:.2}x", result.compression_ratio());
    }
    Ok(())
}

// gpu-batch-compression.md, "Batch Results".
#[rustfmt::skip]
fn compression_results(compressor: &mut GpuBatchCompressor) -> Result<(), GpuError> {
    let pages: Vec<[u8; PAGE_SIZE]> = warpforge::sample_pages().expect("sample pages");
    let result = compressor.compress_batch(&pages)?;

    // Timing components
    println!("H2D transfer: {} ns", result.h2d_time_ns);
    println!("Kernel execution: {} ns", result.kernel_time_ns);
    println!("D2H transfer: {} ns", result.d2h_time_ns);
    println!("Total time: {} ns", result.total_time_ns);

    // Metrics
    let throughput = result.throughput_bytes_per_sec(pages.len() * PAGE_SIZE);
    println!("Throughput: {:.2} GB/s", throughput / 1e9);
    println!("Compression ratio: {:.2}x", result.compression_ratio());
    println!("PCIe 5x rule satisfied: {}", result.pcie_rule_satisfied());
    // Not in the docs: measured, never zero; one record per page, each decoding back to its page.
    assert!(result.h2d_time_ns > 0 && result.kernel_time_ns > 0 && result.d2h_time_ns > 0);
    assert_eq!(result.pages.len(), pages.len());
    assert_eq!(compressor.decompress_batch(&result.pages)?, pages);
    Ok(())
}

// gpu-batch-compression.md, "Backend Selection".
#[rustfmt::skip]
fn compression_backend_selection() {
    use warpforge::gpu::{select_backend, gpu_available};

    let batch_size = 5000;
    let has_gpu = gpu_available();

    let backend = select_backend(batch_size, has_gpu);
    println!("Selected backend: {:?}", backend);
    // Output: Gpu (for large batches with GPU available)
    assert_eq!(format!("{backend:?}"), if has_gpu { "Gpu" } else { "Simd" });
}

#[test]
fn device_free_snippets_run() {
    let config = api_config();
    assert_eq!((config.batch_size, config.ring_buffer_slots), (1000, 4));
    assert!(config.validate().is_ok());
    api_helpers();
    api_device_info();
    compression_basic().expect("Basic Usage");
    compression_backend_selection();
}

#[test]
fn compressor_snippets_run_on_webgpu() {
    if !adapter_or_skip("reference GPU batch snippets") {
        return;
    }
    let mut compressor =
        GpuBatchCompressor::with_backend(api_config(), GpuBackend::WebGpu).expect("WebGPU");
    api_batch(&mut compressor).expect("Batch Compression");
    compression_results(&mut compressor).expect("Batch Results");
}

#[test]
fn compressor_snippets_run_on_cuda_when_present() {
    if !gpu_available() {
        let required = std::env::var_os("WARPFORGE_REQUIRE_CUDA").is_some_and(|v| v == "1");
        assert!(
            !required,
            "WARPFORGE_REQUIRE_CUDA=1 but gpu_available() is false"
        );
        common::skip("CUDA snippets", "no CUDA GPU (scripts/gpu-check.sh runs it on one; WARPFORGE_REQUIRE_CUDA=1 requires one)");
        assert!(
            api_creation().is_err(),
            "GpuBatchCompressor::new must fail cleanly without a GPU"
        );
        return;
    }
    let mut compressor = api_creation().expect("Creation");
    api_batch(&mut compressor).expect("Batch Compression");
    compression_results(&mut compressor).expect("Batch Results");
}
