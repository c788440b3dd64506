//! The PTX simulator on hostile PTX text: every entry of the module is decoded and launched with a
//! small launch shape, small buffers and scalars chosen by the input, under a modest step limit.
//! Decoding gives a kernel or an error naming the line; a launch gives a report (faults are findings)
//! or an argument error; never a panic, a hang or an unbounded allocation.
//!
//! Input: [`CONFIG`] bytes choosing the launch, then the PTX text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpforge_ptx::parse::parse;
use warpforge_sim::ptx::{run, PtxArg, PtxKernel, PtxLaunch};
use warpforge_sim::{BufferArg, SimOptions};

/// Bytes before the text that choose the launch.
const CONFIG: usize = 8;

/// Scalars worth trying: zero, small counts, sizes near the buffers', extremes.
const SCALARS: [u64; 12] = [
    0,
    1,
    2,
    3,
    31,
    32,
    255,
    1024,
    4096,
    0xffff_ffff,
    0x8000_0000_0000_0000,
    u64::MAX,
];

fuzz_target!(|data: &[u8]| {
    let (config, text) = data.split_at(data.len().min(CONFIG));
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let Ok(module) = parse(text) else {
        return;
    };
    let byte = |i: usize| config.get(i).copied().unwrap_or(0);
    for entry in module.entries() {
        if let Ok(kernel) = PtxKernel::from_module(&module, &entry.name) {
            launch(&kernel, &byte);
        }
    }
});

/// Launches `kernel` once with a shape, buffers and scalars chosen by the config bytes.
fn launch(kernel: &PtxKernel, byte: &dyn Fn(usize) -> u8) {
    let blocks = 1 + u32::from(byte(0) % 3);
    let block = match kernel.reqntid() {
        Some(req) => req,
        None if byte(1) & 0x80 != 0 => [32 * (1 + u32::from(byte(1) % 4)), 1, 1],
        None => [1 + u32::from(byte(1) % 64), 1 + u32::from(byte(2) % 2), 1],
    };
    // Bounded work: at most 256 threads per block (a `.reqntid` of 257 to 1024 threads is not
    // launched; a larger one is, and must be refused).
    let threads = block.iter().map(|&d| u64::from(d)).product::<u64>();
    if (257..=1024).contains(&threads) {
        return;
    }
    let buffer_bytes = 64 * (1 + usize::from(byte(3) % 64));
    let dynamic_shared = if byte(4) & 1 != 0 {
        64 * u32::from(byte(4) >> 1)
    } else {
        0
    };
    let mut pick = u32::from(byte(5)) | u32::from(byte(6)) << 8;
    let mut args = Vec::new();
    for p in kernel.params() {
        pick = pick.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        if p.pointer && byte(7) & 1 == 0 {
            args.push(PtxArg::Buffer);
        } else {
            let v = SCALARS[(pick >> 16) as usize % SCALARS.len()];
            let v = if p.size >= 8 {
                v
            } else {
                v & ((1u64 << (8 * p.size)) - 1)
            };
            args.push(PtxArg::Scalar(v));
        }
    }
    let buffer_count = args.iter().filter(|a| **a == PtxArg::Buffer).count();
    let mut storage: Vec<Vec<u8>> = (0..buffer_count)
        .map(|b| {
            (0..buffer_bytes)
                .map(|i| (i as u8).wrapping_mul(byte(6) | 1).wrapping_add(b as u8))
                .collect()
        })
        .collect();
    let mut buffers: Vec<BufferArg<'_>> = storage
        .iter_mut()
        .map(|s| BufferArg::ReadWrite(s.as_mut_slice()))
        .collect();
    let options = SimOptions {
        sanitize: byte(7) & 2 == 0,
        stats: byte(7) & 4 != 0,
        profile: byte(7) & 8 != 0,
        threads: 1,
        step_limit: 20_000,
        max_findings: 16,
    };
    let shape = PtxLaunch {
        grid: [blocks, 1, 1],
        block,
        dynamic_shared,
    };
    let _report = run(kernel, &shape, &args, &mut buffers, &options);
}
