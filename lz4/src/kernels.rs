//! The repository's production kernels behind one [`Kernel`] trait: their launch shape, their PTX and
//! WGSL, and their barrier safety. The catalog (`warpforge::catalog`, in the façade) lists these and the sample kernels
//! through the same trait. CPU references live in [`lz4`].
//!
//! ```
//! use warpforge_lz4::kernels::{Kernel, Lz4WarpCompressKernel};
//!
//! let kernel = Lz4WarpCompressKernel::new(1000);
//! assert_eq!(kernel.grid_dim(), (250, 1, 1)); // 4 pages (warps) per block
//! assert_eq!(kernel.block_dim(), (128, 1, 1));
//! assert!(kernel.emit_ptx().contains(".entry lz4_compress_pages("));
//! assert!(kernel.analyze_barrier_safety().is_safe);
//! ```
//!
//! **The launch shape, decided here once.** The page kernels run one warp per page. On CUDA a block
//! holds [`WARPS_PER_BLOCK`] pages; on WebGPU (and on the simulator, which stands in for it byte for
//! byte and counts per page) a workgroup holds one, because `warpforge-wgsl` emulates a 32-lane warp on
//! subgroups of any size and a diverged warp needs its workgroup to itself.
//! [`warps_per_block`] and [`blocks_for`] say so for every caller.

pub use warpforge_analysis::BarrierSafety;
pub mod lz4;
use warpforge_ir::samples::Sample;
use warpforge_ir::{verify, Kernel as IrKernel};
use warpforge_ptx::Sm;
use warpforge_runtime::Backend;

/// Pages (warps) per block of the page kernels on CUDA.
pub const WARPS_PER_BLOCK: u32 = 4;

/// Pages (warps) per block of the page kernels on `backend`: [`WARPS_PER_BLOCK`] on CUDA and on
/// `ptx-sim` (which runs the PTX CUDA would), 1 on WebGPU and on the simulator.
pub fn warps_per_block(backend: Backend) -> u32 {
    match backend {
        Backend::Cuda | Backend::PtxSim => WARPS_PER_BLOCK,
        Backend::WebGpu | Backend::Sim => 1,
    }
}

/// Blocks to launch for `pages` pages on `backend` (at least 1).
pub fn blocks_for(pages: usize, backend: Backend) -> u32 {
    let blocks = pages.div_ceil(warps_per_block(backend) as usize).max(1);
    u32::try_from(blocks).unwrap_or(u32::MAX)
}

/// A kernel of the repository: its IR in the shape each backend launches, and its launch shape for a
/// batch of work.
pub trait Kernel: Sync {
    /// The entry point's name.
    fn name(&self) -> &'static str;
    /// The IR as launched on `backend`.
    fn ir_for(&self, backend: Backend) -> IrKernel;
    /// The IR as launched on CUDA.
    fn ir(&self) -> IrKernel {
        self.ir_for(Backend::Cuda)
    }
    /// The IR as launched on WebGPU (one warp per workgroup where warps diverge, see `warpforge-wgsl`).
    fn webgpu_ir(&self) -> IrKernel {
        self.ir_for(Backend::WebGpu)
    }
    /// Blocks in the grid (CUDA) for the work the kernel was made for (one block when it does not say).
    fn grid_dim(&self) -> (u32, u32, u32) {
        (1, 1, 1)
    }
    /// Threads per block (CUDA).
    fn block_dim(&self) -> (u32, u32, u32) {
        (self.ir().block_size, 1, 1)
    }
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
    (blocks_for(pages, Backend::Cuda), 1, 1)
}

/// The sample kernels are catalog kernels too; their shape is the same on every backend.
impl Kernel for Sample {
    fn name(&self) -> &'static str {
        self.name
    }
    fn ir_for(&self, _: Backend) -> IrKernel {
        (self.build)()
    }
}

/// LZ4 compression of `pages` 4 KiB pages, one warp per page (see [`lz4::lz4_compress_kernel_level`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lz4WarpCompressKernel {
    pages: usize,
    level: lz4::Lz4Level,
    /// The variant that reads its page from `input` ([`lz4::lz4_compress_kernel_from_input`]).
    from_input: bool,
}

impl Lz4WarpCompressKernel {
    /// The kernel for a batch of `pages` pages, at the default level.
    pub const fn new(pages: usize) -> Self {
        Lz4WarpCompressKernel::at_level(pages, lz4::Lz4Level::DEFAULT)
    }

    /// The kernel for a batch of `pages` pages at `level`.
    pub const fn at_level(pages: usize, level: lz4::Lz4Level) -> Self {
        Lz4WarpCompressKernel {
            pages,
            level,
            from_input: false,
        }
    }

    /// The same kernel reading its page where it is instead of from a copy in shared memory
    /// ([`lz4::lz4_compress_kernel_from_input`]: same parameters and bytes, less shared memory).
    pub const fn from_input(self) -> Self {
        Lz4WarpCompressKernel {
            from_input: true,
            ..self
        }
    }

    /// Pages in the batch.
    pub fn pages(&self) -> usize {
        self.pages
    }

    /// The compression level.
    pub fn level(&self) -> lz4::Lz4Level {
        self.level
    }
}

impl Kernel for Lz4WarpCompressKernel {
    fn name(&self) -> &'static str {
        match self.from_input {
            false => lz4::COMPRESS_ENTRY,
            true => lz4::COMPRESS_FROM_INPUT_ENTRY,
        }
    }
    fn ir_for(&self, backend: Backend) -> IrKernel {
        match self.from_input {
            false => lz4::lz4_compress_kernel_level(warps_per_block(backend), self.level),
            true => lz4::lz4_compress_kernel_from_input(warps_per_block(backend), self.level),
        }
    }
    fn grid_dim(&self) -> (u32, u32, u32) {
        grid_for(self.pages)
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
    pub const fn new(pages: usize) -> Self {
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
    fn ir_for(&self, backend: Backend) -> IrKernel {
        lz4::lz4_decompress_kernel(warps_per_block(backend))
    }
    fn grid_dim(&self) -> (u32, u32, u32) {
        grid_for(self.pages)
    }
}

/// Compaction of `pages` compressed pages from their 4 KiB slots to host-given offsets, one warp per
/// page (see [`lz4::lz4_compact_kernel`]; the CUDA batch API's meta-first download).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lz4CompactKernel {
    pages: usize,
}

impl Lz4CompactKernel {
    /// The kernel for a batch of `pages` pages.
    pub const fn new(pages: usize) -> Self {
        Lz4CompactKernel { pages }
    }
}

impl Kernel for Lz4CompactKernel {
    fn name(&self) -> &'static str {
        "lz4_compact_pages"
    }
    fn ir_for(&self, backend: Backend) -> IrKernel {
        lz4::lz4_compact_kernel(warps_per_block(backend))
    }
    fn grid_dim(&self) -> (u32, u32, u32) {
        grid_for(self.pages)
    }
}
