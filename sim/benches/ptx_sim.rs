//! The PTX simulator's speed in warp-instructions per second, on one worker thread, with the
//! sanitizer on and off: two SGEMM kernels compiled by nvcc 13 (`fixtures/sgemm.cu`, our own code),
//! 128 x 128 x 128, blocks of 16 x 16 threads. Each configuration is checked once against a CPU
//! reference before it is timed. Criterion's throughput line ("thrpt") is warp-instructions/s.
//! Run: `cargo bench -p warpforge-sim --bench ptx_sim`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use warpforge_sim::ptx::{run, PtxArg, PtxKernel, PtxLaunch};
use warpforge_sim::{BufferArg, SimOptions};

const PTX: &str = include_str!("fixtures/sgemm.ptx");
const N: usize = 128;

/// Deterministic operands in [-1, 1) on a grid of 1/64 (sums of their products are exact in f32).
fn operand(seed: u32) -> Vec<f32> {
    (0..N * N)
        .map(|i| {
            ((i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed) >> 25) as f32 / 64.0 - 1.0
        })
        .collect()
}

fn bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// C = 1.5 * A * B + 0.5 * C on the CPU.
fn reference(a: &[f32], b: &[f32], c: &[f32]) -> Vec<f32> {
    let mut out = vec![0.0; N * N];
    for r in 0..N {
        for col in 0..N {
            let acc: f32 = (0..N).map(|k| a[r * N + k] * b[k * N + col]).sum();
            out[r * N + col] = 1.5 * acc + 0.5 * c[r * N + col];
        }
    }
    out
}

/// One launch; returns C and the warp-instructions it executed.
fn launch(kernel: &PtxKernel, a: &[u8], b: &[u8], c: &[u8], sanitize: bool) -> (Vec<u8>, u64) {
    let n = N as u64;
    let args = [
        PtxArg::Scalar(n),
        PtxArg::Scalar(n),
        PtxArg::Scalar(n),
        PtxArg::Scalar(u64::from(1.5f32.to_bits())),
        PtxArg::Buffer,
        PtxArg::Buffer,
        PtxArg::Scalar(u64::from(0.5f32.to_bits())),
        PtxArg::Buffer,
    ];
    let mut out = c.to_vec();
    let mut buffers = [
        BufferArg::ReadOnly(a),
        BufferArg::ReadOnly(b),
        BufferArg::ReadWrite(&mut out),
    ];
    let shape = PtxLaunch {
        grid: [N as u32 / 16, N as u32 / 16, 1],
        block: [16, 16, 1],
        dynamic_shared: 0,
    };
    let options = SimOptions {
        sanitize,
        threads: 1,
        ..SimOptions::default()
    };
    let report = run(kernel, &shape, &args, &mut buffers, &options).expect("launches");
    assert!(report.is_clean(), "findings: {:?}", report.findings);
    (out, report.counters.warp_instructions())
}

fn sgemm(c: &mut Criterion) {
    let (a, b, c0) = (operand(1), operand(2), operand(3));
    let want = reference(&a, &b, &c0);
    let (a, b, c0) = (bytes(&a), bytes(&b), bytes(&c0));
    let mut group = c.benchmark_group("ptx-sim sgemm 128^3, 1 thread");
    group.sample_size(10);
    for entry in ["sgemm_naive", "sgemm_tiled"] {
        let kernel = PtxKernel::load(PTX, entry).expect("decodes");
        // The warp-instructions of one launch (the throughput's unit), the same sanitizer on or off.
        let (_, instructions) = launch(&kernel, &a, &b, &c0, false);
        for sanitize in [false, true] {
            group.throughput(Throughput::Elements(instructions));
            let name = format!("{entry} sanitizer {}", if sanitize { "on" } else { "off" });
            group.bench_function(name, |bench| {
                // Checked here, so that a filtered run checks only what it times.
                let (out, counted) = launch(&kernel, &a, &b, &c0, sanitize);
                assert_eq!(counted, instructions, "{entry}: the same count every run");
                let got: Vec<f32> = out
                    .chunks_exact(4)
                    .map(|w| f32::from_le_bytes(w.try_into().expect("4 bytes")))
                    .collect();
                assert_eq!(got, want, "{entry} computes C");
                bench.iter(|| launch(&kernel, &a, &b, &c0, sanitize))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, sgemm);
criterion_main!(benches);
