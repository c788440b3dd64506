//! Device-resident WebGPU work (`ResidentBuffer`, `submit_resident`/`dispatch_resident`,
//! `read_resident`): a kernel's output feeds the next launch without crossing to the host, a
//! launch's time comes from timestamp queries exactly where the adapter has them, read-backs of any
//! length come back byte for byte, and a launch or copy that does not fit is an error that says so.
//! Checked against plain Rust on whatever adapter this machine has (lavapipe in CI).
//!
//! Without an adapter every test prints a loud SKIPPED line, unless `WARPFORGE_REQUIRE_WEBGPU=1`, which
//! makes it a failure.

use std::sync::OnceLock;

use warpforge_runtime::webgpu::{WebGpuDevice, WebGpuError};
use warpforge_runtime::Clock;

#[path = "support/wgsl_kernels.rs"]
#[allow(dead_code)]
mod wgsl_kernels;

use wgsl_kernels::{add_one, requirements, words_to_bytes, Rng};

/// The device shared by this binary's tests, or `None` after a loud skip.
fn device(test: &str) -> Option<&'static WebGpuDevice> {
    static DEVICE: OnceLock<Result<WebGpuDevice, WebGpuError>> = OnceLock::new();
    match DEVICE.get_or_init(|| WebGpuDevice::new(&requirements(0, false))) {
        Ok(device) => Some(device),
        Err(WebGpuError::NoAdapter) => {
            warpforge_runtime::webgpu::skip_webgpu_test(test, "no WebGPU adapter");
            None
        }
        Err(error) => panic!("{test}: opening a WebGPU device: {error}"),
    }
}

#[test]
fn resident_launches_chain_on_the_device_and_read_back_exactly() {
    let Some(device) = device("resident_launches_chain_on_the_device_and_read_back_exactly") else {
        return;
    };
    let n = 1000u32;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let words: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
    let bytes = words_to_bytes(&words);
    let a = device.resident_buffer(bytes.len()).expect("a buffer");
    let b = device.resident_buffer(bytes.len()).expect("a buffer");
    // A fresh buffer reads back as zeroes.
    let fresh = device.read_resident(&b, bytes.len()).expect("read");
    let mut out = vec![0xAB; bytes.len()];
    device.finish_read(fresh, &mut out).expect("collected");
    assert!(
        out.iter().all(|&x| x == 0),
        "a new resident buffer is zeroed"
    );
    device.write_resident(&a, &bytes).expect("write");
    let kernel = add_one();
    let blocks = n.div_ceil(64);
    // a -> b -> a: twice `+ 1` without the words leaving the device; the first launch is only
    // submitted, the second queued behind it on the same queue.
    let first = device
        .submit_resident(&kernel, blocks, &[&a, &b], &[u64::from(n)])
        .expect("first launch");
    let second = device
        .dispatch_resident(&kernel, blocks, &[&b, &a], &[u64::from(n)])
        .expect("second launch");
    let first = device.finish_dispatch(first).expect("collected");
    let clock = if device.adapter().timestamp_query {
        Clock::WebGpuTimestamps
    } else {
        Clock::HostClock
    };
    for time in [first, second] {
        assert!(time.ns > 0, "{time:?}");
        assert_eq!(
            time.clock, clock,
            "timestamps exactly where the adapter has them"
        );
    }
    // Both read-backs queued before either is collected; one of an odd length.
    let whole = device.read_resident(&a, bytes.len()).expect("read");
    let part = device.read_resident(&b, 7).expect("read");
    let mut got = vec![0; bytes.len()];
    device.finish_read(whole, &mut got).expect("collected");
    let plus =
        |k: u32| words_to_bytes(&words.iter().map(|w| w.wrapping_add(k)).collect::<Vec<_>>());
    assert!(got == plus(2), "two launches on the device: every word + 2");
    let mut seven = [0u8; 7];
    device.finish_read(part, &mut seven).expect("collected");
    assert_eq!(
        seven[..],
        plus(1)[..7],
        "the first 7 bytes of the middle buffer"
    );
}

#[test]
fn resident_misuse_is_an_error_that_says_what() {
    let Some(device) = device("resident_misuse_is_an_error_that_says_what") else {
        return;
    };
    let a = device.resident_buffer(16).expect("a buffer");
    let too_long = device.write_resident(&a, &[0; 17]);
    assert!(
        matches!(&too_long, Err(WebGpuError::Arguments(m)) if m.contains("17 bytes into a 16-byte")),
        "{too_long:?}"
    );
    let read = device.read_resident(&a, 20).map(|_| ());
    assert!(
        matches!(&read, Err(WebGpuError::Arguments(m)) if m.contains("20 bytes from a 16-byte")),
        "{read:?}"
    );
    let one_buffer = device.dispatch_resident(&add_one(), 1, &[&a], &[4]);
    assert!(
        matches!(&one_buffer, Err(WebGpuError::Arguments(m)) if m.contains("takes 2 buffers")),
        "{one_buffer:?}"
    );
    let huge = device.resident_buffer(usize::MAX / 2).map(|_| ());
    assert!(
        matches!(&huge, Err(WebGpuError::Arguments(m)) if m.contains("more than adapter")),
        "{huge:?}"
    );
    let fine = device.read_resident(&a, 16).expect("read");
    let mut wrong = [0u8; 8];
    assert!(matches!(
        device.finish_read(fine, &mut wrong),
        Err(WebGpuError::Arguments(_))
    ));
}
