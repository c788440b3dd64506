//! Launch overhead on the WebGPU backend, with and without the per-device pipeline cache: `vector_add`
//! (from IR, emitted to WGSL) over 1024 `f32`s in 8 blocks, launched end to end (upload, pipeline,
//! dispatch, read-back). `cold` clears the cache before every launch, so each one compiles the shader
//! and pipeline (what every launch did before the cache); `cached` reuses the pipeline.
//!
//! Run: `cargo bench -p warpforge-runtime --bench launch -- --warm-up-time 1 --measurement-time 5`.
//! Without a WebGPU adapter it says so and measures nothing.

use std::hint::black_box;
use std::io::Write;

use criterion::{criterion_group, criterion_main, Criterion};
use warpforge_runtime::webgpu::{BufferArg, WebGpuDevice, WebGpuError};

/// Elements per launch.
const N: u32 = 1024;
/// Blocks per launch (`vector_add` has 128 threads per block).
const BLOCKS: u32 = 8;

fn launch(c: &mut Criterion) {
    let kernel = warpforge_ir::samples::vector_add();
    let wgsl = warpforge_wgsl::emit(&warpforge_ir::verify(&kernel).expect("vector_add verifies"))
        .expect("vector_add emits WGSL");
    assert_eq!(wgsl.workgroup_size * BLOCKS, N);
    let device = match WebGpuDevice::new(&wgsl.requirements) {
        Ok(device) => device,
        Err(WebGpuError::NoAdapter) => {
            let _ = writeln!(
                std::io::stderr(),
                "*** launch bench: no WebGPU adapter (install mesa-vulkan-drivers); nothing measured ***"
            );
            return;
        }
        Err(error) => panic!("opening a WebGPU device: {error}"),
    };
    let _ = writeln!(std::io::stderr(), "launch bench on {}", device.adapter());

    let floats =
        |f: fn(u32) -> f32| -> Vec<u8> { (0..N).flat_map(|i| f(i).to_le_bytes()).collect() };
    let a = floats(|i| i as f32);
    let b = floats(|i| (N - i) as f32 * 0.5);
    let mut out = vec![0u8; a.len()];
    let run = |device: &WebGpuDevice, out: &mut [u8]| {
        let mut buffers = [
            BufferArg::ReadOnly(&a),
            BufferArg::ReadOnly(&b),
            BufferArg::ReadWrite(out),
        ];
        device
            .run(&wgsl, BLOCKS, &mut buffers, &[u64::from(N)])
            .expect("vector_add runs")
    };

    // One checked launch first: the bench measures a launch that works.
    let timings = run(&device, &mut out);
    let expected = floats(|i| i as f32 + (N - i) as f32 * 0.5);
    assert!(out == expected, "vector_add gave wrong sums");
    let _ = writeln!(
        std::io::stderr(),
        "one launch: kernel {} ns on the {}",
        timings.kernel_ns,
        timings.kernel_clock
    );

    let mut group = c.benchmark_group("launch vector_add (1024 f32, 8 blocks)");
    group.bench_function("cold", |bench| {
        bench.iter(|| {
            device.clear_pipeline_cache();
            black_box(run(&device, &mut out))
        })
    });
    group.bench_function("cached", |bench| {
        // Build once outside the measurement.
        run(&device, &mut out);
        bench.iter(|| black_box(run(&device, &mut out)))
    });
    group.finish();
}

criterion_group!(benches, launch);
criterion_main!(benches);
