//! The default level's compress kernel reading its page from the input buffer
//! (`lz4_compress_kernel_from_input`) beside the kernel that copies it into shared memory: the same
//! bytes with 8 KiB of shared memory per warp instead of 12 KiB (24 warps per sm_90 SM instead of
//! 16, ptxas's resources), every page read a global load instead of a shared one. Timed like the
//! level rows, then each set's output compared with the shared-copy kernel's, byte for byte.

use anyhow::{bail, Result};
use warpforge::kernels::lz4::Lz4Level;
use warpforge::kernels::Lz4WarpCompressKernel;
use warpforge::runtime::cuda::CudaKernel;
use warpforge::runtime::cudarc::driver::CudaSlice;
use warpforge::PAGE_SIZE;

use crate::gpu::{Gpu, Sets};
use crate::ours::{launch, load, meta_of, timed, words, Runs};
use crate::report::{Figure, Scope};

/// What the shared-copy kernel wrote for one set: its slots and meta words.
pub struct Written {
    pub slots: Vec<u8>,
    pub meta: Vec<u32>,
}

/// Times the from-input kernel on every set (into one pair of output buffers of its own), then runs
/// it once more per set and compares meta words and blocks with `want` (the shared-copy kernel's
/// output of the same set). `ratio`: the shared-copy row's, which the equal bytes share.
pub fn run(
    gpu: &Gpu,
    sets: &Sets,
    runs: Runs,
    scratch: &CudaSlice<u8>,
    want: &[Written],
    ratio: Option<f64>,
) -> Result<Figure> {
    let n = sets.pages_per_set;
    let kernel: CudaKernel = load(
        gpu,
        &Lz4WarpCompressKernel::at_level(n, Lz4Level::DEFAULT).from_input(),
    )?;
    let slots: CudaSlice<u8> = gpu.zeros(n * PAGE_SIZE)?;
    let meta: CudaSlice<u8> = gpu.zeros(n * 16)?;
    let out = |s: usize| launch(gpu, &kernel, n, &[&sets.inputs[s], &slots, &meta, scratch]);
    let seconds = timed(gpu, sets.len(), runs, out)?;
    let mut verified = 0u64;
    for (s, want) in want.iter().enumerate() {
        out(s)?;
        gpu.sync()?;
        let got_slots = gpu.download(&slots, n * PAGE_SIZE)?;
        let got_meta = words(&gpu.download(&meta, n * 16)?);
        if got_meta != want.meta {
            bail!(
                "set {s}: the from-input kernel's meta words differ from the shared-copy kernel's"
            );
        }
        for i in 0..n {
            if let warpforge::kernel_io::PageMeta::Lz4(len) = meta_of(&got_meta, i)? {
                let block = i * PAGE_SIZE..i * PAGE_SIZE + len;
                if got_slots[block.clone()] != want.slots[block] {
                    bail!("set {s}, page {i}: the from-input kernel's block differs from the shared-copy kernel's");
                }
            }
            verified += 1;
        }
    }
    Ok(Figure {
        backend: "warpforge CUDA L2 (page read from input)".into(),
        op: "compress".into(),
        scope: Scope::DeviceResident,
        clock: "CUDA events".into(),
        bytes: (n * PAGE_SIZE) as u64,
        seconds,
        ratio,
        fallback_pages: Some(0),
        verified_pages: verified,
        note:
            "lz4_compress_kernel_from_input: the default level's kernel reading each page from the \
               input buffer instead of a shared copy (8 KiB of shared memory per warp, not 12 KiB: \
               24 warps per sm_90 SM instead of 16); every set's meta words and blocks equal the \
               row above's, byte for byte"
                .into(),
    })
}
