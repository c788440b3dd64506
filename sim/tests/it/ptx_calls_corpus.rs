//! The lint corpus's nvcc/NVRTC output with calls of a `.func` on the PTX simulator
//! (analysis/tests/corpus/src/ says what each computes): the planted `__syncthreads` in a device
//! function called under divergence (`bug_b001_device_fn`) is the barrier finding, and the same
//! function called by the whole block (`device_barrier`) runs clean with the values computed here in
//! Rust.

use warpforge_sim::ptx::{self, PtxArg, PtxKernel, PtxLaunch};
use warpforge_sim::{BufferArg, FindingKind, SimOptions, SimReport};

fn corpus(file: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../analysis/tests/corpus/ptx");
    std::fs::read_to_string(dir.join(file)).expect("corpus file")
}

const VARIANTS: [&str; 4] = [
    "nvcc13-lineinfo.sm80",
    "nvcc13.sm80",
    "nvcc13.sm90",
    "nvrtc129.sm70",
];

fn launch_corpus(text: &str, entry: &str, input: &[f32], scalars: &[u64]) -> (SimReport, Vec<f32>) {
    let kernel = PtxKernel::load(text, entry).unwrap_or_else(|e| panic!("{e}"));
    let bytes: Vec<u8> = input.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut out = vec![0u8; bytes.len()];
    let mut args = vec![PtxArg::Buffer, PtxArg::Buffer];
    args.extend(scalars.iter().map(|&s| PtxArg::Scalar(s)));
    let launch = PtxLaunch {
        grid: [input.len() as u32 / 128, 1, 1],
        block: [128, 1, 1],
        dynamic_shared: 0,
    };
    let report = ptx::run(
        &kernel,
        &launch,
        &args,
        &mut [BufferArg::ReadOnly(&bytes), BufferArg::ReadWrite(&mut out)],
        &SimOptions::default(),
    )
    .expect("the launch starts");
    let out = out
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    (report, out)
}

#[test]
fn the_corpus_barrier_in_a_function_called_under_divergence_is_found() {
    // Positive inputs on even threads only: half of every warp calls exchange() and its
    // `bar.sync`. The others skip the call and exit, and exited threads do not hold a barrier up
    // (PTX ISA, `exit`; the linter's B001 warning says the same and cites the CUDA guide): the
    // barriers complete, and what the skipping threads never wrote is read — initcheck's finding,
    // the bug's real effect.
    let input: Vec<f32> = (0..256)
        .map(|i| if i % 2 == 0 { 1.0 + i as f32 } else { -1.0 })
        .collect();
    for v in VARIANTS {
        let text = corpus(&format!("bug_b001_device_fn.{v}.ptx"));
        let (report, _) = launch_corpus(&text, "bug_b001_device_fn", &input, &[]);
        assert!(
            !report
                .findings
                .iter()
                .any(|f| f.kind == FindingKind::PartialBarrier),
            "{v}: {:#?}",
            report.findings
        );
        let f = report
            .findings
            .iter()
            .find(|f| f.kind == FindingKind::UninitializedShared)
            .unwrap_or_else(|| panic!("{v}: {:#?}", report.findings));
        assert!(f.statement.contains("ld.shared"), "{v}: {}", f.statement);
    }
}

#[test]
fn the_corpus_barrier_in_a_function_called_by_the_whole_block_runs_clean() {
    let input: Vec<f32> = (0..256).map(|i| (i as f32) * 0.25 - 7.0).collect();
    for rounds in [1u32, 3] {
        // device_barrier.cu in f32, in the kernel's order.
        let mut want = Vec::new();
        for block in input.chunks(128) {
            let exchange = |v: &[f32], t: usize| v[(t + 1) % 128];
            let neighbour = |v: &[f32], t: usize| v[t] + v[t ^ 1];
            let mut v: Vec<f32> = (0..128).map(|t| exchange(block, t)).collect();
            v = (0..128).map(|t| neighbour(&v, t)).collect();
            if rounds > 1 {
                let half: Vec<f32> = v.iter().map(|x| x * 0.5).collect();
                v = (0..128).map(|t| exchange(&half, t)).collect();
            }
            for _ in 2..rounds {
                v = (0..128).map(|t| neighbour(&v, t)).collect();
            }
            want.extend(v);
        }
        for variant in VARIANTS {
            let text = corpus(&format!("device_barrier.{variant}.ptx"));
            let (report, out) =
                launch_corpus(&text, "device_barrier", &input, &[u64::from(rounds)]);
            assert!(report.is_clean(), "{variant}: {:#?}", report.findings);
            assert_eq!(out, want, "{variant}, rounds {rounds}");
            assert!(report.counters.barriers > 0, "{variant}");
        }
    }
}
