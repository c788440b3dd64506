//! Loading and running one PTX entry, shared by the PTX tests: the one place that builds a launch,
//! binds buffers and reads words back.

// Each test module uses a part of these helpers.
#![allow(dead_code)]

use warpforge_sim::ptx::{self, PtxArg, PtxKernel, PtxLaunch};
use warpforge_sim::{BufferArg, SimOptions, SimReport};

/// Loads entry `entry` of `text`, panicking with the error and the text.
pub fn load(text: &str, entry: &str) -> PtxKernel {
    PtxKernel::load(text, entry).unwrap_or_else(|e| panic!("{entry}: {e}\n{text}"))
}

/// A one-dimensional launch of `grid` blocks of `block` threads.
pub fn shape(grid: u32, block: u32) -> PtxLaunch {
    PtxLaunch {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        dynamic_shared: 0,
    }
}

/// Runs `kernel` with `buffers` (each a pointer parameter, in order) followed by `scalars`.
pub fn run_kernel(
    kernel: &PtxKernel,
    shape: &PtxLaunch,
    buffers: &mut [BufferArg<'_>],
    scalars: &[u64],
    options: &SimOptions,
) -> SimReport {
    let mut args = vec![PtxArg::Buffer; buffers.len()];
    args.extend(scalars.iter().map(|&s| PtxArg::Scalar(s)));
    ptx::run(kernel, shape, &args, buffers, options).expect("the launch starts")
}

/// Runs entry `entry` of `text` with one output buffer of `out_len` bytes (zeroed) and `scalars`:
/// the report and the buffer after the launch.
pub fn run_out(
    text: &str,
    entry: &str,
    shape: &PtxLaunch,
    out_len: usize,
    scalars: &[u64],
    options: &SimOptions,
) -> (SimReport, Vec<u8>) {
    let kernel = load(text, entry);
    let mut out = vec![0u8; out_len];
    let report = run_kernel(
        &kernel,
        shape,
        &mut [BufferArg::ReadWrite(&mut out)],
        scalars,
        options,
    );
    (report, out)
}

/// Runs entry `entry` of `text` with an input buffer, an output buffer of `out_len` bytes (zeroed)
/// and `scalars`, sanitizer on: the report and the output buffer.
pub fn run_in_out(
    text: &str,
    entry: &str,
    shape: &PtxLaunch,
    input: &[u8],
    out_len: usize,
    scalars: &[u64],
) -> (SimReport, Vec<u8>) {
    let kernel = load(text, entry);
    let mut input = input.to_vec();
    let mut out = vec![0u8; out_len];
    let report = run_kernel(
        &kernel,
        shape,
        &mut [
            BufferArg::ReadWrite(&mut input),
            BufferArg::ReadWrite(&mut out),
        ],
        scalars,
        &SimOptions::default(),
    );
    (report, out)
}

/// Little-endian 32-bit words.
pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

/// The 1-based number of the first line of `text` that contains `needle`.
pub fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no `{needle}` in the text"))
        + 1
}
