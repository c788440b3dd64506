//! The lint corpus's PTX from NVIDIA's compilers (`analysis/tests/corpus/ptx/`: nvcc 13 for sm_80 and
//! sm_90, with and without line info, NVRTC 12.9 for sm_70) on a CUDA GPU, against the PTX simulator
//! with the same inputs: every buffer must come back with the simulator's bytes. The simulator's side
//! is checked against values computed in Rust by `sim/tests/it/ptx_nvcc.rs` (same entries, same inputs);
//! this closes the loop to the hardware. The floats are sums of small integers, exact in any order,
//! so floats too must be bit-identical. Runs on a GPU machine (`scripts/gpu-check.sh run`); skips
//! loudly elsewhere (a failure with `WARPFORGE_REQUIRE_CUDA=1`).

use crate::common::{self, Rng};

use std::path::PathBuf;

use warpforge::runtime::cuda::{cuda_or_skip, CudaDevice, PtxShape, PtxValue};
use warpforge::runtime::sim::ptx::{self, PtxArg, PtxKernel, PtxLaunch};
use warpforge::runtime::sim::SimOptions;
use warpforge::runtime::BufferArg;

const VARIANTS: [&str; 4] = [
    "nvcc13.sm80",
    "nvcc13.sm90",
    "nvcc13-lineinfo.sm80",
    "nvrtc129.sm70",
];

/// The corpus folder: where the sources were built, else relative to the working directory (a GPU
/// machine runs the test binary from a copy of the repository).
fn corpus_dir() -> PathBuf {
    let built = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("analysis/tests/corpus/ptx");
    if built.is_dir() {
        built
    } else {
        PathBuf::from("analysis/tests/corpus/ptx")
    }
}

/// The inputs of `sim/tests/it/ptx_nvcc.rs`, from the same splitmix64 stream.
impl Rng {
    /// `n` integers in `-100..100`, as i32 or f32 little-endian bytes.
    fn ints(&mut self, n: usize, float: bool) -> Vec<u8> {
        (0..n)
            .map(|_| (self.next() % 200) as i32 - 100)
            .flat_map(|x| match float {
                true => (x as f32).to_le_bytes(),
                false => x.to_le_bytes(),
            })
            .collect()
    }
}

/// One entry's launch: the source stem, a part of its mangled name, blocks, threads, dynamic shared
/// bytes, the input buffer, the sizes of the written buffers, and `n` (the last parameter).
struct Case {
    stem: &'static str,
    entry: &'static str,
    blocks: u32,
    threads: u32,
    dynamic_shared: u32,
    input: Vec<u8>,
    outputs: Vec<usize>,
    n: u32,
}

fn cases() -> Vec<Case> {
    let case =
        |stem, entry, shape: (usize, u32, u32), input: &Vec<u8>, outputs: Vec<usize>, n| Case {
            stem,
            entry,
            blocks: shape.0 as u32,
            threads: shape.1,
            dynamic_shared: shape.2,
            input: input.clone(),
            outputs,
            n: n as u32,
        };
    let reduce = Rng(1).ints(3000, true);
    let cg = Rng(2).ints(1000, true);
    let scan = Rng(3).ints(1000, false);
    let mut rng = Rng(4);
    let keys: Vec<u8> = (0..600)
        .flat_map(|_| ((rng.next() % 40) as i32).to_le_bytes())
        .collect();
    let subset = Rng(5).ints(600, true);
    vec![
        case(
            "smem_reduce",
            "smem_reduce_fixed",
            (6, 256, 0),
            &reduce,
            vec![6 * 4],
            3000,
        ),
        case(
            "smem_reduce",
            "smem_reduce_dynamic",
            (24, 128, 512),
            &reduce,
            vec![24 * 4],
            3000,
        ),
        case(
            "cg_reduce",
            "cg_tile32_reduce",
            (4, 256, 0),
            &cg,
            vec![4],
            1000,
        ),
        case(
            "cg_reduce",
            "cg_tile16_reduce",
            (4, 256, 0),
            &cg,
            vec![16, 4000],
            1000,
        ),
        case(
            "cub_block_scan",
            "cub_scan_raking",
            (8, 128, 0),
            &scan,
            vec![4000, 32],
            1000,
        ),
        case(
            "cub_block_scan",
            "cub_scan_warp_scans",
            (2, 128, 0),
            &scan,
            vec![4000],
            1000,
        ),
        case(
            "vote_match",
            "vote_match_count",
            (5, 128, 0),
            &keys,
            vec![4096, 80],
            600,
        ),
        case(
            "vote_match",
            "ballot_subset",
            (5, 128, 0),
            &subset,
            vec![2400],
            600,
        ),
    ]
}

#[test]
fn corpus_entries_give_the_simulators_bytes_on_cuda() {
    let test = "corpus_entries_give_the_simulators_bytes_on_cuda";
    let Some(info) = cuda_or_skip(test) else {
        return;
    };
    let device = CudaDevice::new(info.index).expect("the device opens");
    let dir = corpus_dir();
    let mut compared = 0;
    for variant in VARIANTS {
        for case in cases() {
            let path = dir.join(format!("{}.{variant}.ptx", case.stem));
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let module = warpforge::ptx::parse::parse(&text).expect("the corpus parses");
            let entry = module
                .entries()
                .find(|e| e.name.contains(case.entry))
                .unwrap_or_else(|| panic!("{}: no entry like `{}`", path.display(), case.entry))
                .name
                .clone();
            let what = format!("{entry} ({variant})");
            let kernel = PtxKernel::from_module(&module, &entry).expect("the entry decodes");
            let block = kernel
                .block_shape(Some([case.threads, 1, 1]))
                .expect("a block shape");
            let fresh =
                || -> Vec<Vec<u8>> { case.outputs.iter().map(|&bytes| vec![0u8; bytes]).collect() };
            // The simulator.
            let mut on_sim = fresh();
            let mut sim_args = vec![BufferArg::ReadOnly(&case.input)];
            sim_args.extend(on_sim.iter_mut().map(|b| BufferArg::ReadWrite(b)));
            let mut args = vec![PtxArg::Buffer; sim_args.len()];
            args.push(PtxArg::Scalar(u64::from(case.n)));
            let launch = PtxLaunch {
                grid: [case.blocks, 1, 1],
                block,
                dynamic_shared: case.dynamic_shared,
            };
            let report = ptx::run(
                &kernel,
                &launch,
                &args,
                &mut sim_args,
                &SimOptions::default(),
            )
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(report.is_clean(), "{what} on the simulator: {report:?}");
            drop(sim_args);
            // The GPU, same inputs, outputs zeroed as on the simulator (two entries add to them
            // atomically).
            let mut on_gpu = fresh();
            let mut gpu_args = vec![BufferArg::ReadOnly(&case.input)];
            gpu_args.extend(on_gpu.iter_mut().map(|b| BufferArg::ReadWrite(b)));
            let mut values = vec![PtxValue::Buffer; gpu_args.len()];
            values.push(PtxValue::Scalar {
                bits: u64::from(case.n),
                bytes: 4,
            });
            let shape = PtxShape {
                grid: launch.grid,
                block,
                dynamic_shared: case.dynamic_shared,
            };
            device
                .run_ptx(&text, &entry, &shape, &values, &mut gpu_args)
                .unwrap_or_else(|e| panic!("{what} on cuda: {e}"));
            drop(gpu_args);
            for (i, (gpu, sim)) in on_gpu.iter().zip(&on_sim).enumerate() {
                if let Some(at) = gpu.iter().zip(sim).position(|(a, b)| a != b) {
                    let word = at / 4 * 4;
                    panic!(
                        "{what}: output {i} differs at byte {at}: cuda {:02x?}, sim {:02x?}",
                        &gpu[word..word + 4],
                        &sim[word..word + 4]
                    );
                }
            }
            compared += 1;
        }
    }
    common::say(&format!(
        "{compared} corpus entries ({} sources x {} compilations) on {}: every buffer identical to \
         the PTX simulator's",
        cases().len(),
        VARIANTS.len(),
        info.label()
    ));
}
