//! 2-D and 3-D blocks and grids: every thread of a `(8, 4, 2)`-block kernel launched over a
//! `3 × 2 × 2` grid writes its indices (linear and per dimension), the block's, the grid's extents,
//! its lane and warp; each backend that runs here (the IR simulator, the PTX simulator for every
//! target, WebGPU) must give CUDA's numbering: a thread's linear index is `x + y·Bx + z·Bx·By`, a
//! block's `x + y·Gx + z·Gx·Gy`, warps are runs of 32 linear indices. The same kernel assembles
//! with ptxas, and its PTX declares `.reqntid 8, 4, 2`.

use crate::common;

use warpforge::ptx::Sm;
use warpforge::runtime::sim::SimOptions;
use warpforge::runtime::webgpu::WebGpuDevice;
use warpforge::runtime::{BufferArg, Launcher};
use warpforge_ir::{kernel, verify, Kernel};

const BLOCK: [u32; 3] = [8, 4, 2];
const GRID: [u32; 3] = [3, 2, 2];
/// Words per thread.
const EACH: usize = 15;

#[kernel(block_size = (8, 4, 2))]
fn indices(out: &mut [u32]) {
    let o = (block_index() * block_size() + thread_index()) * 15;
    out[o] = thread_index();
    out[o + 1] = thread_index_x();
    out[o + 2] = thread_index_y();
    out[o + 3] = thread_index_z();
    out[o + 4] = block_index();
    out[o + 5] = block_index_x();
    out[o + 6] = block_index_y();
    out[o + 7] = block_index_z();
    out[o + 8] = grid_size_x();
    out[o + 9] = grid_size_y();
    out[o + 10] = grid_size_z();
    out[o + 11] = grid_size();
    out[o + 12] = lane_id();
    out[o + 13] = warp_index();
    out[o + 14] = block_size_x() * 10_000 + block_size_y() * 100 + block_size_z();
}

fn threads() -> usize {
    (BLOCK.iter().product::<u32>() * GRID.iter().product::<u32>()) as usize
}

/// What CUDA gives each thread, in the order of the kernel's stores.
fn expected() -> Vec<u32> {
    let [bx, by, bz] = BLOCK;
    let [gx, gy, gz] = GRID;
    let mut out = Vec::new();
    for b in 0..gx * gy * gz {
        for t in 0..bx * by * bz {
            out.extend([
                t,
                t % bx,
                t / bx % by,
                t / (bx * by),
                b,
                b % gx,
                b / gx % gy,
                b / (gx * gy),
                gx,
                gy,
                gz,
                gx * gy * gz,
                t % 32,
                t / 32,
                bx * 10_000 + by * 100 + bz,
            ]);
        }
    }
    out
}

fn run(launcher: &Launcher, kernel: &Kernel) -> Vec<u32> {
    let verified = verify(kernel).expect("verifies");
    let loaded = launcher.load(&verified).expect("loads");
    let mut out = vec![0u8; threads() * EACH * 4];
    let launched = launcher
        .launch_grid(&loaded, GRID, &mut [BufferArg::ReadWrite(&mut out)], &[])
        .expect("launches");
    let findings: Vec<_> = launched.sim.iter().flat_map(|r| &r.findings).collect();
    assert!(findings.is_empty(), "{findings:?}");
    out.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

fn check(backend: &str, got: &[u32]) {
    let want = expected();
    const NAMES: [&str; EACH] = [
        "thread_index",
        "thread_index_x",
        "thread_index_y",
        "thread_index_z",
        "block_index",
        "block_index_x",
        "block_index_y",
        "block_index_z",
        "grid_size_x",
        "grid_size_y",
        "grid_size_z",
        "grid_size",
        "lane_id",
        "warp_index",
        "block_size_x/y/z",
    ];
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        let (thread, word) = (i / EACH, i % EACH);
        assert_eq!(
            g,
            w,
            "{backend}: thread {thread} (block {}, linear index {}): {} is {g}, CUDA gives {w}",
            thread / 64,
            thread % 64,
            NAMES[word]
        );
    }
}

#[test]
fn indices_follow_cudas_order_on_the_simulators() {
    let k = indices();
    check("sim", &run(&Launcher::Sim(SimOptions::default()), &k));
    for sm in Sm::ALL {
        let got = run(&Launcher::PtxSim(SimOptions::default(), sm), &k);
        check(&format!("ptx-sim {}", sm.name()), &got);
    }
}

#[test]
fn indices_follow_cudas_order_on_webgpu() {
    let k = indices();
    let verified = verify(&k).expect("verifies");
    let requirements = warpforge::wgsl::emit(&verified)
        .expect("emits")
        .requirements;
    if !common::webgpu_or_skip("indices_follow_cudas_order_on_webgpu", &requirements) {
        return;
    }
    let device = WebGpuDevice::new(&requirements).expect("an adapter");
    check("webgpu", &run(&Launcher::WebGpu(device), &k));
}

#[test]
fn a_3d_block_is_declared_to_ptxas() {
    let k = indices();
    let verified = verify(&k).expect("verifies");
    for sm in Sm::ALL {
        let ptx = warpforge::ptx::emit(&verified, sm).expect("emits");
        assert!(ptx.text.contains(".reqntid 8, 4, 2"), "{}", ptx.text);
        let config = ptx.launch.config_grid(GRID).expect("a launchable grid");
        assert_eq!((config.grid, config.block), ((3, 2, 2), (8, 4, 2)));
    }
    let Some(ptxas) = common::ptxas_or_skip("a_3d_block_is_declared_to_ptxas") else {
        return;
    };
    for sm in Sm::ALL {
        let ptx = warpforge::ptx::emit(&verified, sm).expect("emits");
        ptxas
            .assemble(&ptx.text, sm)
            .unwrap_or_else(|e| panic!("{sm}: {e}"));
    }
}

/// A kernel that reads only its linear indices runs the same on any grid of as many blocks.
#[test]
fn a_kernel_blind_to_the_grid_runs_as_its_block_count() {
    #[kernel(block_size = 32)]
    fn linear(out: &mut [u32]) {
        let i = block_index() * block_size() + thread_index();
        out[i] = i * 3 + grid_size();
    }
    let k = linear();
    let verified = verify(&k).expect("verifies");
    let launcher = Launcher::Sim(SimOptions::default());
    let loaded = launcher.load(&verified).expect("loads");
    let mut out = vec![0u8; 6 * 32 * 4];
    launcher
        .launch_grid(
            &loaded,
            [2, 3, 1],
            &mut [BufferArg::ReadWrite(&mut out)],
            &[],
        )
        .expect("launches");
    let got: Vec<u32> = out
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    let want: Vec<u32> = (0..6 * 32).map(|i| i * 3 + 6).collect();
    assert_eq!(got, want);
    let ptx = warpforge::ptx::emit(&verified, Sm::Sm80).expect("emits");
    assert!(
        !ptx.text.contains("%ctaid.y"),
        "a 1-D kernel keeps %ctaid.x alone"
    );
}
