//! Every kernel of the repository, emitted as WGSL and run on a WebGPU adapter (Mesa lavapipe in CI),
//! matches a plain Rust implementation of the same computation on fresh random inputs.
//!
//! Without an adapter these tests skip loudly; with `WARPFORGE_REQUIRE_WEBGPU=1` (CI) they fail.

use std::io::Write;

use crate::common;
use common::adapter_or_skip;

use crate::catalog_cases;
use catalog_cases::{first_difference, strategy, Case};

use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use warpforge::catalog;
use warpforge::ir::builder::{KernelBuilder, U32};
use warpforge::ir::{verify, Access, Kernel};
use warpforge::runtime::webgpu::{list_adapters, BufferArg, WebGpuDevice, WebGpuError};

fn run_case(device: &WebGpuDevice, kernel: &Kernel, case: &Case) -> Result<Vec<Vec<u8>>, String> {
    let wgsl = warpforge::wgsl::emit(&verify(kernel).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    let mut outputs = case.outputs.clone();
    let mut inputs = case.inputs.iter();
    let mut outs = outputs.iter_mut();
    let mut args: Vec<BufferArg<'_>> = Vec::new();
    for binding in &wgsl.buffers {
        args.push(match binding.access {
            Access::ReadOnly => BufferArg::ReadOnly(inputs.next().ok_or("too few inputs")?),
            Access::ReadWrite => BufferArg::ReadWrite(outs.next().ok_or("too few outputs")?),
        });
    }
    device
        .run(&wgsl, case.blocks, &mut args, &case.scalars)
        .map_err(|e| e.to_string())?;
    drop(args);
    Ok(outputs)
}

#[test]
fn every_kernel_matches_its_rust_reference_on_random_inputs() {
    if !adapter_or_skip("every_kernel_matches_its_rust_reference_on_random_inputs") {
        return;
    }
    for entry in catalog::entries() {
        let kernel = entry.webgpu_build();
        let wgsl = warpforge::wgsl::emit(&verify(&kernel).expect("verifies")).expect("emits WGSL");
        let device = WebGpuDevice::new(&wgsl.requirements)
            .expect("the adapter runs the repository's kernels");
        let _ = writeln!(
            std::io::stderr(),
            "webgpu: {} on {}",
            entry.name,
            device.adapter()
        );
        let cases = std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(12);
        let mut runner = TestRunner::new(ProptestConfig::with_cases(cases));
        let result = runner.run(&strategy(entry.name), |case| {
            let got = run_case(&device, &kernel, &case).map_err(TestCaseError::fail)?;
            if let Some(message) = first_difference(entry.name, &got, &case) {
                return Err(TestCaseError::fail(message));
            }
            Ok(())
        });
        if let Err(e) = result {
            panic!("{}: {e}", entry.name);
        }
    }
}

#[test]
fn a_kernel_needing_more_workgroup_memory_than_the_adapter_has_fails_naming_the_limit() {
    if !adapter_or_skip(
        "a_kernel_needing_more_workgroup_memory_than_the_adapter_has_fails_naming_the_limit",
    ) {
        return;
    }
    let offered = list_adapters()
        .iter()
        .map(|a| a.max_workgroup_storage_bytes)
        .max()
        .expect("an adapter");
    let mut b = KernelBuilder::new("too_much_shared", 64);
    let out = b.buffer::<U32>("out", Access::ReadWrite);
    let words = offered / 4 + 1024;
    let big = b.shared::<U32>("big", words, 16);
    let i = b.thread_index();
    let x = b.load(big, i);
    b.store(out, i, x);
    let kernel = b.finish().expect("verifies");
    let wgsl = warpforge::wgsl::emit(&verify(&kernel).expect("verifies")).expect("emits");
    assert!(wgsl.requirements.workgroup_storage_bytes > offered);
    match WebGpuDevice::new(&wgsl.requirements) {
        Err(e @ WebGpuError::Unsupported { .. }) => {
            let text = e.to_string();
            assert!(text.contains("maxComputeWorkgroupStorageSize"), "{text}");
            assert!(
                text.contains(&wgsl.requirements.workgroup_storage_bytes.to_string()),
                "{text}"
            );
        }
        Err(other) => panic!("expected an unsupported-limit error, got {other}"),
        Ok(device) => panic!(
            "device {} accepted {} bytes of workgroup memory",
            device.adapter(),
            words * 4
        ),
    }
}

/// The subgroup probe on the adapter here: a device with `SUBGROUP` reports one width within the
/// adapter's range, laid out along the local index (lavapipe: 8 lanes, so warps stay emulated); a
/// device without it says so.
#[test]
fn the_subgroup_probe_measures_the_adapters_subgroups() {
    use warpforge::runtime::webgpu::SubgroupLayout;
    if !adapter_or_skip("the_subgroup_probe_measures_the_adapters_subgroups") {
        return;
    }
    let requirements = warpforge::auto::webgpu_requirements().expect("the LZ4 kernels emit");
    let device = WebGpuDevice::new(&requirements).expect("an adapter");
    let adapter = device.adapter().clone();
    let layout = device.subgroup_layout().clone();
    eprintln!("{}: {layout:?}", adapter.label());
    match layout {
        SubgroupLayout::Linear { width } => {
            assert!(adapter.subgroups, "a width without the SUBGROUP feature");
            assert!(
                (adapter.subgroup_min_size..=adapter.subgroup_max_size).contains(&width),
                "width {width} outside {}..={}",
                adapter.subgroup_min_size,
                adapter.subgroup_max_size
            );
        }
        SubgroupLayout::Unusable(why) => {
            assert!(!why.is_empty());
            if !adapter.subgroups {
                assert!(why.contains("SUBGROUP"), "{why}");
            }
        }
    }
    // Measured once: the second call is the same answer without a second probe.
    assert!(std::ptr::eq(
        device.subgroup_layout(),
        device.subgroup_layout()
    ));
    // Warps become subgroups only 32 or 64 wide (lavapipe's 8 keep the emulation).
    let (lowering, why) = device.warp_choice();
    eprintln!("warps: {lowering} ({why})");
    let forced = std::env::var(warpforge::runtime::webgpu::WARPS_VAR).is_ok();
    match device.subgroup_layout() {
        SubgroupLayout::Linear { width }
            if matches!(width, 32 | 64)
                && !forced
                && adapter.subgroup_min_size == adapter.subgroup_max_size =>
        {
            assert_eq!(
                lowering,
                warpforge::wgsl::WarpLowering::Subgroups { width: *width }
            )
        }
        _ => assert_eq!(lowering, warpforge::wgsl::WarpLowering::Emulated, "{why}"),
    }
}
