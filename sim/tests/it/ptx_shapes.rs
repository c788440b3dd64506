//! 2-D and 3-D grids and blocks on the PTX simulator: every component of `%tid`, `%ntid`, `%ctaid`
//! and `%nctaid` as CUDA numbers threads and blocks (x fastest), nvcc's tiled transpose (32x8
//! threads, 2-D grid) and tiled matmul (16x16 threads) with outputs computed in Rust, and the grid and
//! block limits refused with the limit named.

use crate::common::ptx::words;
use warpforge_sim::ptx::{self, PtxArg, PtxKernel, PtxLaunch};
use warpforge_sim::BufferArg;
use warpforge_sim::{SimError, SimOptions};

/// Each thread writes its 12 coordinates (tid, ntid, ctaid, nctaid; x, y, z each) as u32 at
/// `out[12 * global]`, `global` = linear block index * threads + linear thread index.
const COORDS: &str = "\
.version 7.0
.target sm_80
.address_size 64

.visible .entry coords(.param .u64 out)
{
    .reg .b32 %r<40>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;    mov.u32 %r2, %tid.y;    mov.u32 %r3, %tid.z;
    mov.u32 %r4, %ntid.x;   mov.u32 %r5, %ntid.y;   mov.u32 %r6, %ntid.z;
    mov.u32 %r7, %ctaid.x;  mov.u32 %r8, %ctaid.y;  mov.u32 %r9, %ctaid.z;
    mov.u32 %r10, %nctaid.x; mov.u32 %r11, %nctaid.y; mov.u32 %r12, %nctaid.z;
    // linear thread = tid.x + ntid.x * (tid.y + ntid.y * tid.z)
    mad.lo.u32 %r20, %r5, %r3, %r2;
    mad.lo.u32 %r20, %r4, %r20, %r1;
    // linear block = ctaid.x + nctaid.x * (ctaid.y + nctaid.y * ctaid.z)
    mad.lo.u32 %r21, %r11, %r9, %r8;
    mad.lo.u32 %r21, %r10, %r21, %r7;
    // threads per block
    mul.lo.u32 %r22, %r4, %r5;
    mul.lo.u32 %r22, %r22, %r6;
    mad.lo.u32 %r23, %r21, %r22, %r20;
    mul.wide.u32 %rd2, %r23, 48;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};
    st.global.v4.u32 [%rd3+16], {%r5, %r6, %r7, %r8};
    st.global.v4.u32 [%rd3+32], {%r9, %r10, %r11, %r12};
    ret;
}
";

fn corpus(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../analysis/tests/corpus/ptx")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    words(bytes).into_iter().map(f32::from_bits).collect()
}

fn clean_run(kernel: &PtxKernel, launch: &PtxLaunch, args: &[PtxArg], buffers: &mut [BufferArg]) {
    let report = ptx::run(kernel, launch, args, buffers, &SimOptions::default())
        .unwrap_or_else(|e| panic!("{launch:?}: {e}"));
    let findings: Vec<String> = report.findings.iter().map(|f| f.to_string()).collect();
    assert!(report.is_clean() && findings.is_empty(), "{findings:#?}");
}

#[test]
fn every_component_of_the_thread_and_block_coordinates_follows_cuda() {
    let kernel = PtxKernel::load(COORDS, "coords").expect("decodes");
    for (grid, block) in [
        ([3, 2, 2], [4, 2, 3]),
        ([2, 3, 1], [32, 2, 1]),
        ([1, 1, 4], [8, 1, 5]),
        ([5, 1, 1], [33, 1, 1]),
    ] {
        let threads: u32 = block.iter().product();
        let blocks: u32 = grid.iter().product();
        let mut out = vec![0u8; (threads * blocks * 48) as usize];
        let launch = PtxLaunch {
            grid,
            block,
            dynamic_shared: 0,
        };
        clean_run(
            &kernel,
            &launch,
            &[PtxArg::Buffer],
            &mut [BufferArg::ReadWrite(&mut out)],
        );
        let mut want = Vec::new();
        for (cz, cy, cx) in coordinates(grid) {
            for (tz, ty, tx) in coordinates(block) {
                want.extend([tx, ty, tz, block[0], block[1], block[2]]);
                want.extend([cx, cy, cz, grid[0], grid[1], grid[2]]);
            }
        }
        assert_eq!(words(&out), want, "grid {grid:?}, block {block:?}");
    }
}

/// (z, y, x) in the order CUDA numbers them: x fastest.
fn coordinates(dims: [u32; 3]) -> Vec<(u32, u32, u32)> {
    let mut all = Vec::new();
    for z in 0..dims[2] {
        for y in 0..dims[1] {
            for x in 0..dims[0] {
                all.push((z, y, x));
            }
        }
    }
    all
}

#[test]
fn nvccs_tiled_transpose_runs_on_a_2d_grid_of_32x8_blocks() {
    let (width, height) = (70u32, 45u32);
    let input: Vec<f32> = (0..width * height).map(|i| i as f32).collect();
    let bytes = f32_bytes(&input);
    for variant in ["nvcc13.sm80", "nvcc13.sm90", "nvrtc129.sm70"] {
        let kernel = PtxKernel::load(&corpus(&format!("transpose.{variant}.ptx")), "transpose")
            .expect("decodes");
        let mut out = vec![0u8; bytes.len()];
        let launch = PtxLaunch {
            grid: [width.div_ceil(32), height.div_ceil(32), 1],
            block: [32, 8, 1],
            dynamic_shared: 0,
        };
        let args = [
            PtxArg::Buffer,
            PtxArg::Buffer,
            PtxArg::Scalar(width.into()),
            PtxArg::Scalar(height.into()),
        ];
        let mut buffers = [BufferArg::ReadWrite(&mut out), BufferArg::ReadOnly(&bytes)];
        clean_run(&kernel, &launch, &args, &mut buffers);
        let mut want = vec![0f32; input.len()];
        for y in 0..height {
            for x in 0..width {
                want[(x * height + y) as usize] = input[(y * width + x) as usize];
            }
        }
        assert_eq!(f32s(&out), want, "{variant}");
    }
}

#[test]
fn nvccs_tiled_matmul_runs_on_16x16_blocks() {
    let (m, n, k) = (37u32, 29u32, 41u32);
    // Small integers: every product and sum is exact in any order.
    let a: Vec<f32> = (0..m * k).map(|i| (i * 7 % 11) as f32 - 5.0).collect();
    let b: Vec<f32> = (0..k * n).map(|i| (i * 5 % 13) as f32 - 6.0).collect();
    let (a_bytes, b_bytes) = (f32_bytes(&a), f32_bytes(&b));
    let mut want = vec![0f32; (m * n) as usize];
    for r in 0..m {
        for c in 0..n {
            want[(r * n + c) as usize] = (0..k)
                .map(|i| a[(r * k + i) as usize] * b[(i * n + c) as usize])
                .sum();
        }
    }
    for variant in ["nvcc13.sm80", "nvcc13.sm90", "nvrtc129.sm70"] {
        let name = format!("matmul_tiled.{variant}.ptx");
        let kernel = PtxKernel::load(&corpus(&name), "matmul_tiled").expect("decodes");
        let mut out = vec![0u8; (m * n * 4) as usize];
        let launch = PtxLaunch {
            grid: [n.div_ceil(16), m.div_ceil(16), 1],
            block: [16, 16, 1],
            dynamic_shared: 0,
        };
        let args = [
            PtxArg::Buffer,
            PtxArg::Buffer,
            PtxArg::Buffer,
            PtxArg::Scalar(m.into()),
            PtxArg::Scalar(n.into()),
            PtxArg::Scalar(k.into()),
        ];
        let mut buffers = [
            BufferArg::ReadOnly(&a_bytes),
            BufferArg::ReadOnly(&b_bytes),
            BufferArg::ReadWrite(&mut out),
        ];
        clean_run(&kernel, &launch, &args, &mut buffers);
        assert_eq!(f32s(&out), want, "{variant}");
    }
}

#[test]
fn grids_and_blocks_past_cudas_limits_are_refused_naming_the_limit() {
    let kernel = PtxKernel::load(COORDS, "coords").expect("decodes");
    for (grid, block, says) in [
        (
            [0, 1, 1],
            [32, 1, 1],
            "at least one block in each dimension",
        ),
        ([1, 65_536, 1], [32, 1, 1], "y and z <= 65535"),
        ([1 << 31, 1, 1], [32, 1, 1], "x < 2^31"),
        ([65_535, 65_535, 65_535], [32, 1, 1], "2^32 blocks or more"),
        ([1, 1, 1], [1, 1, 65], "at most 64 in z"),
        ([1, 1, 1], [64, 32, 1], "1 to 1024 threads"),
    ] {
        let launch = PtxLaunch {
            grid,
            block,
            dynamic_shared: 0,
        };
        let mut out = vec![0u8; 64];
        let err = ptx::run(
            &kernel,
            &launch,
            &[PtxArg::Buffer],
            &mut [BufferArg::ReadWrite(&mut out)],
            &SimOptions::default(),
        )
        .expect_err("refused");
        let SimError::Arguments(message) = &err;
        assert!(message.contains(says), "{grid:?} {block:?}: {message}");
    }
}
