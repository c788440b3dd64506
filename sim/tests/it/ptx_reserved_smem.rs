//! The shared memory the driver reserves for NVIDIA's libraries (`%reserved_smem_offset_*`):
//! cooperative groups' multi-warp tiles with `block_tile_memory` keep their barriers and scratch
//! there (nvcc 13, sm_80), and the sums come out right with a clean sanitizer; the registers name
//! a region after the kernel's own shared memory.

use warpforge_sim::ptx::{run, PtxArg, PtxKernel, PtxLaunch};
use warpforge_sim::{BufferArg, SimOptions};

const TILES: &str = include_str!("../fixtures/cg/tile_memory.sm80.ptx");

#[test]
fn multi_warp_tiles_sum_through_the_reserved_shared_memory() {
    let kernel = PtxKernel::load(TILES, "tile_sums").expect("decodes");
    let input: Vec<i32> = (0..512).map(|i| i * 3 - 700).collect();
    let bytes: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    for sanitize in [true, false] {
        let mut out = vec![0u8; 32];
        let mut buffers = [BufferArg::ReadOnly(&bytes), BufferArg::ReadWrite(&mut out)];
        let shape = PtxLaunch {
            grid: [2, 1, 1],
            block: [256, 1, 1],
            dynamic_shared: 0,
        };
        let options = SimOptions {
            sanitize,
            ..SimOptions::default()
        };
        let report = run(
            &kernel,
            &shape,
            &[PtxArg::Buffer, PtxArg::Buffer],
            &mut buffers,
            &options,
        )
        .expect("launches");
        assert!(report.findings.is_empty(), "{:?}", report.findings);
        let got: Vec<i32> = out
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        let want: Vec<i32> = input.chunks(64).map(|c| c.iter().sum()).collect();
        assert_eq!(got, want, "sanitizer {sanitize}");
    }
}

#[test]
fn the_reserved_registers_name_a_region_after_the_kernels_shared_memory() {
    let text = ".version 8.0\n.target sm_80\n.address_size 64\n\n\
        .visible .entry k(.param .u64 out)\n.reqntid 32, 1, 1\n{\n\
        .reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n.shared .align 4 .b8 mine[100];\n\
        mov.u32 %r1, %reserved_smem_offset_begin;\nmov.u32 %r2, %reserved_smem_offset_end;\n\
        mov.u32 %r3, %reserved_smem_offset_cap;\nmov.u32 %r4, %reserved_smem_offset_0;\n\
        mov.u32 %r5, %reserved_smem_offset_1;\nmov.u32 %r6, %total_smem_size;\n\
        ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\n\
        st.global.v4.u32 [%rd2], {%r1, %r2, %r3, %r4};\nst.global.v2.u32 [%rd2+16], {%r5, %r6};\n\
        st.shared.u32 [%r5], %r6;\nret;\n}\n";
    let kernel = PtxKernel::load(text, "k").expect("decodes");
    let mut out = vec![0u8; 24];
    let mut buffers = [BufferArg::ReadWrite(&mut out)];
    let shape = PtxLaunch {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        dynamic_shared: 0,
    };
    let report = run(
        &kernel,
        &shape,
        &[PtxArg::Buffer],
        &mut buffers,
        &SimOptions::default(),
    )
    .expect("launches");
    assert!(report.errors().next().is_none(), "{:?}", report.findings);
    let words: Vec<u32> = out
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    // The kernel's 100 bytes, then 1 KiB from the next 16-byte boundary.
    assert_eq!(words, [112, 1136, 1024, 112, 624, 100]);
}
