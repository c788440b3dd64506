//! The WebGPU backend on whatever adapter this machine has (lavapipe in CI): hand-written WGSL that
//! follows the layout contract of `warpforge_wgsl::layout`, checked against plain Rust.
//!
//! Without an adapter every test prints a loud SKIPPED line, unless `WARPFORGE_REQUIRE_WEBGPU=1`, which
//! makes it a failure.

use std::io::Write;
use std::sync::OnceLock;

use warpforge_ir::ScalarType;
use warpforge_runtime::webgpu::{list_adapters, BufferArg, WebGpuDevice, WebGpuError};
use warpforge_runtime::{Clock, Timings};

#[path = "support/wgsl_kernels.rs"]
mod wgsl_kernels;

use wgsl_kernels::{add_one, kernel, member, requirements, words_to_bytes, Rng};

/// Skips (or, when an adapter is required, fails) `test`: the crate's one rule.
fn skip(test: &str, why: &str) {
    warpforge_runtime::webgpu::skip_webgpu_test(test, why);
}

/// The device shared by every test of this binary (opening one is slow on lavapipe).
fn device(test: &str) -> Option<&'static WebGpuDevice> {
    static DEVICE: OnceLock<Result<WebGpuDevice, WebGpuError>> = OnceLock::new();
    match DEVICE.get_or_init(|| WebGpuDevice::new(&requirements(0, false))) {
        Ok(device) => Some(device),
        Err(WebGpuError::NoAdapter) => {
            skip(test, "no WebGPU adapter");
            None
        }
        Err(error) => panic!("{test}: opening a WebGPU device: {error}"),
    }
}

/// Runs `add_one` on `n` random words with a sentinel-filled output, and checks every word.
fn check_add_one(device: &WebGpuDevice, rng: &mut Rng, n: u32, blocks: u32) -> Timings {
    let input: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
    let input_bytes = words_to_bytes(&input);
    let mut output = vec![0xAB; input_bytes.len()];
    let mut buffers = [
        BufferArg::ReadOnly(&input_bytes),
        BufferArg::ReadWrite(&mut output),
    ];
    let timings = device
        .run(&add_one(), blocks, &mut buffers, &[u64::from(n)])
        .unwrap_or_else(|error| panic!("add_one over {n} words: {error}"));
    let expected = words_to_bytes(&input.iter().map(|x| x.wrapping_add(1)).collect::<Vec<_>>());
    assert!(
        output == expected,
        "add_one over {n} words ({blocks} blocks): wrong output"
    );
    timings
}

/// Runs `output[i] = input[i] * mul + add` (a kernel named `name`) on `n` words and checks them.
fn check_linear(device: &WebGpuDevice, name: &str, mul: u32, add: u32, n: u32) {
    let members = [member("n", ScalarType::U32, 0)];
    let body = format!("if i < params.n {{ output[i] = input[i] * {mul}u + {add}u; }}");
    let kernel = kernel(name, ScalarType::U32, "u32", &members, &body);
    let input: Vec<u32> = (0..n).collect();
    let bytes = words_to_bytes(&input);
    let mut output = vec![0; bytes.len()];
    let mut buffers = [
        BufferArg::ReadOnly(&bytes),
        BufferArg::ReadWrite(&mut output),
    ];
    device
        .run(&kernel, n.div_ceil(64), &mut buffers, &[u64::from(n)])
        .unwrap_or_else(|e| panic!("{name} runs: {e}"));
    let expected: Vec<u32> = input.iter().map(|x| x * mul + add).collect();
    assert_eq!(output, words_to_bytes(&expected), "{name}");
}

#[test]
fn pipelines_are_built_once_per_kernel_and_reused() {
    let test = "pipelines_are_built_once_per_kernel_and_reused";
    if device(test).is_none() {
        return;
    }
    // A device of its own: the shared one's cache grows with every other test running beside this one.
    let device = WebGpuDevice::new(&requirements(0, false)).expect("a second device");
    assert_eq!(device.cached_pipelines(), 0);
    let mut rng = Rng(5);
    check_add_one(&device, &mut rng, 1000, 16);
    assert_eq!(device.cached_pipelines(), 1, "the first launch builds");
    check_add_one(&device, &mut rng, 1000, 16);
    check_add_one(&device, &mut rng, 65, 2);
    assert_eq!(device.cached_pipelines(), 1, "later launches reuse it");

    check_linear(&device, "double", 2, 0, 100);
    assert_eq!(
        device.cached_pipelines(),
        2,
        "a second kernel, a second entry"
    );
    check_linear(&device, "double", 2, 0, 100);
    check_add_one(&device, &mut rng, 7, 1);
    assert_eq!(device.cached_pipelines(), 2);

    // The same name and layout with another body is another kernel.
    let mut add_two = add_one();
    add_two.source = add_two.source.replace("+ 1u", "+ 2u");
    assert_ne!(add_two.source, add_one().source);
    let input = words_to_bytes(&[1, 2, 3]);
    let mut output = vec![0; 12];
    let mut buffers = [
        BufferArg::ReadOnly(&input),
        BufferArg::ReadWrite(&mut output),
    ];
    device
        .run(&add_two, 1, &mut buffers, &[3])
        .expect("add_two");
    assert_eq!(output, words_to_bytes(&[3, 4, 5]));
    assert_eq!(device.cached_pipelines(), 3);

    // A failed build is not cached: every launch reports it again.
    let mut broken = add_one();
    broken.source = broken.source.replace("+ 1u", "+ 1.5");
    for attempt in ["first", "second"] {
        let mut buffers = [
            BufferArg::ReadOnly(&input),
            BufferArg::ReadWrite(&mut output),
        ];
        match device.run(&broken, 1, &mut buffers, &[3]) {
            Err(WebGpuError::Validation { .. }) => {}
            other => panic!("{attempt} launch of a broken kernel gave {other:?}"),
        }
        assert_eq!(device.cached_pipelines(), 3, "{attempt} failed build");
    }

    // Threads launching a new kernel at once share one entry.
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| check_linear(&device, "double_plus", 2, 1, 64));
        }
    });
    assert_eq!(device.cached_pipelines(), 4);

    device.clear_pipeline_cache();
    assert_eq!(device.cached_pipelines(), 0);
    check_add_one(&device, &mut rng, 1000, 16);
    assert_eq!(device.cached_pipelines(), 1, "rebuilt after clearing");
}

#[test]
fn kernel_time_is_from_timestamps_when_the_adapter_offers_them() {
    let test = "kernel_time_is_from_timestamps_when_the_adapter_offers_them";
    let Some(device) = device(test) else { return };
    let offered = device.features().contains(wgpu::Features::TIMESTAMP_QUERY);
    assert_eq!(
        offered,
        device.adapter().timestamp_query,
        "requested iff offered"
    );
    let expected = if offered {
        Clock::WebGpuTimestamps
    } else {
        Clock::HostClock
    };
    let mut rng = Rng(11);
    for n in [64, 100_003] {
        let timings = check_add_one(device, &mut rng, n, n.div_ceil(64));
        let _ = writeln!(
            std::io::stderr(),
            "{test}: `{}` offers TIMESTAMP_QUERY: {offered}; add_one over {n} words: kernel {} ns \
             on the {}, upload {} ns, download {} ns",
            device.adapter().label(),
            timings.kernel_ns,
            timings.kernel_clock,
            timings.upload_ns,
            timings.download_ns,
        );
        assert_eq!(timings.kernel_clock, expected, "{timings:?}");
        assert!(timings.kernel_ns > 0, "{timings:?}");
    }
}

#[test]
fn add_one_matches_rust_on_several_sizes() {
    let Some(device) = device("add_one_matches_rust_on_several_sizes") else {
        return;
    };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for n in [1, 63, 64, 65, 1000, 100_003] {
        check_add_one(device, &mut rng, n, n.div_ceil(64));
    }
}

#[test]
fn grid_past_65535_blocks_uses_the_second_dimension() {
    let Some(device) = device("grid_past_65535_blocks_uses_the_second_dimension") else {
        return;
    };
    let blocks = 70_000;
    assert_eq!(add_one().dispatch(blocks), Some((65_535, 2, 1)));
    check_add_one(device, &mut Rng(7), blocks * 64, blocks);
}

#[test]
fn u8_buffers_of_odd_length_are_padded_and_trimmed() {
    let Some(device) = device("u8_buffers_of_odd_length_are_padded_and_trimmed") else {
        return;
    };
    let members = [
        member("key", ScalarType::U32, 0),
        member("words", ScalarType::U32, 4),
    ];
    let body = "if i < params.words { output[i] = input[i] ^ params.key; }";
    let xor = kernel("xor_bytes", ScalarType::U8, "u32", &members, body);
    let mut rng = Rng(42);
    for len in [0usize, 1, 13, 4097] {
        let key = rng.next() as u32;
        let input = rng.bytes(len);
        let mut output = rng.bytes(len);
        let words = len.div_ceil(4) as u32;
        let mut buffers = [
            BufferArg::ReadOnly(&input),
            BufferArg::ReadWrite(&mut output),
        ];
        let scalars = [u64::from(key), u64::from(words)];
        device
            .run(&xor, words.div_ceil(64).max(1), &mut buffers, &scalars)
            .unwrap_or_else(|error| panic!("xor_bytes over {len} bytes: {error}"));
        let expected: Vec<u8> = input
            .iter()
            .enumerate()
            .map(|(at, b)| b ^ key.to_le_bytes()[at % 4])
            .collect();
        assert_eq!(output, expected, "xor_bytes over {len} bytes");
    }
}

#[test]
fn signed_scalars_arrive_in_member_order() {
    let Some(device) = device("signed_scalars_arrive_in_member_order") else {
        return;
    };
    let members = [
        member("scale", ScalarType::I32, 0),
        member("bias", ScalarType::I32, 4),
        member("n", ScalarType::U32, 8),
    ];
    let body = "if i < params.n { output[i] = input[i] * params.scale + params.bias; }";
    let affine = kernel("affine", ScalarType::I32, "i32", &members, body);
    let input: Vec<i32> = (0..300).map(|k| k * 7919 - 1_000_000).collect();
    let bytes: Vec<u8> = input.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut output = vec![0; bytes.len()];
    let (scale, bias) = (-3i32, 123_456i32);
    let scalars = [scale as u32 as u64, bias as u32 as u64, 300];
    let mut buffers = [
        BufferArg::ReadOnly(&bytes),
        BufferArg::ReadWrite(&mut output),
    ];
    device
        .run(&affine, 5, &mut buffers, &scalars)
        .expect("affine runs");
    let expected: Vec<u8> = input
        .iter()
        .flat_map(|x| x.wrapping_mul(scale).wrapping_add(bias).to_le_bytes())
        .collect();
    assert_eq!(output, expected);
}

#[test]
fn int64_kernels_run_when_the_adapter_offers_int64() {
    let test = "int64_kernels_run_when_the_adapter_offers_int64";
    if device(test).is_none() {
        return;
    }
    let members = [
        member("delta", ScalarType::U64, 0),
        member("n", ScalarType::U32, 8),
    ];
    let body = "if i < params.n { output[i] = input[i] + params.delta; }";
    let add = kernel("add_u64", ScalarType::U64, "u64", &members, body);
    let device = match WebGpuDevice::new(&add.requirements) {
        Ok(device) => device,
        Err(error) => {
            assert!(list_adapters().iter().all(|a| !a.shader_int64), "{error}");
            assert!(error.to_string().contains("SHADER_INT64"), "{error}");
            let why = "no adapter offers SHADER_INT64 (the error says so)";
            skip(test, why);
            return;
        }
    };
    assert!(device.adapter().shader_int64, "{}", device.adapter());
    let input: Vec<u64> = (0..100u64).map(|k| k << 40 | k).collect();
    let bytes: Vec<u8> = input.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut output = vec![0; bytes.len()];
    let delta = 0x1234_5678_9abc_def0u64;
    let mut buffers = [
        BufferArg::ReadOnly(&bytes),
        BufferArg::ReadWrite(&mut output),
    ];
    device
        .run(&add, 2, &mut buffers, &[delta, 100])
        .expect("add_u64 runs");
    let expected: Vec<u8> = input
        .iter()
        .flat_map(|x| x.wrapping_add(delta).to_le_bytes())
        .collect();
    assert_eq!(output, expected);
}

#[test]
fn shader_errors_are_validation_errors_not_panics() {
    let Some(device) = device("shader_errors_are_validation_errors_not_panics") else {
        return;
    };
    let input = words_to_bytes(&[1, 2, 3]);
    let mut output = vec![0u8; 12];

    let mut type_error = add_one();
    type_error.source = type_error
        .source
        .replace("output[i] = input[i] + 1u;", "let wrong: f32 = input[i];");
    let mut buffers = [
        BufferArg::ReadOnly(&input),
        BufferArg::ReadWrite(&mut output),
    ];
    match device.run(&type_error, 1, &mut buffers, &[3]) {
        Err(WebGpuError::Validation {
            stage: "shader module",
            message,
        }) => {
            assert!(message.contains("expected to be `f32`"), "{message}");
        }
        other => panic!("a WGSL type error gave {other:?}"),
    }

    // The shader says binding 1 is read-only; the layout contract says read_write.
    let mut mismatch = add_one();
    mismatch.source = mismatch.source.replace(
        "var<storage, read_write> output",
        "var<storage, read> output",
    );
    mismatch.source = mismatch
        .source
        .replace("output[i] = input[i] + 1u;", "let x = output[i];");
    let mut buffers = [
        BufferArg::ReadOnly(&input),
        BufferArg::ReadWrite(&mut output),
    ];
    match device.run(&mismatch, 1, &mut buffers, &[3]) {
        Err(WebGpuError::Validation {
            stage: "compute pipeline",
            message,
        }) => assert!(message.contains("binding: 1"), "{message}"),
        other => panic!("a binding that contradicts the layout gave {other:?}"),
    }

    let mut wrong_entry = add_one();
    wrong_entry.entry_point = "no_such_kernel".to_owned();
    let mut buffers = [
        BufferArg::ReadOnly(&input),
        BufferArg::ReadWrite(&mut output),
    ];
    match device.run(&wrong_entry, 1, &mut buffers, &[3]) {
        Err(WebGpuError::Validation { .. }) => {}
        other => panic!("a missing entry point gave {other:?}"),
    }
    assert_eq!(
        output,
        vec![0u8; 12],
        "failed launches leave the output alone"
    );

    // The device still works afterwards.
    let mut buffers = [
        BufferArg::ReadOnly(&input),
        BufferArg::ReadWrite(&mut output),
    ];
    device
        .run(&add_one(), 1, &mut buffers, &[3])
        .expect("add_one after errors");
    assert_eq!(output, words_to_bytes(&[2, 3, 4]));
}

#[test]
fn requirements_beyond_the_adapter_name_the_limit() {
    let test = "requirements_beyond_the_adapter_name_the_limit";
    let Some(device) = device(test) else { return };
    let error =
        WebGpuDevice::new(&requirements(1 << 30, false)).expect_err("1 GiB of shared memory");
    let text = error.to_string();
    assert!(matches!(error, WebGpuError::Unsupported { .. }), "{text}");
    assert!(text.contains("maxComputeWorkgroupStorageSize"), "{text}");
    assert!(text.contains("1073741824"), "{text}");
    assert!(text.contains(&device.adapter().name), "{text}");

    let mut greedy = add_one();
    greedy.requirements.workgroup_storage_bytes = 1 << 30;
    let (input, mut output) = (vec![0u8; 4], vec![0u8; 4]);
    let mut buffers = [
        BufferArg::ReadOnly(&input),
        BufferArg::ReadWrite(&mut output),
    ];
    let error = device
        .run(&greedy, 1, &mut buffers, &[1])
        .expect_err("too much shared memory");
    assert!(
        error.to_string().contains("maxComputeWorkgroupStorageSize"),
        "{error}"
    );
}

#[test]
fn adapters_are_listed_and_software_ones_marked() {
    let test = "adapters_are_listed_and_software_ones_marked";
    let adapters = list_adapters();
    if adapters.is_empty() {
        return skip(test, "no WebGPU adapter");
    }
    let mut stderr = std::io::stderr();
    for adapter in &adapters {
        let _ = writeln!(stderr, "adapter: {adapter}");
        let name = adapter.name.to_lowercase();
        if name.contains("llvmpipe") || name.contains("lavapipe") {
            assert!(adapter.is_software, "{adapter}");
        }
        assert!(
            adapter.subgroup_min_size <= adapter.subgroup_max_size,
            "{adapter}"
        );
    }
    if !adapters
        .iter()
        .any(|a| a.is_software && a.name.contains("llvmpipe"))
    {
        skip(test, "no llvmpipe adapter");
    }
}

#[test]
fn wrong_arguments_are_rejected_before_the_device() {
    let Some(device) = device("wrong_arguments_are_rejected_before_the_device") else {
        return;
    };
    let kernel = add_one();
    let input = words_to_bytes(&[1, 2]);
    let mut output = vec![0u8; 8];
    let expect =
        |buffers: &mut [BufferArg<'_>], blocks: u32, scalars: &[u64], needle: &str| match device
            .run(&kernel, blocks, buffers, scalars)
        {
            Err(WebGpuError::Arguments(message)) => assert!(message.contains(needle), "{message}"),
            other => panic!("expected an Arguments error about {needle:?}, got {other:?}"),
        };
    let mut copy = input.clone();
    expect(
        &mut [BufferArg::ReadOnly(&input), BufferArg::ReadOnly(&input)],
        1,
        &[2],
        "ReadWrite",
    );
    expect(
        &mut [
            BufferArg::ReadWrite(&mut copy),
            BufferArg::ReadWrite(&mut output),
        ],
        1,
        &[2],
        "ReadOnly",
    );
    expect(
        &mut [BufferArg::ReadOnly(&input)],
        1,
        &[2],
        "expects 2 buffers",
    );
    expect(
        &mut [
            BufferArg::ReadOnly(&input),
            BufferArg::ReadWrite(&mut output),
        ],
        1,
        &[],
        "expects 1 scalars",
    );
    expect(
        &mut [
            BufferArg::ReadOnly(&input[..5]),
            BufferArg::ReadWrite(&mut output),
        ],
        1,
        &[2],
        "5 bytes",
    );
    expect(
        &mut [
            BufferArg::ReadOnly(&input),
            BufferArg::ReadWrite(&mut output),
        ],
        0,
        &[2],
        "at least one block",
    );
    expect(
        &mut [
            BufferArg::ReadOnly(&input),
            BufferArg::ReadWrite(&mut output),
        ],
        1,
        &[1 << 32],
        "32 bits",
    );
    assert_eq!(
        output,
        vec![0u8; 8],
        "rejected launches leave the output alone"
    );
}
