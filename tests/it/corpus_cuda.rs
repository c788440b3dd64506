//! The simulator corpus (`corpus/`: PTX that nvcc 13, NVRTC 12.9 and Triton 3.9 compiled from
//! kernels written for warpforge) on a CUDA GPU, each entry with its launch file's inputs, against
//! the PTX simulator on the same inputs and against the expected outputs numpy computed: integer
//! outputs must be bit-identical to the simulator's, float outputs within the bound the launch file
//! states (the GPU's `.approx` functions and its contraction choices are not the simulator's). The
//! entries the simulator does not pass (`corpus/not_passing.tsv`) are run on the GPU too and
//! reported, not compared; so are entries whose PTX ISA version is newer than the driver's JIT reads
//! (said loudly). Runs on a GPU machine (`scripts/gpu-check.sh run`); skips loudly
//! elsewhere (a failure with `WARPFORGE_REQUIRE_CUDA=1`).

use crate::common;
use crate::corpus_support;

use std::collections::BTreeMap;
use std::path::PathBuf;

use corpus_support::{generate, mismatch, recorded, scalar_bits, width, Compare, Entry, Param};
use warpforge::runtime::cuda::{cuda_or_skip, CudaDevice, CudaError, PtxShape, PtxValue};
use warpforge::runtime::sim::ptx::{self, PtxArg, PtxKernel, PtxLaunch};
use warpforge::runtime::sim::SimOptions;
use warpforge::runtime::BufferArg;

/// The corpus: where it was built, else relative to the working directory (a GPU machine runs the
/// test binary from the root of a copy of the repository).
fn corpus_dir() -> PathBuf {
    let built = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus");
    if built.is_dir() {
        built
    } else {
        PathBuf::from("corpus")
    }
}

/// Every launch file, sorted by id.
fn entries(dir: &std::path::Path) -> Vec<Entry> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("launch"))
        .expect("corpus/launch")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).expect("a launch file");
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()))
        })
        .collect()
}

/// An entry's buffers: initial bytes, and whether they come back.
type Buffers = Vec<(Vec<u8>, bool)>;

/// An entry's buffers and its parameters for both runs.
fn arguments(dir: &std::path::Path, e: &Entry) -> (Buffers, Vec<PtxArg>, Vec<PtxValue>) {
    let (mut data, mut sim, mut gpu) = (Vec::new(), Vec::new(), Vec::new());
    for p in &e.params {
        match p {
            Param::Scalar { ty, value } => {
                let bits = scalar_bits(ty, value);
                sim.push(PtxArg::Scalar(bits));
                gpu.push(PtxValue::Scalar {
                    bits,
                    bytes: width(ty) as u32,
                });
            }
            Param::Buffer {
                ty,
                len,
                init,
                output,
                writable,
                ..
            } => {
                data.push((generate(dir, init, ty, *len), *output || *writable));
                sim.push(PtxArg::Buffer);
                gpu.push(PtxValue::Buffer);
            }
        }
    }
    (data, sim, gpu)
}

fn buffer_args(data: &mut [(Vec<u8>, bool)]) -> Vec<BufferArg<'_>> {
    data.iter_mut()
        .map(|(b, w)| match w {
            true => BufferArg::ReadWrite(b),
            false => BufferArg::ReadOnly(b),
        })
        .collect()
}

/// Compares one entry's GPU outputs with the simulator's and the expected ones; the first problem.
fn compare(
    dir: &std::path::Path,
    e: &Entry,
    on_gpu: &[(Vec<u8>, bool)],
    on_sim: &[(Vec<u8>, bool)],
) -> Option<String> {
    let buffers = e
        .params
        .iter()
        .filter(|p| matches!(p, Param::Buffer { .. }));
    for (p, (gpu, sim)) in buffers.zip(on_gpu.iter().zip(on_sim)) {
        let Param::Buffer {
            name,
            ty,
            output: true,
            expected,
            compare,
            ..
        } = p
        else {
            continue;
        };
        let exact = Compare::default();
        let cmp = compare.as_ref().unwrap_or(&exact);
        let float = matches!(ty.as_str(), "f32" | "f64" | "f16" | "bf16");
        // Integers: bit for bit with the simulator (elements an atomic order decides excepted).
        if !float {
            if let Some(m) = mismatch(ty, &gpu.0, &sim.0, cmp) {
                return Some(format!("`{name}` differs from the simulator: {m}"));
            }
        }
        let want = std::fs::read(dir.join(expected.as_ref()?)).expect("an expected-output file");
        if let Some(m) = mismatch(ty, &gpu.0, &want, cmp) {
            return Some(format!(
                "`{name}` outside the stated bound of the expected: {m}"
            ));
        }
    }
    None
}

#[test]
fn corpus_entries_on_cuda_match_the_simulator() {
    let test = "corpus_entries_on_cuda_match_the_simulator";
    let Some(info) = cuda_or_skip(test) else {
        return;
    };
    let device = CudaDevice::new(info.index).expect("the device opens");
    let dir = corpus_dir();
    let skip = recorded(&dir);
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    let (mut compared, mut failures, mut listed) = (0, Vec::new(), Vec::new());
    let mut too_new: Vec<String> = Vec::new();
    let all = entries(&dir);
    for e in &all {
        let text = texts
            .entry(e.ptx.clone())
            .or_insert_with(|| std::fs::read_to_string(dir.join(&e.ptx)).expect("a PTX file"))
            .clone();
        let (mut on_gpu, sim_args, gpu_values) = arguments(&dir, e);
        let mut on_sim = on_gpu.clone();
        let shape = PtxShape {
            grid: e.grid,
            block: e.block,
            dynamic_shared: e.dynamic_shared,
        };
        let ran = device.run_ptx(
            &text,
            &e.entry,
            &shape,
            &gpu_values,
            &mut buffer_args(&mut on_gpu),
        );
        if skip.contains_key(&e.id) {
            listed.push(format!(
                "{}: cuda {}",
                e.id,
                ran.map_or_else(|e| e.to_string(), |_| "ran".into())
            ));
            continue;
        }
        match ran {
            // A PTX ISA newer than the driver's JIT (Triton 3.9's sm_90 PTX is 9.4; CUDA 13.0's
            // driver reads up to 9.0): nothing to compare on this machine, said loudly.
            Err(CudaError::Jit { code: 222, .. }) => {
                too_new.push(e.id.clone());
                continue;
            }
            Err(err) => {
                failures.push(format!("{}: cuda: {err}", e.id));
                continue;
            }
            Ok(_) => {}
        }
        let module = warpforge::ptx::parse::parse(&text).expect("the corpus parses");
        let kernel = PtxKernel::from_module(&module, &e.entry).expect("a passing entry decodes");
        let launch = PtxLaunch {
            grid: e.grid,
            block: e.block,
            dynamic_shared: e.dynamic_shared,
        };
        let options = SimOptions {
            step_limit: 250_000,
            ..SimOptions::default()
        };
        ptx::run(
            &kernel,
            &launch,
            &sim_args,
            &mut buffer_args(&mut on_sim),
            &options,
        )
        .expect("a passing entry launches");
        match compare(&dir, e, &on_gpu, &on_sim) {
            Some(problem) => failures.push(format!("{}: {problem}", e.id)),
            None => compared += 1,
        }
    }
    common::say(&format!(
        "corpus on {}: {} entries, {compared} compared (integers bit-identical to the simulator, \
         floats within their stated bounds), {} listed as not passing on the simulator ran on the \
         GPU: {listed:?}",
        info.label(),
        all.len(),
        listed.len()
    ));
    if !too_new.is_empty() {
        common::skip(
            test,
            &format!(
                "{} entries use a PTX ISA newer than this driver's JIT reads \
                 (CUDA_ERROR_UNSUPPORTED_PTX_VERSION), not compared here: {too_new:?}",
                too_new.len()
            ),
        );
    }
    assert!(
        failures.is_empty(),
        "{} entries differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
