//! The GPU batch API: on WebGPU (lavapipe in CI) it compresses and decompresses exactly like the CPU
//! reference, a failed GPU batch is redone on the CPU without losing a page, detection never panics,
//! and the CUDA path runs on a CUDA machine (`scripts/gpu-check.sh`).

use crate::common;
use common::adapter_or_skip;

use warpforge::codec::{PageCodec, ReferenceCodec};
use warpforge::gpu::{
    gpu_available, BatchStats, GpuBackend, GpuBatchCompressor, GpuBatchConfig, GpuError,
};
use warpforge::kernels::lz4::pages::{page, PageKind};
use warpforge::runtime::Clock;
use warpforge::sample_pages;
use warpforge::{Algorithm, CompressedPage, PAGE_SIZE};

/// Real sample pages plus every synthetic kind, 203 in all (not a multiple of the batch sizes used).
fn test_pages() -> Vec<[u8; PAGE_SIZE]> {
    let mut pages = sample_pages().expect("the embedded sample pages decode");
    pages.truncate(180);
    for (i, kind) in PageKind::ALL.iter().cycle().take(23).enumerate() {
        pages.push(page(*kind, i as u64 + 7));
    }
    pages
}

/// Whether the adapter the WebGPU backend picks offers timestamp queries.
fn gpu_timestamps_offered() -> bool {
    let requirements = warpforge::auto::webgpu_requirements().expect("the kernels emit");
    warpforge::runtime::webgpu::find_adapter(&requirements)
        .expect("an adapter")
        .timestamp_query
}

fn reference(pages: &[[u8; PAGE_SIZE]]) -> Vec<CompressedPage> {
    ReferenceCodec::default()
        .compress(pages)
        .expect("the reference compresses")
}

fn wgpu(batch_size: usize) -> Option<GpuBatchCompressor> {
    if !adapter_or_skip("gpu_batch on WebGPU") {
        return None;
    }
    let config = GpuBatchConfig {
        batch_size,
        ..GpuBatchConfig::default()
    };
    Some(GpuBatchCompressor::with_backend(config, GpuBackend::WebGpu).expect("a WebGPU compressor"))
}

#[test]
fn a_wgpu_batch_the_adapter_cannot_bind_is_refused_when_the_compressor_opens() {
    if !adapter_or_skip("gpu_batch on WebGPU") {
        return;
    }
    // Level 2's scratch for 2^19 pages is 4 GiB: more than any adapter binds in one buffer.
    let config = GpuBatchConfig {
        batch_size: 1 << 19,
        ..GpuBatchConfig::default()
    };
    match GpuBatchCompressor::with_backend(config, GpuBackend::WebGpu) {
        Err(GpuError::Config(why)) => {
            assert!(
                why.contains("batch_size 524288") && why.contains("smaller"),
                "{why}"
            )
        }
        Err(other) => panic!("a clear configuration error, not {other}"),
        Ok(_) => panic!("a 4 GiB scratch buffer was accepted"),
    }
}

#[test]
fn wgpu_batches_match_the_reference_and_round_trip() {
    let Some(mut gpu) = wgpu(64) else { return };
    let pages = test_pages();
    let result = gpu.compress_batch(&pages).expect("compress_batch");
    assert_eq!(
        result.pages,
        reference(&pages),
        "GPU records differ from the CPU reference"
    );
    assert!(
        result.h2d_time_ns > 0 && result.kernel_time_ns > 0 && result.d2h_time_ns > 0,
        "{result:?}"
    );
    assert!(result.total_time_ns >= result.kernel_time_ns);
    assert!(result.compression_ratio() > 1.0);
    assert_eq!(result.cpu_fallback_pages, 0);
    assert_eq!(result.transfer_clock, Clock::HostClock);
    let offered = gpu_timestamps_offered();
    assert_eq!(
        result.kernel_clock,
        if offered {
            Clock::WebGpuTimestamps
        } else {
            Clock::HostClock
        },
        "the kernel time comes from timestamp queries exactly when the adapter offers them"
    );
    common::say(&format!("gpu_batch on WebGPU: {}", result.summary()));
    assert_eq!(
        gpu.decompress_batch(&result.pages)
            .expect("decompress_batch"),
        pages
    );
    let stats = gpu.stats();
    assert_eq!(
        (stats.pages_compressed, stats.cpu_fallbacks),
        (pages.len() as u64, 0)
    );
    assert_eq!(stats.total_bytes_in, (pages.len() * PAGE_SIZE) as u64);
    let out: usize = result.pages.iter().map(CompressedPage::encoded_len).sum();
    assert_eq!(stats.total_bytes_out, out as u64);
}

#[test]
fn a_failed_gpu_batch_is_redone_on_the_cpu_exactly() {
    let Some(mut gpu) = wgpu(50) else { return };
    let pages = test_pages(); // batches 0..=4 of 50, 50, 50, 50, 3 pages
    gpu.inject_faults([1, 4]);
    let result = gpu
        .compress_batch(&pages)
        .expect("compress_batch survives GPU failures");
    assert_eq!(result.pages, reference(&pages));
    assert_eq!(
        result.cpu_fallback_pages, 53,
        "batches 1 and 4: 50 + 3 pages"
    );
    assert!(result
        .summary()
        .contains("53 of them compressed on the CPU"));
    let stats: &BatchStats = gpu.stats();
    assert_eq!(stats.cpu_fallbacks, 2);
    assert!(
        stats
            .last_failure
            .as_deref()
            .is_some_and(|f| f.contains("batch 4")),
        "{stats:?}"
    );
    assert_eq!(
        gpu.decompress_batch(&result.pages)
            .expect("decompress_batch"),
        pages
    );
}

#[test]
fn a_corrupt_page_is_reported_with_its_index() {
    let Some(mut gpu) = wgpu(16) else { return };
    let pages = test_pages();
    let mut records = reference(&pages);
    let victim = records
        .iter()
        .rposition(|r| matches!(r, CompressedPage::Lz4(_)))
        .expect("an LZ4 page");
    if let CompressedPage::Lz4(block) = &mut records[victim] {
        block.truncate(block.len() / 2);
    }
    match gpu.decompress_batch(&records) {
        Err(GpuError::Corrupt { page, .. }) => assert_eq!(page, victim),
        other => panic!("expected a corrupt-page error, got {other:?}"),
    }
}

#[test]
fn invalid_configs_are_refused_before_any_device_is_touched() {
    for (config, what) in [
        (
            GpuBatchConfig {
                batch_size: 0,
                ..GpuBatchConfig::default()
            },
            "batch_size",
        ),
        (
            GpuBatchConfig {
                ring_buffer_slots: 0,
                ..GpuBatchConfig::default()
            },
            "ring_buffer_slots",
        ),
        (
            GpuBatchConfig {
                async_dma: true,
                ring_buffer_slots: 1,
                ..GpuBatchConfig::default()
            },
            "async_dma",
        ),
        (
            GpuBatchConfig {
                batch_size: usize::MAX,
                ..GpuBatchConfig::default()
            },
            "batch_size",
        ),
    ] {
        for backend in [GpuBackend::Cuda, GpuBackend::WebGpu] {
            match GpuBatchCompressor::with_backend(config.clone(), backend) {
                Err(GpuError::Config(why)) => assert!(why.contains(what), "{why}"),
                Err(e) => panic!("{config:?}: expected a config error, got {e}"),
                Ok(_) => panic!("{config:?} was accepted"),
            }
        }
    }
    let ok = GpuBatchConfig {
        device_index: 0,
        algorithm: Algorithm::Lz4,
        batch_size: 1,
        async_dma: false,
        ring_buffer_slots: 1,
    };
    assert!(ok.validate().is_ok());
}

/// Without a GPU: detection says no, and `compress --backend cuda` is a clear error. With one: detection
/// says yes and the same command round-trips the pages. Either way something is checked.
#[test]
fn detection_never_panics_and_cuda_is_a_clear_error_or_a_round_trip() {
    let available = gpu_available();
    let has_device_node = std::path::Path::new("/dev/nvidia0").exists();
    if !has_device_node {
        assert!(
            !available,
            "gpu_available() is true on a machine without /dev/nvidia0"
        );
        match GpuBatchCompressor::new(GpuBatchConfig::default()) {
            Err(e @ GpuError::NotAvailable(_)) => {
                assert!(e.is_no_device() && e.to_string().contains("CUDA"), "{e}")
            }
            Err(e) => panic!("expected NotAvailable, got {e}"),
            Ok(_) => panic!("a CUDA compressor opened without a device"),
        }
    } else if !available {
        // A device node but no usable GPU (an old GPU, or a driver error): the reason must say so.
        let why = warpforge::gpu::cuda_probe()
            .as_ref()
            .expect_err("gpu_available() is false");
        assert!(!why.is_empty());
        assert!(
            std::env::var_os("WARPFORGE_REQUIRE_CUDA").is_none_or(|v| v != "1"),
            "WARPFORGE_REQUIRE_CUDA=1 but the GPU is unusable: {why}"
        );
    }
    let dir = std::env::temp_dir().join(format!("wf-gpu-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let input = test_pages();
    std::fs::write(dir.join("in.pages"), input.as_flattened()).expect("write pages");
    let run = |args: &[&str], from: &str, to: &str| {
        // A bundle run on another machine (scripts/gpu-check.sh run) names the binary it carried: the
        // build-time path does not exist there.
        let bin = std::env::var_os("WARPFORGE_BIN")
            .unwrap_or_else(|| env!("CARGO_BIN_EXE_warpforge").into());
        std::process::Command::new(bin)
            .args(args)
            .arg(dir.join(from))
            .arg(dir.join(to))
            .output()
            .expect("run warpforge")
    };
    let out = run(&["compress", "--backend", "cuda"], "in.pages", "out.wfpa");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    if available {
        assert!(out.status.success(), "{stderr}");
        let back = run(
            &["decompress", "--backend", "cuda"],
            "out.wfpa",
            "back.pages",
        );
        assert!(
            back.status.success(),
            "{}",
            String::from_utf8_lossy(&back.stderr)
        );
        let decoded = std::fs::read(dir.join("back.pages")).expect("read pages");
        assert!(
            decoded == input.as_flattened(),
            "the CUDA round trip changed the pages"
        );
    } else {
        assert!(
            !out.status.success() && stderr.contains("no usable GPU"),
            "{stderr}"
        );
        assert!(!dir.join("out.wfpa").exists(), "no archive after a failure");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// On a CUDA machine (`scripts/gpu-check.sh`, or any machine where `gpu_available()`): the CUDA engine
/// with its ring matches the reference, with and without async DMA, and falls back on injected faults.
#[test]
fn cuda_batches_match_the_reference_when_a_gpu_is_present() {
    if !gpu_available() {
        if std::env::var_os("WARPFORGE_REQUIRE_CUDA").is_some_and(|v| v == "1") {
            panic!("WARPFORGE_REQUIRE_CUDA=1 but gpu_available() is false");
        }
        common::skip("cuda batch test", "no CUDA GPU (scripts/gpu-check.sh runs it on one; WARPFORGE_REQUIRE_CUDA=1 requires one)");
        return;
    }
    let pages = test_pages();
    let expected = reference(&pages);
    for (batch_size, async_dma, slots) in
        [(64, true, 3), (50, true, 2), (7, false, 1), (4096, true, 4)]
    {
        let config = GpuBatchConfig {
            batch_size,
            async_dma,
            ring_buffer_slots: slots,
            ..GpuBatchConfig::default()
        };
        let mut gpu = GpuBatchCompressor::new(config).expect("a CUDA compressor");
        let result = gpu.compress_batch(&pages).expect("compress_batch");
        assert_eq!(
            result.pages, expected,
            "batch {batch_size}, async {async_dma}"
        );
        assert!(
            result.h2d_time_ns > 0 && result.kernel_time_ns > 0 && result.d2h_time_ns > 0,
            "{result:?}"
        );
        assert_eq!(
            (result.kernel_clock, result.transfer_clock),
            (Clock::CudaEvents, Clock::CudaEvents)
        );
        assert_eq!(
            gpu.stats().cpu_fallbacks,
            0,
            "{:?}",
            gpu.stats().last_failure
        );
        assert_eq!(
            gpu.decompress_batch(&result.pages)
                .expect("decompress_batch"),
            pages
        );
        // Page-locked pages of the compressor: uploaded from and downloaded into directly.
        let mut locked = gpu.host_pages(pages.len()).expect("page-locked pages");
        locked.copy_from_slice(&pages);
        let from_locked = gpu.compress_batch(&locked).expect("compress_batch");
        assert_eq!(from_locked.pages, expected, "from host pages");
        locked.iter_mut().for_each(|p| p.fill(0x5a));
        gpu.decompress_into(&from_locked.pages, &mut locked)
            .expect("decompress_into host pages");
        assert_eq!(locked, pages, "into host pages");
        assert_eq!(
            gpu.stats().cpu_fallbacks,
            0,
            "{:?}",
            gpu.stats().last_failure
        );
        // Injected after a batch already ran: it hits the next call's first chunk.
        gpu.inject_faults([0]);
        let again = gpu.compress_batch(&pages).expect("compress_batch");
        assert_eq!(again.pages, expected);
        assert_eq!(again.cpu_fallback_pages, batch_size.min(pages.len()));
        assert_eq!(gpu.stats().cpu_fallbacks, 1);
    }
}

/// The CUDA engine's host pipeline (ring, meta-first compaction, decompression) with the simulator
/// standing in for the driver: the records equal the reference's, several ring slots in flight, and a
/// decode round-trips.
#[test]
fn the_cuda_host_pipeline_on_the_simulator_matches_the_reference() {
    let all = test_pages();
    // 203 pages through 3 slots of 64 (4 chunks, the last short); 40 pages through one slot of 16.
    for (n, batch_size, slots, async_dma) in [(203, 64, 3, true), (40, 16, 1, false)] {
        let pages = &all[..n];
        let config = GpuBatchConfig {
            batch_size,
            ring_buffer_slots: slots,
            async_dma,
            ..GpuBatchConfig::default()
        };
        let launcher = warpforge::runtime::Launcher::Sim(Default::default());
        let mut gpu = GpuBatchCompressor::cuda_pipeline_on(config, launcher).expect("opens");
        let result = gpu.compress_batch(pages).expect("compress_batch");
        assert_eq!(result.cpu_fallback_pages, 0, "{result:?}");
        assert_eq!(
            result.pages,
            reference(pages),
            "batch {batch_size}, {slots} slot(s): records differ from the CPU reference"
        );
        assert_eq!(result.kernel_clock, Clock::HostClock);
        let back = gpu
            .decompress_batch(&result.pages)
            .expect("decompress_batch");
        assert_eq!(
            back, pages,
            "batch {batch_size}: the decode does not round-trip"
        );
        // The compressor's own pages: uploaded from directly, the same records.
        let mut input = gpu.host_pages(n).expect("host pages");
        input.copy_from_slice(pages);
        let locked = gpu.compress_batch(&input).expect("compress_batch");
        assert_eq!(locked.pages, result.pages);
        assert_eq!(
            gpu.stats().cpu_fallback_pages,
            0,
            "every batch ran on the simulator"
        );
    }
}

/// `Algorithm::Lz4Level`: the batch API compresses at the configured level on the simulator (the CUDA
/// host pipeline and the launch engine), the records equal the reference's at that level, and a batch
/// the GPU fails is redone on the CPU at that level too.
#[test]
fn the_batch_api_compresses_at_the_configured_level() {
    use warpforge::codec::{PageCodec, ReferenceCodec};
    use warpforge::gpu::GpuBackend;
    use warpforge::kernels::lz4::Lz4Level;
    use warpforge::Algorithm;
    let pages = &test_pages()[..48];
    for level in [Lz4Level::FAST, Lz4Level::HIGH] {
        let want = ReferenceCodec::at_level(level)
            .compress(pages)
            .expect("the reference compresses");
        assert_ne!(
            want,
            reference(pages),
            "{level} writes other records than level 2"
        );
        let config = GpuBatchConfig {
            algorithm: Algorithm::Lz4Level(level),
            batch_size: 16,
            ..GpuBatchConfig::default()
        };
        let launcher = warpforge::runtime::Launcher::Sim(Default::default());
        let mut ring =
            GpuBatchCompressor::cuda_pipeline_on(config.clone(), launcher).expect("opens");
        let mut sim = GpuBatchCompressor::with_backend(config, GpuBackend::Sim).expect("opens");
        sim.inject_faults([1]);
        for (gpu, fell_back) in [(&mut ring, 0), (&mut sim, 16)] {
            let result = gpu.compress_batch(pages).expect("compress_batch");
            assert_eq!(result.cpu_fallback_pages, fell_back, "{level}");
            assert_eq!(
                result.pages, want,
                "{level}: records differ from the reference's"
            );
        }
    }
}
