//! Runs a zoo case — a sequence of launches over a pool of buffers — on every backend that runs
//! here (the IR simulator, the PTX simulator for each target, WebGPU), compares the outputs with the
//! case's Rust reference within the kernel's bounds, and checks each kernel with ptxas (no spills)
//! and the linter (no finding).

use crate::common;

use warpforge::analysis::{has_errors, lint_kernel, lint_ptx, render_text, Rule};
use warpforge::ptx::Sm;
use warpforge::runtime::sim::SimOptions;
use warpforge::runtime::webgpu::WebGpuDevice;
use warpforge::runtime::{BufferArg, Launcher};
use warpforge_ir::{verify, Access, Kernel, ParamKind};
use warpforge_zoo::{Bounds, Tolerance};

/// One launch: the kernel, its grid (`[x, y, z]` blocks), which pool buffers its buffer parameters get (in parameter
/// order) and its scalar parameters' bits (in parameter order).
pub struct Launch {
    pub kernel: Kernel,
    pub grid: [u32; 3],
    pub buffers: Vec<usize>,
    pub scalars: Vec<u64>,
}

/// An output to compare: a pool buffer of `f32` and its reference.
pub struct Expect {
    pub name: &'static str,
    pub buffer: usize,
    pub want: Vec<f64>,
}

/// A zoo case.
pub struct Case {
    pub name: &'static str,
    pub pool: Vec<Vec<u8>>,
    pub launches: Vec<Launch>,
    pub expect: Vec<Expect>,
    pub bounds: Bounds,
}

/// `f32`s as little-endian bytes.
pub fn bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// `u32`s as little-endian bytes.
pub fn bytes_u32(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Little-endian bytes as `f32`s.
pub fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

/// An `f32` scalar argument.
pub fn f(v: f32) -> u64 {
    u64::from(v.to_bits())
}

/// Runs the case's launches in order on `device`; the pool afterwards.
fn run(device: &Launcher, case: &Case) -> Vec<Vec<u8>> {
    let mut pool = case.pool.clone();
    for launch in &case.launches {
        let verified = verify(&launch.kernel).expect("verifies");
        let loaded = device.load(&verified).expect("loads");
        let accesses: Vec<Access> = launch
            .kernel
            .params
            .iter()
            .filter_map(|(_, p)| match p.kind {
                ParamKind::Buffer { access, .. } => Some(access),
                ParamKind::Scalar(_) => None,
            })
            .collect();
        assert_eq!(
            accesses.len(),
            launch.buffers.len(),
            "{}",
            launch.kernel.name
        );
        let mut local: Vec<Vec<u8>> = launch.buffers.iter().map(|&b| pool[b].clone()).collect();
        let mut args: Vec<BufferArg<'_>> = local
            .iter_mut()
            .zip(&accesses)
            .map(|(b, access)| match access {
                Access::ReadOnly => BufferArg::ReadOnly(b),
                _ => BufferArg::ReadWrite(b),
            })
            .collect();
        let launched = device
            .launch_grid(&loaded, launch.grid, &mut args, &launch.scalars)
            .unwrap_or_else(|e| panic!("{}: {e}", launch.kernel.name));
        let findings: Vec<_> = launched.sim.iter().flat_map(|r| &r.findings).collect();
        assert!(findings.is_empty(), "{}: {findings:?}", launch.kernel.name);
        drop(args);
        for (k, &b) in launch.buffers.iter().enumerate() {
            pool[b] = std::mem::take(&mut local[k]);
        }
    }
    pool
}

/// Compares the case's outputs in `pool` within `tolerance`; returns the largest error relative to
/// the tolerance (≤ 1 when within it).
fn compare(backend: &str, case: &Case, pool: &[Vec<u8>], tolerance: Tolerance) -> f64 {
    let mut worst = 0f64;
    for expect in &case.expect {
        let got = floats(&pool[expect.buffer]);
        assert!(
            got.len() >= expect.want.len(),
            "{}: short output",
            expect.name
        );
        for (i, (&g, &w)) in got.iter().zip(&expect.want).enumerate() {
            let allowed = tolerance.abs + tolerance.rel * w.abs();
            let err = (f64::from(g) - w).abs();
            worst = worst.max(err / allowed);
            assert!(
                tolerance.admits(g, w),
                "{backend}: {} {}[{i}] = {g:e}, the reference is {w:e} (error {err:e}, allowed {allowed:e})",
                case.name,
                expect.name
            );
        }
    }
    worst
}

/// The case on the IR simulator and the PTX simulator (every target), within the simulators' bounds.
pub fn on_simulators(case: &Case) {
    let mut report = Vec::new();
    let sim = run(&Launcher::Sim(SimOptions::default()), case);
    report.push(format!(
        "sim {:.2}",
        compare("sim", case, &sim, case.bounds.simulators)
    ));
    for sm in Sm::ALL {
        let backend = format!("ptx-sim {}", sm.name());
        let out = run(&Launcher::PtxSim(SimOptions::default(), sm), case);
        let worst = compare(&backend, case, &out, case.bounds.simulators);
        report.push(format!("{backend} {worst:.2}"));
    }
    eprintln!(
        "zoo {}: largest error / tolerance: {}",
        case.name,
        report.join(", ")
    );
}

/// The cases on WebGPU within WGSL's bounds (a loud skip without an adapter).
pub fn on_webgpu(test: &str, cases: &[Case]) {
    for case in cases {
        let mut requirements = None;
        for launch in &case.launches {
            let verified = verify(&launch.kernel).expect("verifies");
            let r = warpforge::wgsl::emit(&verified)
                .expect("the WGSL emits")
                .requirements;
            // One loud skip for the whole zoo (no adapter, or one that cannot run a kernel).
            if !common::webgpu_or_skip(test, &r) {
                return;
            }
            requirements.get_or_insert(r);
        }
        let requirements = requirements.expect("a case has launches");
        let device = WebGpuDevice::new(&requirements).expect("an adapter meets the requirements");
        let out = run(&Launcher::WebGpu(device), case);
        let worst = compare("webgpu", case, &out, case.bounds.wgsl);
        eprintln!(
            "zoo {}: webgpu largest error / tolerance {worst:.2}",
            case.name
        );
    }
}

/// The case on a CUDA GPU (`scripts/gpu-check.sh`; a loud skip elsewhere), within WGSL's
/// tolerance, which is at least the PTX column of every math function it uses.
pub fn on_cuda(test: &str, cases: &[Case]) {
    let Some(info) = warpforge::runtime::cuda::cuda_or_skip(test) else {
        return;
    };
    let device = warpforge::runtime::cuda::CudaDevice::new(info.index).expect("the device opens");
    let launcher = Launcher::Cuda(device);
    for case in cases {
        let out = run(&launcher, case);
        let worst = compare(&info.label(), case, &out, case.bounds.wgsl);
        eprintln!(
            "zoo {}: cuda largest error / tolerance {worst:.2}",
            case.name
        );
    }
}

/// Every kernel of the case lints without an error as IR and as the PTX emitted for every target
/// (the PTX front end modelling all of it), as the repository's own kernels do (`lint.rs`; warnings
/// are printed), and assembles with ptxas for every target without spills (a loud skip without
/// ptxas).
pub fn lint_and_assemble(test: &str, cases: &[Case]) {
    let launches: Vec<&Launch> = cases.iter().flat_map(|c| &c.launches).collect();
    for launch in &launches {
        let name = &launch.kernel.name;
        let verified = verify(&launch.kernel).expect("verifies");
        let diags = lint_kernel(&verified);
        assert!(
            !has_errors(&diags),
            "{name}:\n{}",
            render_text(name, &diags)
        );
        if !diags.is_empty() {
            eprintln!("zoo {name}: lint warnings:\n{}", render_text(name, &diags));
        }
        for sm in Sm::ALL {
            let ptx = warpforge::ptx::emit(&verified, sm).expect("emits").text;
            let diags = lint_ptx(&ptx).expect("emitted PTX is PTX");
            assert!(
                !has_errors(&diags),
                "{name} ({sm} PTX):\n{}",
                render_text(name, &diags)
            );
            assert!(
                diags.iter().all(|d| d.rule != Rule::N001),
                "{name}: the PTX front end models all emitted PTX"
            );
        }
    }
    let Some(ptxas) = common::ptxas_or_skip(test) else {
        return;
    };
    for launch in &launches {
        let verified = verify(&launch.kernel).expect("verifies");
        for sm in Sm::ALL {
            let ptx = warpforge::ptx::emit(&verified, sm).expect("emits");
            let report = ptxas
                .assemble(&ptx.text, sm)
                .unwrap_or_else(|e| panic!("{} {sm}: {e}", launch.kernel.name));
            assert_eq!(
                report.spill_store_bytes + report.spill_load_bytes,
                0,
                "{} spills on {sm}",
                launch.kernel.name
            );
        }
    }
}
