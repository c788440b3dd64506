//! The subgroup lowering *run*, not only validated: emitted WGSL executed by a naga interpreter
//! ([`crate::naga_run`]) on modelled 32- and 64-wide subgroups, every buffer compared bit for bit with
//! the IR simulator (`warpforge-sim`, the definition of CUDA's warp semantics in this repository),
//! and with the emulated lowering run the same way (on 8-wide subgroups, as lavapipe's: the emulation
//! must not care). Mutations prove the comparison can fail: the 32-wide WGSL run on 64-wide
//! subgroups gives other results, and the 64-wide WGSL on 32-wide subgroups shuffles from outside
//! the subgroup.

use crate::naga_run::{self, Stop};
use warpforge_ir::{kernel, samples, verify, Access, Kernel, ParamKind, Verified};
use warpforge_sim::{BufferArg, SimOptions};
use warpforge_wgsl::{emit_with, WarpLowering, Wgsl};

/// The lowerings to compare and the subgroup width each runs on.
const RUNS: [(WarpLowering, u32); 4] = [
    (WarpLowering::Emulated, 8),
    (WarpLowering::Emulated, 64),
    (WarpLowering::Subgroups { width: 32 }, 32),
    (WarpLowering::Subgroups { width: 64 }, 64),
];

/// A splitmix64 stream (the inputs of a case are reproducible from its seed).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Buffer bytes for `kernel`'s buffer parameters, `elements` each: small values half the time (so
/// `match_any` finds equal values and votes go both ways), zeros for read-write buffers.
fn inputs(kernel: &Kernel, elements: usize, rng: &mut Rng) -> Vec<Vec<u8>> {
    kernel
        .params
        .iter()
        .filter_map(|(_, p)| match p.kind {
            ParamKind::Buffer { elem, access } => Some((elem, access)),
            ParamKind::Scalar(_) => None,
        })
        .map(|(elem, access)| {
            let size = elem.size_bytes().unwrap_or(4) as usize;
            let small = rng.next() % 2 == 0;
            let mut bytes = Vec::with_capacity(elements * size);
            for _ in 0..elements {
                let v = match (access, small) {
                    (Access::ReadWrite, _) => 0,
                    (_, true) => rng.next() % 6,
                    (_, false) => rng.next(),
                };
                bytes.extend_from_slice(&v.to_le_bytes()[..size]);
            }
            bytes
        })
        .collect()
}

/// The kernel on the IR simulator: every buffer afterwards, or `None` when the simulator finds the
/// result undefined (a race, an access out of bounds, a collective whose mask is not its lanes).
fn simulate(
    kernel: &Verified<'_>,
    blocks: u32,
    buffers: &[Vec<u8>],
    scalars: &[u64],
) -> Option<Vec<Vec<u8>>> {
    let mut out = buffers.to_vec();
    let accesses: Vec<Access> = kernel
        .params
        .iter()
        .filter_map(|(_, p)| match p.kind {
            ParamKind::Buffer { access, .. } => Some(access),
            ParamKind::Scalar(_) => None,
        })
        .collect();
    let mut args: Vec<BufferArg<'_>> = out
        .iter_mut()
        .zip(&accesses)
        .map(|(bytes, access)| match access {
            Access::ReadOnly => BufferArg::ReadOnly(bytes),
            Access::ReadWrite => BufferArg::ReadWrite(bytes),
        })
        .collect();
    let report = warpforge_sim::run(kernel, blocks, &mut args, scalars, &SimOptions::default())
        .expect("arguments fit the kernel");
    report.is_clean().then_some(out)
}

/// Runs `kernel` in every lowering of [`RUNS`] and compares each with the simulator.
fn check_every_lowering(kernel: &Kernel, blocks: u32, buffers: &[Vec<u8>], scalars: &[u64]) {
    let verified = verify(kernel).expect("verifies");
    let expected =
        simulate(&verified, blocks, buffers, scalars).expect("the simulator finds nothing");
    for (warps, width) in RUNS {
        let wgsl = emit_with(&verified, warps).expect("emits");
        let got = naga_run::run(&wgsl, width, blocks, buffers, scalars)
            .unwrap_or_else(|e| panic!("{} as {warps} on {width} lanes: {e:?}", kernel.name));
        assert_buffers_eq(
            &got,
            &expected,
            &format!("{} as {warps} on {width}", kernel.name),
        );
    }
}

fn assert_buffers_eq(got: &[Vec<u8>], expected: &[Vec<u8>], what: &str) {
    for (i, (g, e)) in got.iter().zip(expected).enumerate() {
        if g != e {
            let word =
                |b: &[u8], w: usize| u32::from_le_bytes(b[w * 4..w * 4 + 4].try_into().unwrap());
            let first = (0..g.len() / 4)
                .find(|&w| word(g, w) != word(e, w))
                .unwrap_or(0);
            panic!(
                "{what}: buffer {i} differs first at word {first}: {:#x}, the simulator {:#x}",
                word(g, first),
                word(e, first)
            );
        }
    }
    assert_eq!(got.len(), expected.len(), "{what}: buffer count");
}

fn warp_collectives() -> Kernel {
    let sample = samples::ALL
        .iter()
        .find(|s| s.name == "warp-collectives")
        .expect("the sample exists");
    (sample.build)()
}

/// The sample with every collective (two warps per block: one 64-wide subgroup, or two 32-wide
/// ones), over several inputs and grids.
#[test]
fn warp_collectives_sample_runs_like_the_simulator_in_every_lowering() {
    let kernel = warp_collectives();
    let mut rng = Rng(1);
    for blocks in [1, 3] {
        for _ in 0..3 {
            let n = (64 * blocks) as usize;
            let mut buffers = inputs(&kernel, n, &mut rng);
            buffers[1] = vec![0; n * 9 * 4];
            check_every_lowering(&kernel, blocks, &buffers, &[]);
        }
    }
}

/// Shuffles of every mode with per-lane deltas past 31 (the lane operand is taken modulo 32) and
/// sources out of range, of u32, i32 and f32; a ballot and votes under a mask computed at run time;
/// `match_any` of u64; `warp_sync` ordering shared memory. Three warps per block: on 64-wide
/// subgroups the third warp is the lower half of a subgroup whose upper half does not exist.
#[kernel(block_size = 96)]
fn every_operand(input: &[u32], wide: &[u64], out: &mut [u32]) {
    let t = block_index() * block_size() + thread_index();
    let x = input[t];
    let d = x % 40;
    let m = x | 4294967295u32;
    let first = t * 10;
    out[first] = shuffle_up(x, d, FULL_MASK);
    out[first + 1] = shuffle_down(x as i32, d, m) as u32;
    let f = (x & 65535) as f32;
    out[first + 2] = shuffle_xor(f, d, FULL_MASK) as u32;
    out[first + 3] = shuffle_idx(x, d, m);
    out[first + 4] = ballot(x % 3 == 1, m);
    out[first + 5] = vote_all(x < 5, m) as u32;
    out[first + 6] = vote_any(x == 2, FULL_MASK) as u32;
    let w = wide[t];
    out[first + 7] = match_any(w, FULL_MASK);
    out[first + 8] = match_any(w as u32, m);
    let tile = shared::<u32>(96, 4);
    tile[thread_index()] = x;
    warp_sync(FULL_MASK);
    out[first + 9] = tile[thread_index() ^ 1];
}

#[test]
fn every_operand_runs_like_the_simulator_in_every_lowering() {
    let kernel = every_operand();
    let mut rng = Rng(7);
    for blocks in [1, 2] {
        for _ in 0..3 {
            let n = (96 * blocks) as usize;
            let mut buffers = inputs(&kernel, n, &mut rng);
            buffers[2] = vec![0; n * 10 * 4];
            check_every_lowering(&kernel, blocks, &buffers, &[]);
        }
    }
}

/// The butterfly sum sample (four warps per block, a partial last warp of input).
#[test]
fn warp_reduce_sample_runs_like_the_simulator_in_every_lowering() {
    let sample = samples::ALL
        .iter()
        .find(|s| s.name == "warp-reduce")
        .expect("the sample exists");
    let kernel = (sample.build)();
    let mut rng = Rng(3);
    for (blocks, n) in [(1u32, 128u64), (2, 200)] {
        let mut buffers = inputs(&kernel, 256, &mut rng);
        buffers[1] = vec![0; 8 * 4];
        check_every_lowering(&kernel, blocks, &buffers, &[n]);
    }
}

fn run_as(wgsl: &Wgsl, width: u32, buffers: &[Vec<u8>]) -> Result<Vec<Vec<u8>>, Stop> {
    naga_run::run(wgsl, width, 1, buffers, &[])
}

/// The comparison can fail: a lowering run on subgroups of the other width is wrong, and the
/// interpreter notices.
#[test]
fn a_lowering_on_subgroups_of_the_other_width_is_caught() {
    let kernel = warp_collectives();
    let verified = verify(&kernel).expect("verifies");
    let mut buffers = inputs(&kernel, 64, &mut Rng(5));
    buffers[1] = vec![0; 64 * 9 * 4];
    let expected = simulate(&verified, 1, &buffers, &[]).expect("clean");
    let narrow = emit_with(&verified, WarpLowering::Subgroups { width: 32 }).expect("emits");
    let wide = emit_with(&verified, WarpLowering::Subgroups { width: 64 }).expect("emits");
    assert_eq!(run_as(&narrow, 32, &buffers).expect("runs"), expected);
    assert_eq!(run_as(&wide, 64, &buffers).expect("runs"), expected);
    // The 32-wide WGSL on a 64-wide subgroup: the second warp shuffles from the first.
    let wrong = run_as(&narrow, 64, &buffers).expect("runs");
    assert_ne!(wrong, expected, "the half offset is not needed?");
    // The 64-wide WGSL on 32-wide subgroups: the second warp's sources are past its subgroup.
    match run_as(&wide, 32, &buffers) {
        Err(Stop::Fault(why)) => assert!(why.contains("outside its subgroup"), "{why}"),
        other => panic!("expected a fault, got {other:?}"),
    }
}

/// Random kernels with warp collectives (`warpforge_ir::random`, integer types only: the
/// interpreter models WGSL's integer semantics exactly, not its float latitude), each run in every
/// lowering and compared with the simulator. Kernels the emitter refuses (divergent collectives),
/// the simulator calls undefined, or that use what the interpreter does not model are counted
/// apart; enough must be compared to mean something.
#[test]
fn random_kernels_with_collectives_run_like_the_simulator_in_every_lowering() {
    use warpforge_ir::random::random_defined_kernel_without;
    use warpforge_ir::{Literal, ScalarType};

    const CASES: u64 = 120;
    const ELEMENTS: u32 = 1024;
    let (mut compared, mut refused, mut undefined, mut unmodelled) = (0, 0, 0, Vec::new());
    for seed in 0..CASES {
        let mut rng = Rng(seed);
        let choices: Vec<u8> = (0..1024).map(|_| rng.next() as u8).collect();
        let excluded = [ScalarType::F64, ScalarType::F16, ScalarType::BF16];
        let kernel = random_defined_kernel_without(&choices, ELEMENTS, &excluded);
        if !crate::subgroups::has_collectives(&kernel) {
            continue;
        }
        let verified = verify(&kernel).expect("random kernels verify");
        let Ok(emulated) = emit_with(&verified, WarpLowering::Emulated) else {
            refused += 1;
            continue;
        };
        let blocks = 1 + (rng.next() % 3) as u32;
        let buffers = inputs(&kernel, ELEMENTS as usize, &mut rng);
        let scalars: Vec<u64> = kernel
            .params
            .iter()
            .filter_map(|(_, p)| match p.kind {
                ParamKind::Scalar(t) => Some(Literal::from_bits(t, rng.next() % 64).to_bits()),
                ParamKind::Buffer { .. } => None,
            })
            .collect();
        let Some(expected) = simulate(&verified, blocks, &buffers, &scalars) else {
            undefined += 1;
            continue;
        };
        let mut all = true;
        for (warps, width) in RUNS {
            let wgsl = if warps == WarpLowering::Emulated {
                emulated.clone()
            } else {
                emit_with(&verified, warps).expect("emits as the emulation did")
            };
            match naga_run::run(&wgsl, width, blocks, &buffers, &scalars) {
                Ok(got) => assert_buffers_eq(
                    &got,
                    &expected,
                    &format!(
                        "seed {seed} as {warps} on {width}\n{kernel}\n{}",
                        wgsl.source
                    ),
                ),
                Err(Stop::Unsupported(what)) => {
                    unmodelled.push(what);
                    all = false;
                    break;
                }
                Err(Stop::Fault(why)) => {
                    panic!(
                        "seed {seed} as {warps} on {width}: {why}\n{kernel}\n{}",
                        wgsl.source
                    )
                }
            }
        }
        compared += u32::from(all);
    }
    println!(
        "{compared} random kernels with collectives compared in every lowering; {refused} refused \
         (divergent), {undefined} undefined on the simulator, {} unmodelled: {:?}",
        unmodelled.len(),
        unmodelled
    );
    assert!(compared >= 35, "only {compared} compared");
}
