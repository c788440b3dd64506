//! `warpforge run` on every launch backend with the same command: a user's kernel (a `.wfir` file, not
//! in the catalog) gives the same buffers on `sim`, `webgpu` and `cuda`, and every catalog kernel, with
//! inputs from its plain-Rust reference suite, runs on `webgpu` and `cuda` with `--check sim` clean and
//! gives the reference's outputs. WebGPU runs on lavapipe in CI; the CUDA tests skip loudly without a
//! CUDA GPU and run on a GPU machine (scripts/gpu-check.sh sets WARPFORGE_REQUIRE_CUDA=1).

use crate::catalog_cases;
use crate::common;
use crate::run_support;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use run_support::*;
use warpforge::catalog;
use warpforge::ir::{Access, ParamKind};
use warpforge::runtime::cuda::cuda_or_skip;
use warpforge::runtime::Backend;

/// Runs the saxpy fixture on `backend` (plus `extra` words) into a fresh folder; returns the folder.
fn saxpy_on(backend: &str, extra: &str, saxpy: &Saxpy) -> std::path::PathBuf {
    let dir = scratch(&format!("saxpy-{backend}"));
    let words = format!("--backend {backend} {extra} {}", Saxpy::WORDS);
    let out = warpforge(&words, &strs(&saxpy.paths(&dir)));
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{backend}: {stdout}{}",
        text(&out.stderr)
    );
    assert!(
        stdout.starts_with(&format!("run: kernel `saxpy_offset` on {backend}")),
        "{stdout}"
    );
    saxpy.check_outputs(&dir);
    dir
}

fn same_files(a: &std::path::Path, b: &std::path::Path, what: &str) {
    for file in ["y.out", "idx.out"] {
        let (x, y) = (
            std::fs::read(a.join(file)).expect("written"),
            std::fs::read(b.join(file)).expect("written"),
        );
        assert!(x == y, "{file} differs between sim and {what}");
    }
}

#[test]
fn a_users_kernel_gives_identical_buffers_on_sim_and_webgpu() {
    let test = "a_users_kernel_gives_identical_buffers_on_sim_and_webgpu";
    let kernel = std::fs::read_to_string(saxpy_path()).expect("fixture");
    let kernel = warpforge::ir::parse_kernel(&kernel).expect("parses");
    let wgsl =
        warpforge::wgsl::emit(&warpforge::ir::verify(&kernel).expect("verifies")).expect("emits");
    if !common::webgpu_or_skip(test, &wgsl.requirements) {
        return;
    }
    let saxpy = Saxpy::new();
    let on_sim = saxpy_on("sim", "", &saxpy);
    let on_webgpu = saxpy_on("webgpu", "", &saxpy);
    same_files(&on_sim, &on_webgpu, "webgpu");
    for dir in [on_sim, on_webgpu] {
        std::fs::remove_dir_all(dir).expect("clean up");
    }
}

#[test]
fn a_users_kernel_runs_on_cuda_like_on_sim() {
    if cuda_or_skip("a_users_kernel_runs_on_cuda_like_on_sim").is_none() {
        return;
    }
    let saxpy = Saxpy::new();
    let on_sim = saxpy_on("sim", "", &saxpy);
    let on_cuda = saxpy_on("cuda", "--check sim", &saxpy);
    same_files(&on_sim, &on_cuda, "cuda");
    for dir in [on_sim, on_cuda] {
        std::fs::remove_dir_all(dir).expect("clean up");
    }
}

/// Every catalog kernel through `warpforge run --kernel K --backend B --check sim`: the arguments come
/// from the kernel's reference suite (written to files), the run must be clean and identical to the
/// simulator, and the outputs must be the reference's.
fn every_catalog_kernel_through_run(backend: Backend) {
    let dir = scratch(&format!("catalog-{backend}"));
    let mut runner = TestRunner::deterministic();
    for entry in catalog::entries() {
        let kernel = entry.ir_for(backend);
        let one_warp = entry.ir_for(Backend::WebGpu);
        let case = catalog_cases::strategy(entry.name)
            .new_tree(&mut runner)
            .expect("a case")
            .current();
        // The suite's block counts are for one warp per block where the shapes differ.
        let grid = case
            .blocks
            .div_ceil(kernel.block_size / one_warp.block_size)
            .max(1);
        let (mut inputs, mut outputs, mut scalars) = (
            case.inputs.iter(),
            case.outputs.iter().enumerate(),
            case.scalars.iter(),
        );
        let mut args = vec![
            "--kernel".to_owned(),
            entry.name.to_owned(),
            "--grid".into(),
            grid.to_string(),
        ];
        let mut outs = Vec::new();
        for (_, param) in kernel.params.iter() {
            let value = match param.kind {
                ParamKind::Buffer {
                    access: Access::ReadOnly,
                    ..
                } => format!(
                    "@{}",
                    write(&dir, &param.name, inputs.next().expect("input"))
                ),
                ParamKind::Buffer { .. } => {
                    let (i, bytes) = outputs.next().expect("output");
                    let out = dir.join(format!("{}.out", param.name));
                    outs.push((i, out.clone()));
                    args.extend(["--out".into(), format!("{}={}", param.name, out.display())]);
                    format!("@{}", write(&dir, &param.name, bytes))
                }
                ParamKind::Scalar(_) => scalars.next().expect("scalar").to_string(),
            };
            args.extend(["--arg".into(), format!("{}={value}", param.name)]);
        }
        let words = format!("--backend {backend} --check sim");
        let out = warpforge(&words, &strs(&args));
        let stdout = text(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{} on {backend}: {stdout}{}",
            entry.name,
            text(&out.stderr)
        );
        assert!(
            stdout.contains("check: every read_write buffer is identical on sim"),
            "{}: {stdout}",
            entry.name
        );
        let got: Vec<Vec<u8>> = outs
            .iter()
            .map(|(_, path)| std::fs::read(path).expect("written"))
            .collect();
        if let Some(message) = catalog_cases::first_difference(entry.name, &got, &case) {
            panic!("{message} (on {backend} through warpforge run)");
        }
    }
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn every_catalog_kernel_runs_on_webgpu_through_run_checked_against_sim() {
    let test = "every_catalog_kernel_runs_on_webgpu_through_run_checked_against_sim";
    let requirements = warpforge::auto::webgpu_requirements().expect("the LZ4 kernels emit WGSL");
    if !common::webgpu_or_skip(test, &requirements) {
        return;
    }
    every_catalog_kernel_through_run(Backend::WebGpu);
}

#[test]
fn every_catalog_kernel_runs_on_cuda_through_run_checked_against_sim() {
    let test = "every_catalog_kernel_runs_on_cuda_through_run_checked_against_sim";
    if cuda_or_skip(test).is_none() {
        return;
    }
    every_catalog_kernel_through_run(Backend::Cuda);
}

/// A PTX file that nvcc wrote (a CUB block scan of the lint corpus) on the GPU with `--check sim`:
/// identical to the PTX simulator, and the scan the test computes.
#[test]
fn a_ptx_file_runs_on_cuda_like_on_the_ptx_simulator() {
    if cuda_or_skip("a_ptx_file_runs_on_cuda_like_on_the_ptx_simulator").is_none() {
        return;
    }
    let dir = scratch("ptx-cuda");
    let input: Vec<i32> = (0..1000).map(|i| (i * 7919 % 201) - 100).collect();
    let bytes: Vec<u8> = input.iter().flat_map(|x| x.to_le_bytes()).collect();
    let entry = "_Z15cub_scan_rakingPKiPiS1_i";
    // Where it was built, or relative to the root of a copy (scripts/gpu-check.sh).
    let file = "analysis/tests/corpus/ptx/cub_block_scan.nvcc13.sm90.ptx";
    let built = format!("{}/{file}", env!("CARGO_MANIFEST_DIR"));
    let ptx = match std::path::Path::new(&built).exists() {
        true => built,
        false => file.to_owned(),
    };
    let args = [
        ptx,
        "--entry".into(),
        entry.into(),
        "--arg".into(),
        format!("{entry}_param_0=@{}", write(&dir, "in", &bytes)),
        "--arg".into(),
        format!("{entry}_param_1=zeros:4000"),
        "--arg".into(),
        format!("{entry}_param_2=zeros:32"),
        "--arg".into(),
        format!("{entry}_param_3=1000"),
        "--out".into(),
        format!("{entry}_param_1={}", dir.join("out.bin").display()),
    ];
    let out = warpforge(
        "--backend cuda --check sim --grid 8 --block 128",
        &strs(&args),
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("on cuda ("), "{stdout}");
    assert!(
        stdout.contains("identical"),
        "the check says what it compared: {stdout}"
    );
    let got: Vec<i32> = std::fs::read(dir.join("out.bin"))
        .expect("written")
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    let mut want = Vec::new();
    for block in input.chunks(128) {
        let mut sum = 0;
        for x in block {
            want.push(sum);
            sum += x;
        }
    }
    assert_eq!(got, want, "exclusive prefix sums per block of 128");
    std::fs::remove_dir_all(dir).expect("clean up");
}
