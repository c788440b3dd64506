//! The code snippets of the reference LZ4 kernel documentation (shared/reference/lz4-kernel.md),
//! verbatim except for their `use` lines (`trueno_gpu::` → `warpforge::`). Their numbers in comments
//! are that system's; ours are asserted where the snippet's own assertions are.

// The documentation writes `PAGE_SIZE as usize`; our PAGE_SIZE is already a usize (the batch API needs
// `[u8; PAGE_SIZE]`), so the cast is a no-op that must still compile.
#![allow(clippy::unnecessary_cast)]

#[test]
fn cpu_reference_snippet() -> Result<(), Box<dyn std::error::Error>> {
    use warpforge::kernels::lz4::{lz4_compress_block, lz4_decompress_block, lz4_hash, PAGE_SIZE};
    // Not in the docs: what the assertions below use.
    use warpforge::kernels::lz4::{
        lz4_compress_bound,
        pages::{page, PageKind},
    };

    // Compress a 4KB page
    let input = vec![0u8; PAGE_SIZE as usize];
    let mut compressed = vec![0u8; PAGE_SIZE as usize];
    let size = lz4_compress_block(&input, &mut compressed)?;

    // Decompress back
    let mut decompressed = vec![0u8; PAGE_SIZE as usize];
    let decomp_size = lz4_decompress_block(&compressed[..size], &mut decompressed)?;
    assert_eq!(decompressed, input);

    assert_eq!(decomp_size, PAGE_SIZE);
    // Not in the docs: an all-zero input leaves a no-op decoder's zeroed buffer equal to it, so the
    // block is also decoded by an independent decoder (lz4_flex), and a real page round-trips.
    assert_eq!(
        lz4_flex::block::decompress(&compressed[..size], PAGE_SIZE)?,
        input
    );
    assert!(
        size < 64,
        "a zero page compresses to a few bytes, not {size}"
    );
    let text = page(PageKind::Text, 1);
    let mut compressed = vec![0u8; lz4_compress_bound(PAGE_SIZE)];
    let size = lz4_compress_block(&text, &mut compressed)?;
    assert!(lz4_flex::block::decompress(&compressed[..size], PAGE_SIZE)? == text);
    let mut decompressed = vec![0u8; PAGE_SIZE];
    assert_eq!(
        lz4_decompress_block(&compressed[..size], &mut decompressed)?,
        PAGE_SIZE
    );
    assert!(decompressed == text, "the text page does not round-trip");

    // The hash: the little-endian word times m = 2654435761 = 0x9E3779B1 modulo 2^32, then its top 12
    // bits. The expected values are worked out by hand, not by the function under test.
    // 0 · m = 0.
    assert_eq!(lz4_hash(0), 0);
    // 1 · m = 0x9E3779B1, whose top 12 bits are 0x9E3 = 2531.
    assert_eq!(lz4_hash(1), 0x9E3);
    // (2^32 − 1) · m ≡ −m = 2^32 − 2654435761 = 1640531535 = 0x61C8864F → 0x61C = 1564.
    assert_eq!(lz4_hash(u32::MAX), 0x61C);
    // "abcd" read little-endian is 0x64636261; times m, 4470693213108035089 ≡ 0x630DDE11 → 0x630.
    assert_eq!(lz4_hash(u32::from_le_bytes(*b"abcd")), 0x630);
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
        4 * 12 * 1024,
        "ours: the page and its sorted chains, 12 KiB per warp (the chain slots are in `scratch`)"
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
    use warpforge::kernels::lz4::pages::{page, PageKind};
    use warpforge::kernels::lz4::{lz4_compress_block, lz4_compress_bound, PAGE_SIZE};
    use warpforge::kernels::{Kernel, Lz4WarpCompressKernel};

    // Process 72GB of memory pages (18M pages)
    let kernel = Lz4WarpCompressKernel::new(18_000_000);
    let ptx = kernel.emit_ptx();
    // Launch on GPU for 100+ GB/s throughput
    // Not in the docs: 18M pages take 4.5M blocks of 4 warps, one page each, and the page count is a
    // launch parameter (a u32, which 18M fits), not a constant of the PTX.
    assert_eq!(kernel.pages(), 18_000_000);
    assert_eq!(kernel.grid_dim(), (4_500_000, 1, 1));
    assert_eq!(pages_launched(&kernel), 18_000_000);
    assert!(
        ptx.contains(".param .u32 p_pages"),
        "the page count is not a u32 parameter"
    );
    assert!(!ptx.contains("18000000"));

    // Batch compress 1000 database pages
    let kernel = Lz4WarpCompressKernel::new(1000);
    let (grid, _, _) = kernel.grid_dim();
    // 250 blocks × 4 pages/block = 1000 pages
    assert_eq!(grid, 250);
    assert_eq!(pages_launched(&kernel), 1000);
    // Not in the docs: one database-like page per launched warp, compressed page by page as the warps
    // do, gives exactly 1000 blocks, each of which an independent decoder (lz4_flex) turns back into
    // its page.
    let pages: Vec<[u8; PAGE_SIZE]> = (0..pages_launched(&kernel) as u64)
        .map(|i| page(PageKind::ALL[i as usize % PageKind::ALL.len()], i))
        .collect();
    let blocks: Vec<Vec<u8>> = pages
        .iter()
        .map(|p| {
            let mut block = vec![0u8; lz4_compress_bound(PAGE_SIZE)];
            let n = lz4_compress_block(p, &mut block).expect("compresses");
            block.truncate(n);
            block
        })
        .collect();
    assert_eq!(blocks.len(), 1000);
    for (i, (p, block)) in pages.iter().zip(&blocks).enumerate() {
        let back = lz4_flex::block::decompress(block, PAGE_SIZE).expect("decodes");
        assert!(back == p, "database page {i} does not decode back");
    }

    // Small batches for low latency
    let kernel = Lz4WarpCompressKernel::new(64);
    // Grid: (16, 1, 1) - fits in single SM
    assert_eq!(kernel.grid_dim(), (16, 1, 1));
    assert_eq!(pages_launched(&kernel), 64);
    // A batch that is not a multiple of 4 gets a last, partly idle block.
    assert_eq!(Lz4WarpCompressKernel::new(1001).grid_dim(), (251, 1, 1));
}

/// Pages a launch of `kernel` covers: its blocks times their warps (one page per warp), checked to be
/// the batch plus fewer than one block of idle warps.
fn pages_launched(kernel: &warpforge::kernels::Lz4WarpCompressKernel) -> usize {
    use warpforge::kernels::Kernel;
    let (grid, gy, gz) = kernel.grid_dim();
    let (threads, by, bz) = kernel.block_dim();
    assert_eq!((gy, gz, by, bz), (1, 1, 1, 1));
    let warps = grid as usize * (threads / 32) as usize;
    assert!(warps >= kernel.pages() && warps - kernel.pages() < (threads / 32) as usize);
    warps
}
