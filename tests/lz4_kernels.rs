//! The LZ4 kernels on WebGPU (Mesa lavapipe in CI) against the CPU reference, byte for byte.

use std::io::Write;

use warpforge::ir::kernels::lz4::pages::{page, PageKind};
use warpforge::ir::kernels::lz4::{encode_page, lz4_compress_kernel, PageEncoding, PAGE_SIZE};
use warpforge::ir::verify;
use warpforge::runtime::webgpu::{list_adapters, require_webgpu, BufferArg, WebGpuDevice};

fn adapter_or_skip(test: &str) -> bool {
    if !list_adapters().is_empty() {
        return true;
    }
    assert!(
        !require_webgpu(),
        "{test}: WARPFORGE_REQUIRE_WEBGPU=1 but no WebGPU adapter was found"
    );
    let _ = writeln!(
        std::io::stderr(),
        "\n*** SKIPPED {test}: no WebGPU adapter (install mesa-vulkan-drivers) ***\n"
    );
    false
}

/// Runs the compress kernel (one warp per workgroup) over `pages` and returns each page's encoding.
fn compress_on_webgpu(pages: &[[u8; PAGE_SIZE]]) -> Vec<PageEncoding> {
    let kernel = lz4_compress_kernel(1);
    let wgsl = warpforge::wgsl::emit(&verify(&kernel).expect("verifies"))
        .unwrap_or_else(|e| panic!("{e}"));
    let device = WebGpuDevice::new(&wgsl.requirements).expect("an adapter for the LZ4 kernel");
    let input: Vec<u8> = pages.iter().flatten().copied().collect();
    let mut output = vec![0u8; pages.len() * PAGE_SIZE];
    let mut meta = vec![0u8; pages.len() * 16];
    let mut buffers = [
        BufferArg::ReadOnly(&input),
        BufferArg::ReadWrite(&mut output),
        BufferArg::ReadWrite(&mut meta),
    ];
    device
        .run(
            &wgsl,
            pages.len() as u32,
            &mut buffers,
            &[pages.len() as u64],
        )
        .expect("the kernel runs");
    (0..pages.len())
        .map(|i| {
            let word = |k: usize| {
                u32::from_le_bytes(
                    meta[i * 16 + 4 * k..i * 16 + 4 * k + 4]
                        .try_into()
                        .expect("4 bytes"),
                )
            };
            match word(0) {
                0 => PageEncoding::Lz4(
                    output[i * PAGE_SIZE..i * PAGE_SIZE + word(1) as usize].to_vec(),
                ),
                1 => PageEncoding::Raw,
                2 => PageEncoding::SameFilled(u64::from(word(2)) | u64::from(word(3)) << 32),
                other => panic!("page {i}: unknown kind {other}"),
            }
        })
        .collect()
}

#[test]
fn compress_kernel_matches_the_reference_on_every_page_kind() {
    if !adapter_or_skip("compress_kernel_matches_the_reference_on_every_page_kind") {
        return;
    }
    let pages: Vec<[u8; PAGE_SIZE]> = PageKind::ALL
        .iter()
        .flat_map(|&kind| (0..3).map(move |seed| page(kind, seed)))
        .collect();
    let got = compress_on_webgpu(&pages);
    for (i, (page, got)) in pages.iter().zip(&got).enumerate() {
        let want = encode_page(page);
        assert_eq!(
            got.kind(),
            want.kind(),
            "page {i} ({:?})",
            PageKind::ALL[i / 3]
        );
        assert_eq!(got, &want, "page {i} ({:?})", PageKind::ALL[i / 3]);
    }
}
