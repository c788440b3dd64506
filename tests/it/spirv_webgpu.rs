//! Every catalog kernel, run from its SPIR-V (not its WGSL) on a WebGPU adapter — the words go to the
//! Vulkan driver unchanged (Mesa lavapipe in CI) — gives, byte for byte, the output buffers the
//! simulator gives on the same random inputs, and those are the plain Rust result.
//!
//! Without an adapter these tests skip loudly; with `WARPFORGE_REQUIRE_WEBGPU=1` (CI) they fail.

use crate::common;
use common::{adapter_or_skip, say};

use crate::catalog_cases;
use catalog_cases::{first_difference, strategy, Case};

use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use warpforge::catalog;
use warpforge::ir::{verify, Access, Kernel};
use warpforge::runtime::sim::{self, SimOptions};
use warpforge::runtime::webgpu::{skip_webgpu_test, BufferArg, WebGpuDevice};
use warpforge::wgsl::{emit, emit_target, Shader, ShaderTarget, Wgsl};

/// The launch arguments for `kernel`'s buffers, in parameter (= binding) order, from `inputs` (the
/// read-only ones) and `outputs` (the read-write ones).
fn arguments<'a>(
    kernel: &Wgsl,
    inputs: &'a [Vec<u8>],
    outputs: &'a mut [Vec<u8>],
) -> Result<Vec<BufferArg<'a>>, String> {
    let (mut inputs, mut outputs) = (inputs.iter(), outputs.iter_mut());
    kernel
        .buffers
        .iter()
        .map(|binding| match binding.access {
            Access::ReadOnly => Ok(BufferArg::ReadOnly(inputs.next().ok_or("too few inputs")?)),
            Access::ReadWrite => Ok(BufferArg::ReadWrite(
                outputs.next().ok_or("too few outputs")?,
            )),
        })
        .collect()
}

/// The outputs of `case` on the simulator (with `wgsl`'s binding order, which is the kernel's).
fn on_sim(kernel: &Kernel, wgsl: &Wgsl, case: &Case) -> Result<Vec<Vec<u8>>, String> {
    let verified = verify(kernel).map_err(|e| e.to_string())?;
    let mut outputs = case.outputs.clone();
    let mut args = arguments(wgsl, &case.inputs, &mut outputs)?;
    sim::run(
        &verified,
        case.blocks,
        &mut args,
        &case.scalars,
        &SimOptions::default(),
    )
    .map_err(|e| e.to_string())?;
    Ok(outputs)
}

/// The outputs of `case` on `device`, from `spirv`.
fn on_spirv(
    device: &WebGpuDevice,
    wgsl: &Wgsl,
    spirv: &Shader,
    case: &Case,
) -> Result<Vec<Vec<u8>>, String> {
    let mut outputs = case.outputs.clone();
    let mut args = arguments(wgsl, &case.inputs, &mut outputs)?;
    device
        .run_spirv(wgsl, spirv, case.blocks, &mut args, &case.scalars)
        .map_err(|e| e.to_string())?;
    Ok(outputs)
}

/// A device for `wgsl` that takes SPIR-V unchanged, or a loud skip (a failure under
/// `WARPFORGE_REQUIRE_WEBGPU=1`).
fn spirv_device(test: &str, wgsl: &Wgsl) -> Option<WebGpuDevice> {
    let device = WebGpuDevice::new(&wgsl.requirements).expect("the adapter runs the kernel");
    match device.spirv_support() {
        Ok(()) => Some(device),
        Err(why) => {
            skip_webgpu_test(
                test,
                &format!("{} cannot take SPIR-V: {why}", device.adapter()),
            );
            None
        }
    }
}

#[test]
fn catalog_kernels_from_spirv_match_the_simulator_byte_for_byte() {
    let test = "catalog_kernels_from_spirv_match_the_simulator_byte_for_byte";
    if !adapter_or_skip(test) {
        return;
    }
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(8);
    let launches = std::cell::Cell::new(0u32);
    for entry in catalog::entries() {
        let kernel = entry.webgpu_build();
        let verified = verify(&kernel).expect("verifies");
        let wgsl = emit(&verified).expect("emits WGSL");
        let spirv = emit_target(&verified, ShaderTarget::SpirV).expect("writes SPIR-V");
        let Some(device) = spirv_device(test, &wgsl) else {
            return;
        };
        say(&format!("spirv: {} on {}", entry.name, device.adapter()));
        let mut runner = TestRunner::new(ProptestConfig::with_cases(cases));
        let result = runner.run(&strategy(entry.name), |case| {
            let want = on_sim(&kernel, &wgsl, &case).map_err(TestCaseError::fail)?;
            let got = on_spirv(&device, &wgsl, &spirv, &case).map_err(TestCaseError::fail)?;
            for (i, (got, want)) in got.iter().zip(&want).enumerate() {
                if let Some(at) =
                    (0..got.len().max(want.len())).find(|&b| got.get(b) != want.get(b))
                {
                    return Err(TestCaseError::fail(format!(
                        "output buffer {i} first differs at byte {at}: SPIR-V on WebGPU gave {:?}, \
                         the simulator {:?} ({} blocks)",
                        got.get(at),
                        want.get(at),
                        case.blocks
                    )));
                }
            }
            if let Some(message) = first_difference(entry.name, &got, &case) {
                return Err(TestCaseError::fail(message));
            }
            launches.set(launches.get() + 1);
            Ok(())
        });
        if let Err(e) = result {
            panic!("{}: {e}", entry.name);
        }
    }
    let launches = launches.get();
    say(&format!(
        "spirv: {launches} launches from SPIR-V matched the simulator byte for byte"
    ));
    assert!(launches >= catalog::entries().len() as u32 * cases);
}

/// The driver runs the words it is given, not the WGSL: `vector-add`'s SPIR-V with its float addition
/// turned into a subtraction computes `a - b`.
#[test]
fn run_spirv_runs_the_words_it_is_given() {
    let test = "run_spirv_runs_the_words_it_is_given";
    if !adapter_or_skip(test) {
        return;
    }
    let kernel = catalog::find("vector-add")
        .expect("in the catalog")
        .webgpu_build();
    let verified = verify(&kernel).expect("verifies");
    let wgsl = emit(&verified).expect("emits WGSL");
    let mut spirv = emit_target(&verified, ShaderTarget::SpirV).expect("writes SPIR-V");
    let Some(device) = spirv_device(test, &wgsl) else {
        return;
    };
    let n = 300u32;
    let bytes = |f: &dyn Fn(f32) -> f32| -> Vec<u8> {
        (0..n).flat_map(|i| f(i as f32).to_le_bytes()).collect()
    };
    let (a, b) = (bytes(&|x| 1.5 * x), bytes(&|x| 0.25 * x + 1.0));
    let run = |spirv: &Shader| {
        let mut out = vec![0u8; 4 * n as usize];
        let mut args = [
            BufferArg::ReadOnly(&a),
            BufferArg::ReadOnly(&b),
            BufferArg::ReadWrite(&mut out),
        ];
        let blocks = n.div_ceil(wgsl.workgroup_size);
        device
            .run_spirv(&wgsl, spirv, blocks, &mut args, &[u64::from(n)])
            .expect("runs");
        out
    };
    assert_eq!(run(&spirv), bytes(&|x| 1.5 * x + (0.25 * x + 1.0)));

    // OpFAdd (opcode 129, five words) becomes OpFSub (131).
    let words = match &mut spirv.code {
        warpforge::wgsl::ShaderCode::Words(words) => words,
        other => panic!("SPIR-V is words, got {other:?}"),
    };
    let mut adds = Vec::new();
    let mut at = 5; // past the header, one instruction at a time
    while at < words.len() {
        if words[at] == 5 << 16 | 129 {
            adds.push(at);
        }
        at += (words[at] >> 16) as usize;
    }
    assert_eq!(adds.len(), 1, "vector-add has one float addition");
    words[adds[0]] = 5 << 16 | 131;
    assert_eq!(run(&spirv), bytes(&|x| 1.5 * x - (0.25 * x + 1.0)));
}

/// Words that do not fit the layout never reach the driver: another kernel's SPIR-V is refused by the
/// check before the passthrough, and so is a shader that is not SPIR-V.
#[test]
fn run_spirv_refuses_code_that_does_not_fit_the_layout() {
    let test = "run_spirv_refuses_code_that_does_not_fit_the_layout";
    if !adapter_or_skip(test) {
        return;
    }
    let build = |name: &str| catalog::find(name).expect("in the catalog").webgpu_build();
    let (kernel, other) = (build("vector-add"), build("warp-reduce"));
    let verified = verify(&kernel).expect("verifies");
    let wgsl = emit(&verified).expect("emits WGSL");
    let Some(device) = spirv_device(test, &wgsl) else {
        return;
    };
    let (a, b, mut out) = (vec![0u8; 64], vec![0u8; 64], vec![0u8; 64]);
    let mut run = |shader: &Shader| {
        let mut args = [
            BufferArg::ReadOnly(&a),
            BufferArg::ReadOnly(&b),
            BufferArg::ReadWrite(&mut out),
        ];
        device
            .run_spirv(&wgsl, shader, 1, &mut args, &[16])
            .expect_err("refused")
            .to_string()
    };
    let foreign = emit_target(&verify(&other).expect("verifies"), ShaderTarget::SpirV)
        .expect("writes SPIR-V");
    let error = run(&foreign);
    assert!(error.contains("SPIR-V check"), "{error}");
    let msl = emit_target(&verified, ShaderTarget::Msl).expect("writes MSL");
    let error = run(&msl);
    assert!(error.contains("needs SPIR-V"), "{error}");
}

/// Workgroup memory starts zeroed in SPIR-V as in WGSL (the lowering's zeroing loop, since naga's own
/// zeroing made lavapipe compile each LZ4 compress kernel for about 110 s): each workgroup reads its
/// 256-word array, which no one wrote yet, then fills it with its own number, so a workgroup that found
/// a predecessor's words in reused memory would give more than the 7 every thread adds.
#[test]
fn workgroup_memory_starts_zeroed_in_spirv_as_in_wgsl() {
    let test = "workgroup_memory_starts_zeroed_in_spirv_as_in_wgsl";
    if !adapter_or_skip(test) {
        return;
    }
    let text = "\
kernel starts_zeroed {
    block_size 64
    param out: global u32 read_write
    shared tile: u32[256] align 4
    %0: u32 = special thread_index
    %1: u32 = special block_index
    %2: u32 = special block_size
    %3: u32 = mul %1, %2
    %4: u32 = add %3, %0
    %5: u32 = const 64
    %6: u32 = add %0, %5
    %7: u32 = add %6, %5
    %8: u32 = add %7, %5
    %9: u32 = load shared tile[%0]
    %10: u32 = load shared tile[%6]
    %11: u32 = load shared tile[%7]
    %12: u32 = load shared tile[%8]
    %13: u32 = add %9, %10
    %14: u32 = add %11, %12
    %15: u32 = add %13, %14
    %16: u32 = const 7
    %17: u32 = add %15, %16
    store global out[%4], %17
    barrier
    %18: u32 = const 1
    %19: u32 = add %1, %18
    store shared tile[%0], %19
    store shared tile[%6], %19
    store shared tile[%7], %19
    store shared tile[%8], %19
}
";
    let kernel = warpforge::ir::parse_kernel(text).expect("parses");
    let verified = verify(&kernel).expect("verifies");
    let wgsl = emit(&verified).expect("emits WGSL");
    let spirv = emit_target(&verified, ShaderTarget::SpirV).expect("writes SPIR-V");
    let Some(device) = spirv_device(test, &wgsl) else {
        return;
    };
    let blocks = 64u32;
    let mut out = vec![0xEEu8; 4 * 64 * blocks as usize];
    device
        .run_spirv(
            &wgsl,
            &spirv,
            blocks,
            &mut [BufferArg::ReadWrite(&mut out)],
            &[],
        )
        .expect("runs");
    let words: Vec<u32> = out
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes(w.try_into().expect("4 bytes")))
        .collect();
    if let Some(at) = words.iter().position(|&w| w != 7) {
        panic!(
            "thread {at} read {} instead of 7: workgroup memory was not zeroed",
            words[at]
        );
    }
}
