//! `atomic_add` on `f32` (and, at the end, `f64`) elements, global and shared, on every backend that runs here (the IR
//! simulator, the PTX simulator for every target, WebGPU, where it is a compare-exchange loop) and
//! through ptxas. The values are small integers, so every order of the additions gives the same
//! sums exactly: the final sums must be the host's, and each element's returned old values must be
//! a chain (sorted, each is the previous one plus the previous operand). On global memory a
//! subnormal operand is flushed to zero (CUDA's global float atomics are `FADD.FTZ`), on shared
//! memory it is kept: the simulators and PTX give exactly that; WGSL may flush either.

use crate::backends_support::{assembles_everywhere, on_cuda, on_ptx_sim, on_sim, on_webgpu};

use warpforge_ir::{kernel, Kernel};

const BLOCKS: u32 = 4;
const N: usize = 64 * BLOCKS as usize;
/// Global sums.
const SUMS: usize = 4;
/// A subnormal (`0x300`: 768 × 2^-149).
const SUBNORMAL: f32 = f32::from_bits(0x0000_0300);

#[kernel(block_size = 64)]
fn float_atomics(
    xs: &[f32],
    sums: &mut [f32],
    olds: &mut [f32],
    block_sums: &mut [f32],
    tiny: &mut [f32],
) {
    let acc = shared::<f32>(2, 4);
    let t = thread_index();
    let i = block_index() * block_size() + t;
    if t < 2 {
        acc[t] = 0.0;
    }
    barrier();
    let x = xs[i];
    olds[i] = atomic_add(&sums[i % 4], x);
    let _ = atomic_add(&acc[0], x);
    barrier();
    if t == 0 {
        block_sums[block_index()] = acc[0];
        // A subnormal added to zero: flushed on global memory, kept on shared.
        let _ = atomic_add(&acc[1], SUBNORMAL);
        let _ = atomic_add(&tiny[block_index() * 2], SUBNORMAL);
        tiny[block_index() * 2 + 1] = acc[1];
    }
}

fn inputs() -> Vec<f32> {
    (0..N).map(|i| ((i * 37 + 11) % 13 + 1) as f32).collect()
}

fn buffers() -> Vec<Vec<u8>> {
    let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    vec![
        f(&inputs()),
        vec![0; SUMS * 4],
        vec![0; N * 4],
        vec![0; BLOCKS as usize * 4],
        vec![0; BLOCKS as usize * 2 * 4],
    ]
}

fn floats(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

/// `exact_subnormals`: the simulators and PTX (global flushed, shared kept); WGSL may flush any.
fn check(backend: &str, out: &[Vec<u8>], exact_subnormals: bool) {
    let xs = inputs();
    let (sums, olds, block_sums, tiny) = (
        floats(&out[1]),
        floats(&out[2]),
        floats(&out[3]),
        floats(&out[4]),
    );
    for (j, &sum) in sums.iter().enumerate() {
        let mine: Vec<(f32, f32)> = (0..N)
            .filter(|i| i % SUMS == j)
            .map(|i| (olds[i], xs[i]))
            .collect();
        let want: f32 = mine.iter().map(|p| p.1).sum();
        assert_eq!(sum, want, "{backend}: sums[{j}]");
        let mut chain = mine.clone();
        chain.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut expect = 0.0f32;
        for (old, x) in &chain {
            assert_eq!(
                *old, expect,
                "{backend}: sums[{j}]: the old values are not a chain: {chain:?}"
            );
            expect += x;
        }
    }
    for (b, &s) in block_sums.iter().enumerate() {
        let want: f32 = xs[b * 64..(b + 1) * 64].iter().sum();
        assert_eq!(s, want, "{backend}: the shared sum of block {b}");
    }
    if exact_subnormals {
        for b in 0..BLOCKS as usize {
            assert_eq!(
                tiny[b * 2].to_bits(),
                0,
                "{backend}: global atomic add flushes a subnormal"
            );
            assert_eq!(
                tiny[b * 2 + 1].to_bits(),
                0x300,
                "{backend}: shared atomic add keeps it"
            );
        }
    }
}

fn kernel() -> Kernel {
    float_atomics()
}

#[test]
fn float_atomic_add_sums_exactly_on_the_ir_simulator() {
    check("sim", &on_sim(&kernel(), BLOCKS, &buffers(), 1), true);
}

#[test]
fn float_atomic_add_sums_exactly_on_the_ptx_simulator() {
    on_ptx_sim(&kernel(), BLOCKS, &buffers(), 1, |backend, out| {
        check(backend, out, true)
    });
}

#[test]
fn float_atomic_add_sums_exactly_on_webgpu() {
    let test = "float_atomic_add_sums_exactly_on_webgpu";
    if let Some(out) = on_webgpu(test, &kernel(), BLOCKS, &buffers(), 1) {
        check("webgpu", &out, false);
    }
}

#[test]
fn float_atomic_add_assembles_for_every_target() {
    assembles_everywhere("float_atomic_add_assembles_for_every_target", &kernel());
}

/// On a GPU machine (`scripts/gpu-check.sh`): global float atomics flush subnormals on hardware too.
#[test]
fn float_atomic_add_sums_exactly_on_cuda() {
    let test = "float_atomic_add_sums_exactly_on_cuda";
    if let Some((device, out)) = on_cuda(test, &kernel(), BLOCKS, &buffers(), 1) {
        check(&device, &out, true);
    }
}

// ---- f64 ----

/// An `f64` subnormal (`0x300` × 2^-1074).
const SUBNORMAL64: f64 = f64::from_bits(0x300);

#[kernel(block_size = 64)]
fn double_atomics(xs: &[f64], sums: &mut [f64], block_sums: &mut [f64], tiny: &mut [f64]) {
    let acc = shared::<f64>(2, 8);
    let t = thread_index();
    let i = block_index() * block_size() + t;
    if t < 2 {
        acc[t] = 0.0;
    }
    barrier();
    let x = xs[i];
    let _ = atomic_add(&sums[i % 4], x);
    let _ = atomic_add(&acc[0], x);
    barrier();
    if t == 0 {
        block_sums[block_index()] = acc[0];
        // A subnormal added to zero: kept on global and on shared memory (no flush for f64).
        let _ = atomic_add(&acc[1], SUBNORMAL64);
        let _ = atomic_add(&tiny[block_index() * 2], SUBNORMAL64);
        tiny[block_index() * 2 + 1] = acc[1];
    }
}

/// Sums of small integers plus 2^-30 steps: exact in f64 in any order.
fn double_inputs() -> Vec<f64> {
    (0..N)
        .map(|i| ((i * 37 + 11) % 13 + 1) as f64 + (i % 5) as f64 * 2f64.powi(-30))
        .collect()
}

fn double_buffers() -> Vec<Vec<u8>> {
    let f = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    vec![
        f(&double_inputs()),
        vec![0; SUMS * 8],
        vec![0; BLOCKS as usize * 8],
        vec![0; BLOCKS as usize * 2 * 8],
    ]
}

fn check_doubles(backend: &str, out: &[Vec<u8>]) {
    let d = |b: &[u8]| -> Vec<f64> {
        b.chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect()
    };
    let xs = double_inputs();
    let (sums, block_sums, tiny) = (d(&out[1]), d(&out[2]), d(&out[3]));
    for (j, &sum) in sums.iter().enumerate() {
        let want: f64 = (0..N).filter(|i| i % SUMS == j).map(|i| xs[i]).sum();
        assert_eq!(sum, want, "{backend}: f64 sums[{j}]");
    }
    for (b, &s) in block_sums.iter().enumerate() {
        let want: f64 = xs[b * 64..(b + 1) * 64].iter().sum();
        assert_eq!(s, want, "{backend}: the shared f64 sum of block {b}");
    }
    for b in 0..BLOCKS as usize {
        assert_eq!(
            tiny[b * 2].to_bits(),
            0x300,
            "{backend}: global f64 atomic keeps a subnormal"
        );
        assert_eq!(
            tiny[b * 2 + 1].to_bits(),
            0x300,
            "{backend}: shared f64 atomic keeps it"
        );
    }
}

#[test]
fn f64_atomic_add_sums_exactly_on_the_simulators() {
    check_doubles(
        "sim",
        &on_sim(&double_atomics(), BLOCKS, &double_buffers(), 1),
    );
    on_ptx_sim(
        &double_atomics(),
        BLOCKS,
        &double_buffers(),
        1,
        check_doubles,
    );
    assembles_everywhere(
        "f64_atomic_add_sums_exactly_on_the_simulators",
        &double_atomics(),
    );
}

/// On a GPU machine (`scripts/gpu-check.sh`).
#[test]
fn f64_atomic_add_sums_exactly_on_cuda() {
    let test = "f64_atomic_add_sums_exactly_on_cuda";
    if let Some((device, out)) = on_cuda(test, &double_atomics(), BLOCKS, &double_buffers(), 1) {
        check_doubles(&device, &out);
    }
}
