//! The kernels the command line knows by name (`warpforge emit --kernel NAME`): the sample kernels and
//! the LZ4 page kernels, each a [`Kernel`] (which decides its shape per backend).

use crate::kernels::{Kernel, Lz4CompactKernel, Lz4WarpCompressKernel, Lz4WarpDecompressKernel};
use warpforge_ir::{samples, Kernel as IrKernel};
use warpforge_lz4::kernels::lz4::Lz4Level;
use warpforge_runtime::Backend;

/// A named kernel of the catalog.
#[derive(Clone, Copy)]
pub struct Entry {
    /// Name on the command line.
    pub name: &'static str,
    /// One line on what it computes.
    pub description: &'static str,
    /// The kernel.
    pub kernel: &'static dyn Kernel,
}

impl Entry {
    /// The IR as launched on `backend`.
    pub fn ir_for(&self, backend: Backend) -> IrKernel {
        self.kernel.ir_for(backend)
    }

    /// The IR as launched on CUDA.
    pub fn build(&self) -> IrKernel {
        self.kernel.ir()
    }

    /// The IR as launched on WebGPU (one warp per workgroup where warps diverge).
    pub fn webgpu_build(&self) -> IrKernel {
        self.kernel.webgpu_ir()
    }
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("name", &self.name)
            .field("entry_point", &self.kernel.name())
            .finish()
    }
}

static LZ4_COMPRESS: Lz4WarpCompressKernel = Lz4WarpCompressKernel::new(1);
/// The other levels, by name (`lz4-compress` is the default level 2).
static LZ4_COMPRESS_LEVELS: [(&str, &str, Lz4WarpCompressKernel); 3] = [
    (
        "lz4-compress-l0",
        "LZ4 compression at level 0 (throughput: one hash table, greedy), one warp per page",
        Lz4WarpCompressKernel::at_level(1, Lz4Level::THROUGHPUT),
    ),
    (
        "lz4-compress-l1",
        "LZ4 compression at level 1 (fast: chains of depth 8), one warp per page",
        Lz4WarpCompressKernel::at_level(1, Lz4Level::FAST),
    ),
    (
        "lz4-compress-l3",
        "LZ4 compression at level 3 (high: depth 128, two lazy steps), one warp per page",
        Lz4WarpCompressKernel::at_level(1, Lz4Level::HIGH),
    ),
];
/// The default level reading its page from `input` (no shared copy): an A/B for a GPU.
static LZ4_COMPRESS_FROM_INPUT: Lz4WarpCompressKernel = Lz4WarpCompressKernel::new(1).from_input();
static LZ4_DECOMPRESS: Lz4WarpDecompressKernel = Lz4WarpDecompressKernel::new(1);
static LZ4_COMPACT: Lz4CompactKernel = Lz4CompactKernel::new(1);

/// Every kernel in the repository, in a fixed order.
pub fn entries() -> Vec<Entry> {
    let mut entries: Vec<Entry> = samples::ALL
        .iter()
        .map(|s| Entry {
            name: s.name,
            description: s.description,
            kernel: s,
        })
        .collect();
    entries.push(Entry {
        name: "lz4-compress",
        description: "LZ4 compression of 4 KiB pages, one warp per page (4 per block on CUDA)",
        kernel: &LZ4_COMPRESS,
    });
    entries.extend(
        LZ4_COMPRESS_LEVELS
            .iter()
            .map(|(name, description, kernel)| Entry {
                name,
                description,
                kernel,
            }),
    );
    entries.push(Entry {
        name: "lz4-compress-from-input",
        description: "lz4-compress reading each page from the input buffer, not a shared copy \
                      (less shared memory: more warps per SM; same bytes)",
        kernel: &LZ4_COMPRESS_FROM_INPUT,
    });
    entries.push(Entry {
        name: "lz4-decompress",
        description: "LZ4 decompression into 4 KiB pages, one warp per page, every bound checked",
        kernel: &LZ4_DECOMPRESS,
    });
    entries.push(Entry {
        name: "lz4-compact",
        description:
            "copies each page's LZ4 block from its 4 KiB slot to a host-given offset (CUDA D2H)",
        kernel: &LZ4_COMPACT,
    });
    entries
}

/// The names of every kernel, comma separated, for error messages.
pub fn names() -> String {
    entries()
        .iter()
        .map(|e| e.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The kernel called `name`, or an error that lists the valid names.
pub fn find(name: &str) -> Result<Entry, String> {
    entries()
        .into_iter()
        .find(|e| e.name == name)
        .ok_or_else(|| format!("unknown kernel `{name}`; valid kernels: {}", names()))
}
