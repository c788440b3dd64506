//! The kernels the command line knows by name (`warpforge emit --kernel NAME`).

use crate::kernels::{lz4, WARPS_PER_BLOCK};
use warpforge_ir::{samples, Kernel};

/// A named kernel of the catalog.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// Name on the command line.
    pub name: &'static str,
    /// One line on what it computes.
    pub description: &'static str,
    /// Builds (and verifies) the kernel as launched on CUDA.
    pub build: fn() -> Kernel,
    /// Builds the kernel as launched on WebGPU (one warp per workgroup where warps diverge).
    pub webgpu_build: fn() -> Kernel,
}

/// Every kernel in the repository, in a fixed order.
pub fn entries() -> Vec<Entry> {
    let mut entries: Vec<Entry> = samples::ALL
        .iter()
        .map(|s| Entry {
            name: s.name,
            description: s.description,
            build: s.build,
            webgpu_build: s.build,
        })
        .collect();
    entries.push(Entry {
        name: "lz4-compress",
        description: "LZ4 compression of 4 KiB pages, one warp per page (4 per block on CUDA)",
        build: || lz4::lz4_compress_kernel(WARPS_PER_BLOCK),
        webgpu_build: || lz4::lz4_compress_kernel(1),
    });
    entries.push(Entry {
        name: "lz4-decompress",
        description: "LZ4 decompression into 4 KiB pages, one warp per page, every bound checked",
        build: || lz4::lz4_decompress_kernel(WARPS_PER_BLOCK),
        webgpu_build: || lz4::lz4_decompress_kernel(1),
    });
    entries.push(Entry {
        name: "lz4-compact",
        description:
            "copies each page's LZ4 block from its 4 KiB slot to a host-given offset (CUDA D2H)",
        build: || lz4::lz4_compact_kernel(WARPS_PER_BLOCK),
        webgpu_build: || lz4::lz4_compact_kernel(1),
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
