//! The code snippets of the reference LZ4 kernel documentation (shared/reference/lz4-kernel.md),
//! verbatim except for their `use` lines (`trueno_gpu::` → `warpforge::`). Their numbers in comments
//! are that system's; ours are asserted where the snippet's own assertions are.

// The documentation writes `PAGE_SIZE as usize`; our PAGE_SIZE is already a usize (the batch API needs
// `[u8; PAGE_SIZE]`), so the cast is a no-op that must still compile.
#![allow(clippy::unnecessary_cast)]

#[test]
fn cpu_reference_snippet() -> Result<(), Box<dyn std::error::Error>> {
    use warpforge::kernels::lz4::{lz4_compress_block, lz4_decompress_block, lz4_hash, PAGE_SIZE};

    // Compress a 4KB page
    let input = vec![0u8; PAGE_SIZE as usize];
    let mut compressed = vec![0u8; PAGE_SIZE as usize];
    let size = lz4_compress_block(&input, &mut compressed)?;

    // Decompress back
    let mut decompressed = vec![0u8; PAGE_SIZE as usize];
    let decomp_size = lz4_decompress_block(&compressed[..size], &mut decompressed)?;
    assert_eq!(decompressed, input);

    assert_eq!(decomp_size, PAGE_SIZE);
    let _hash_of_zero = lz4_hash(0);
    Ok(())
}

#[test]
fn gpu_kernel_generation_snippet() {
    use warpforge::kernels::{Kernel, Lz4WarpCompressKernel};

    // Create kernel for batch of 1000 pages
    let kernel = Lz4WarpCompressKernel::new(1000);

    // Get launch configuration
    let (grid_x, grid_y, grid_z) = kernel.grid_dim(); // (250, 1, 1)
    let (block_x, block_y, block_z) = kernel.block_dim(); // (128, 1, 1)
    let shared_mem = kernel.shared_memory_bytes(); // 49152 bytes

    // Generate NVIDIA PTX
    let ptx = kernel.emit_ptx();

    // Generate WebGPU WGSL (cross-platform)
    let wgsl = kernel.emit_wgsl();

    // Analyze barrier safety (PARITY-114 prevention)
    let safety = kernel.analyze_barrier_safety();
    assert!(safety.is_safe);

    assert_eq!((grid_x, grid_y, grid_z), (250, 1, 1));
    assert_eq!((block_x, block_y, block_z), (128, 1, 1));
    assert_eq!(
        shared_mem,
        4 * 20 * 1024,
        "ours: page + table + chain, 20 KiB per warp"
    );
    assert!(ptx.contains(".entry lz4_compress_pages("));
    assert!(wgsl.contains("fn lz4_compress_pages("));
}

#[test]
fn constants_snippet() {
    use warpforge::kernels::lz4::{
        LZ4_HASH_BITS,  // 12 - Hash table index bits
        LZ4_HASH_MULT,  // 2654435761 - Knuth multiplicative hash constant
        LZ4_HASH_SIZE,  // 4096 - Hash table entries
        LZ4_MAX_MATCH,  // 4090 - the longest match a 4 KiB page can hold
        LZ4_MAX_OFFSET, // 65535 - Maximum match offset
        LZ4_MIN_MATCH,  // 4 - Minimum match length
        PAGE_SIZE,      // 4096 - Standard page size
    };

    // The values this kernel really uses (see their docs).
    assert_eq!(
        (
            LZ4_MIN_MATCH,
            LZ4_MAX_MATCH,
            LZ4_HASH_BITS,
            LZ4_HASH_SIZE,
            LZ4_MAX_OFFSET,
            PAGE_SIZE
        ),
        (4, 4090, 12, 4096, 65535, 4096)
    );
    assert_eq!(LZ4_HASH_MULT, 2_654_435_761);
}

#[test]
fn use_case_snippets() {
    use warpforge::kernels::{Kernel, Lz4WarpCompressKernel};

    // Process 72GB of memory pages (18M pages)
    let kernel = Lz4WarpCompressKernel::new(18_000_000);
    let ptx = kernel.emit_ptx();
    // Launch on GPU for 100+ GB/s throughput
    assert!(!ptx.is_empty());

    // Batch compress 1000 database pages
    let kernel = Lz4WarpCompressKernel::new(1000);
    let (grid, _, _) = kernel.grid_dim();
    // 250 blocks × 4 pages/block = 1000 pages
    assert_eq!(grid, 250);

    // Small batches for low latency
    let kernel = Lz4WarpCompressKernel::new(64);
    // Grid: (16, 1, 1) - fits in single SM
    assert_eq!(kernel.grid_dim(), (16, 1, 1));
}
