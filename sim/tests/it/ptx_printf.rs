//! Device `printf` (nvcc's `vprintf` call) on the PTX simulator: each thread's text, formatted as
//! the CUDA runtime formats it, in the launch's report; the return value (the number of arguments)
//! back in the kernel; the report's bound on what it keeps.

use warpforge_sim::ptx::{run, PtxArg, PtxKernel, PtxLaunch};
use warpforge_sim::{BufferArg, SimOptions, SimReport, MAX_PRINTED};

const HELLO: &str = include_str!("../fixtures/printf/hello.sm80.ptx");

fn launch(threads: u32, blocks: u32, n: u32, sanitize: bool) -> SimReport {
    let kernel = PtxKernel::load(HELLO, "hello").expect("decodes");
    let x: Vec<u8> = (0..threads * blocks)
        .flat_map(|i| (i as f32 * 0.25 + 1.5).to_le_bytes())
        .collect();
    let mut buffers = [BufferArg::ReadOnly(&x)];
    let shape = PtxLaunch {
        grid: [blocks, 1, 1],
        block: [threads, 1, 1],
        dynamic_shared: 0,
    };
    let options = SimOptions {
        sanitize,
        threads: 1,
        ..SimOptions::default()
    };
    run(
        &kernel,
        &shape,
        &[PtxArg::Buffer, PtxArg::Scalar(u64::from(n))],
        &mut buffers,
        &options,
    )
    .expect("launches")
}

/// What glibc's printf prints for thread `i` of block `b` (the same format, written out here).
fn expected(i: u32, b: u32) -> String {
    let x = i as f32 * 0.25 + 1.5;
    let c = char::from(b'a' + i as u8);
    format!(
        "thread {i} of block {b}: x={:.2}, ok, {}, {:#x}, {c}|{:>5}|\n",
        f64::from(x),
        i64::from(i) * 1_000_000_000,
        255 + i,
        -(i as i32)
    )
}

#[test]
fn every_thread_prints_what_the_cuda_runtime_would() {
    for sanitize in [true, false] {
        let report = launch(8, 2, 11, sanitize);
        assert!(report.is_clean(), "{:?}", report.findings);
        let want: Vec<String> = (0..11).map(|i| expected(i, i / 8)).collect();
        assert_eq!(report.printed, want, "sanitizer {sanitize}");
        assert_eq!(report.printed_dropped, 0);
    }
}

#[test]
fn what_it_prints_is_bounded() {
    // 12 blocks of 1,024 threads print 12,288 lines; the report keeps MAX_PRINTED.
    let report = launch(1024, 12, 12 * 1024, false);
    assert_eq!(report.printed.len(), MAX_PRINTED);
    assert_eq!(report.printed_dropped, 12 * 1024 - MAX_PRINTED as u64);
    assert_eq!(report.printed[0], expected(0, 0));
}
