//! The repository's production kernels behind one [`Kernel`] trait: their launch shape, their PTX and
//! WGSL, and their barrier safety. CPU references live in [`lz4`].
//!
//! ```
//! use warpforge::kernels::{Kernel, Lz4WarpCompressKernel};
//!
//! let kernel = Lz4WarpCompressKernel::new(1000);
//! assert_eq!(kernel.grid_dim(), (250, 1, 1)); // 4 pages (warps) per block
//! assert_eq!(kernel.block_dim(), (128, 1, 1));
//! assert!(kernel.emit_ptx().contains(".entry lz4_compress_pages("));
//! assert!(kernel.analyze_barrier_safety().is_safe);
//! ```

pub use warpforge_analysis::BarrierSafety;
pub use warpforge_ir::kernels::lz4;
use warpforge_ir::{verify, Kernel as IrKernel};
use warpforge_ptx::Sm;

/// Pages (warps) per block of the CUDA kernels.
pub const WARPS_PER_BLOCK: u32 = 4;

/// A kernel with a fixed launch shape for a batch of work.
pub trait Kernel {
    /// The entry point's name.
    fn name(&self) -> &'static str;
    /// The IR as launched on CUDA.
    fn ir(&self) -> IrKernel;
    /// The IR as launched on WebGPU (one warp per workgroup, see `warpforge-wgsl`).
    fn webgpu_ir(&self) -> IrKernel;
    /// Blocks in the grid (CUDA).
    fn grid_dim(&self) -> (u32, u32, u32);
    /// Threads per block (CUDA).
    fn block_dim(&self) -> (u32, u32, u32);
    /// Shared memory per block in bytes (CUDA; dynamic above 48 KiB).
    fn shared_memory_bytes(&self) -> u32 {
        self.ir().shared_bytes().map_or(u32::MAX, |b| b as u32)
    }
    /// PTX for `sm_70` (which every later GPU runs through the driver's JIT).
    fn emit_ptx(&self) -> String {
        self.emit_ptx_for(Sm::Sm70)
    }
    /// PTX for a given target.
    fn emit_ptx_for(&self, sm: Sm) -> String {
        let ir = self.ir();
        let verified = verify(&ir).expect("the repository's kernels verify");
        warpforge_ptx::emit(&verified, sm)
            .expect("the repository's kernels fit every target")
            .text
    }
    /// WGSL of [`Kernel::webgpu_ir`], validated by naga.
    fn emit_wgsl(&self) -> String {
        let ir = self.webgpu_ir();
        let verified = verify(&ir).expect("the repository's kernels verify");
        warpforge_wgsl::emit(&verified)
            .expect("the repository's kernels lower to WGSL")
            .source
    }
    /// Barriers reached by whole blocks, warp collectives by whole warps (CUDA shape).
    fn analyze_barrier_safety(&self) -> BarrierSafety {
        let ir = self.ir();
        warpforge_analysis::barrier_safety(&verify(&ir).expect("the repository's kernels verify"))
    }
}

fn grid_for(pages: usize) -> (u32, u32, u32) {
    let blocks = pages.div_ceil(WARPS_PER_BLOCK as usize).max(1);
    (u32::try_from(blocks).unwrap_or(u32::MAX), 1, 1)
}

/// LZ4 compression of `pages` 4 KiB pages, one warp per page (see [`lz4::lz4_compress_kernel`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lz4WarpCompressKernel {
    pages: usize,
}

impl Lz4WarpCompressKernel {
    /// The kernel for a batch of `pages` pages.
    pub fn new(pages: usize) -> Self {
        Lz4WarpCompressKernel { pages }
    }

    /// Pages in the batch.
    pub fn pages(&self) -> usize {
        self.pages
    }
}

impl Kernel for Lz4WarpCompressKernel {
    fn name(&self) -> &'static str {
        "lz4_compress_pages"
    }
    fn ir(&self) -> IrKernel {
        lz4::lz4_compress_kernel(WARPS_PER_BLOCK)
    }
    fn webgpu_ir(&self) -> IrKernel {
        lz4::lz4_compress_kernel(1)
    }
    fn grid_dim(&self) -> (u32, u32, u32) {
        grid_for(self.pages)
    }
    fn block_dim(&self) -> (u32, u32, u32) {
        (32 * WARPS_PER_BLOCK, 1, 1)
    }
}

/// LZ4 decompression of `pages` blocks into pages, one warp per page (see
/// [`lz4::lz4_decompress_kernel`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lz4WarpDecompressKernel {
    pages: usize,
}

impl Lz4WarpDecompressKernel {
    /// The kernel for a batch of `pages` pages.
    pub fn new(pages: usize) -> Self {
        Lz4WarpDecompressKernel { pages }
    }

    /// Pages in the batch.
    pub fn pages(&self) -> usize {
        self.pages
    }
}

impl Kernel for Lz4WarpDecompressKernel {
    fn name(&self) -> &'static str {
        "lz4_decompress_pages"
    }
    fn ir(&self) -> IrKernel {
        lz4::lz4_decompress_kernel(WARPS_PER_BLOCK)
    }
    fn webgpu_ir(&self) -> IrKernel {
        lz4::lz4_decompress_kernel(1)
    }
    fn grid_dim(&self) -> (u32, u32, u32) {
        grid_for(self.pages)
    }
    fn block_dim(&self) -> (u32, u32, u32) {
        (32 * WARPS_PER_BLOCK, 1, 1)
    }
}
