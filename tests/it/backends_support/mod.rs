//! One kernel on every backend that runs here, for the tests that check an operation's results
//! against the host's (`conversions.rs`, `float_math.rs`): the IR simulator, the emitted PTX on the
//! PTX simulator for every target, the emitted WGSL on WebGPU (a loud skip without an adapter, a
//! failure under `WARPFORGE_REQUIRE_WEBGPU=1`), and ptxas on the emitted PTX. Buffers are given in
//! parameter order, the read-only inputs first; each run starts from a fresh copy.

use crate::common;

use warpforge::ptx::Sm;
use warpforge::runtime::sim::{self, SimOptions};
use warpforge::runtime::webgpu::WebGpuDevice;
use warpforge::runtime::{BufferArg, Launcher};
use warpforge_ir::{verify, Kernel};

/// splitmix64: the tests' random inputs.
pub fn mix(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The buffers as launch arguments: the first `inputs` read-only, the rest read-write.
pub fn args(buffers: &mut [Vec<u8>], inputs: usize) -> Vec<BufferArg<'_>> {
    let (read, write) = buffers.split_at_mut(inputs);
    let mut args: Vec<BufferArg<'_>> = read.iter().map(|b| BufferArg::ReadOnly(b)).collect();
    args.extend(write.iter_mut().map(|b| BufferArg::ReadWrite(b)));
    args
}

/// The buffers after `blocks` blocks of `kernel` on the IR simulator (which must find nothing).
pub fn on_sim(kernel: &Kernel, blocks: u32, buffers: &[Vec<u8>], inputs: usize) -> Vec<Vec<u8>> {
    let verified = verify(kernel).expect("verifies");
    let mut out = buffers.to_vec();
    let report = sim::run(
        &verified,
        blocks,
        &mut args(&mut out, inputs),
        &[],
        &SimOptions::default(),
    )
    .expect("launches");
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    out
}

/// `check(backend, buffers)` after the kernel's PTX ran on the PTX simulator, for every target
/// (which must find nothing).
pub fn on_ptx_sim(
    kernel: &Kernel,
    blocks: u32,
    buffers: &[Vec<u8>],
    inputs: usize,
    check: impl Fn(&str, &[Vec<u8>]),
) {
    let verified = verify(kernel).expect("verifies");
    for sm in Sm::ALL {
        let device = Launcher::PtxSim(SimOptions::default(), sm);
        let loaded = device.load(&verified).expect("the PTX loads");
        let mut out = buffers.to_vec();
        let launched = device
            .launch(&loaded, blocks, &mut args(&mut out, inputs), &[])
            .expect("launches");
        let findings: Vec<_> = launched.sim.iter().flat_map(|r| &r.findings).collect();
        assert!(findings.is_empty(), "{findings:?}");
        check(&format!("ptx-sim {}", sm.name()), &out);
    }
}

/// The buffers after the kernel's WGSL ran on WebGPU; `None` (a loud skip) without an adapter
/// that meets the kernel's requirements.
pub fn on_webgpu(
    test: &str,
    kernel: &Kernel,
    blocks: u32,
    buffers: &[Vec<u8>],
    inputs: usize,
) -> Option<Vec<Vec<u8>>> {
    let verified = verify(kernel).expect("verifies");
    let requirements = warpforge::wgsl::emit(&verified)
        .expect("the WGSL emits")
        .requirements;
    if !common::webgpu_or_skip(test, &requirements) {
        return None;
    }
    let device = WebGpuDevice::new(&requirements).expect("an adapter meets the requirements");
    let device = Launcher::WebGpu(device);
    let loaded = device.load(&verified).expect("the WGSL loads");
    let mut out = buffers.to_vec();
    device
        .launch(&loaded, blocks, &mut args(&mut out, inputs), &[])
        .expect("launches");
    Some(out)
}

/// The kernel's PTX assembles with ptxas for every target without spills (a loud skip without
/// ptxas, a failure under `WARPFORGE_REQUIRE_PTXAS=1`).
pub fn assembles_everywhere(test: &str, kernel: &Kernel) {
    let Some(ptxas) = common::ptxas_or_skip(test) else {
        return;
    };
    let verified = verify(kernel).expect("verifies");
    for sm in Sm::ALL {
        let ptx = warpforge::ptx::emit(&verified, sm).expect("emits");
        let report = ptxas
            .assemble(&ptx.text, sm)
            .unwrap_or_else(|e| panic!("{sm}: {e}"));
        assert_eq!(
            report.spill_store_bytes + report.spill_load_bytes,
            0,
            "{sm} spills"
        );
    }
}

/// The kernel's PTX for sm_80, for tests that look for an instruction in it.
pub fn ptx_sm80(kernel: &Kernel) -> String {
    let verified = verify(kernel).expect("verifies");
    warpforge::ptx::emit(&verified, Sm::Sm80)
        .expect("emits")
        .text
}

/// The buffers after `blocks` blocks of `kernel` on `launcher` (a CUDA device in
/// `scripts/gpu-check.sh`).
pub fn on_launcher(
    launcher: &Launcher,
    kernel: &Kernel,
    blocks: u32,
    buffers: &[Vec<u8>],
    inputs: usize,
) -> Vec<Vec<u8>> {
    let verified = verify(kernel).expect("verifies");
    let loaded = launcher.load(&verified).expect("loads");
    let mut out = buffers.to_vec();
    launcher
        .launch(&loaded, blocks, &mut args(&mut out, inputs), &[])
        .expect("launches");
    out
}

/// The buffers after the kernel ran on a CUDA GPU, with the device's label; `None` (a loud skip,
/// a failure under `WARPFORGE_REQUIRE_CUDA=1`) without one (`scripts/gpu-check.sh` runs these).
pub fn on_cuda(
    test: &str,
    kernel: &Kernel,
    blocks: u32,
    buffers: &[Vec<u8>],
    inputs: usize,
) -> Option<(String, Vec<Vec<u8>>)> {
    let info = warpforge::runtime::cuda::cuda_or_skip(test)?;
    let device = warpforge::runtime::cuda::CudaDevice::new(info.index).expect("the device opens");
    let out = on_launcher(&Launcher::Cuda(device), kernel, blocks, buffers, inputs);
    Some((info.label(), out))
}
