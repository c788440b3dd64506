//! The `.wfir` text form on hostile input: the parser and the verifier give a kernel or an error
//! naming where; a kernel that verifies is run on the IR simulator with a small grid, small buffers
//! and scalars chosen by the input, under a modest step limit: a report, never a panic, a hang or an
//! unbounded allocation.
//!
//! Input: [`CONFIG`] bytes choosing the launch, then the `.wfir` text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpforge_ir::{parse_kernel, verify, Access, ParamKind, Verified};
use warpforge_sim::{run_grid, BufferArg, SimOptions};

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
    let Ok(kernel) = parse_kernel(text) else {
        return;
    };
    let Ok(verified) = verify(&kernel) else {
        return;
    };
    let byte = |i: usize| config.get(i).copied().unwrap_or(0);
    launch(&verified, &byte);
});

/// Launches `kernel` once with a grid, buffers and scalars chosen by the config bytes.
fn launch(kernel: &Verified<'_>, byte: &dyn Fn(usize) -> u8) {
    // Bounded work: at most 256 threads per block.
    if kernel.block_size > 256 {
        return;
    }
    // 1 to 3 blocks along x, y or z (a kernel reading the grid's shape sees which).
    let blocks = 1 + u32::from(byte(0) % 3);
    let grid = match byte(0) / 3 % 3 {
        0 => [blocks, 1, 1],
        1 => [1, blocks, 1],
        _ => [1, 1, blocks],
    };
    let buffer_bytes = 64 * (1 + usize::from(byte(1) % 64));
    let mut pick = u32::from(byte(2)) | u32::from(byte(3)) << 8;
    let mut storage: Vec<(Access, Vec<u8>)> = Vec::new();
    let mut scalars = Vec::new();
    for (_, p) in kernel.params.iter() {
        match p.kind {
            ParamKind::Buffer { elem, access } => {
                let size = elem.size_bytes().unwrap_or(4).max(1) as usize;
                let len = buffer_bytes / size * size;
                let fill = (0..len).map(|i| (i as u8).wrapping_mul(byte(4) | 1));
                storage.push((access, fill.collect()));
            }
            ParamKind::Scalar(ty) => {
                pick = pick.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                let v = SCALARS[(pick >> 16) as usize % SCALARS.len()];
                let width = ty.bits();
                scalars.push(if width >= 64 {
                    v
                } else {
                    v & ((1u64 << width) - 1)
                });
            }
        }
    }
    let mut buffers: Vec<BufferArg<'_>> = storage
        .iter_mut()
        .map(|(access, bytes)| match access {
            Access::ReadOnly => BufferArg::ReadOnly(bytes.as_slice()),
            Access::ReadWrite => BufferArg::ReadWrite(bytes.as_mut_slice()),
        })
        .collect();
    let options = SimOptions {
        sanitize: byte(5) & 1 == 0,
        stats: byte(5) & 2 != 0,
        profile: byte(5) & 4 != 0,
        threads: 1,
        step_limit: 20_000,
        max_findings: 16,
    };
    let _report = run_grid(kernel, grid, &mut buffers, &scalars, &options);
}
