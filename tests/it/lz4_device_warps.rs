//! The level-0 and default-level device functions called from blocks of several warps and in loops:
//! each warp's shared arrays kept apart, a page read in the caller's shared array in place, and the
//! next page written right after a call returns, on the IR simulator and the PTX simulator (findings
//! none, records the CPU's).

use crate::backends_support::args;
use crate::lz4_device::{check_records, flat, pages, xored, Page};

use warpforge::ir::{kernel, verify, Kernel};
use warpforge::kernels::lz4::device::{compress_page, compress_page_default};
use warpforge::kernels::lz4::{Lz4Level, PAGE_SIZE};
use warpforge::ptx::Sm;
use warpforge::runtime::sim::SimOptions;
use warpforge::runtime::Launcher;

/// `kernel` (`pages`, `output`, `meta`, the page count; two pages per block) on the IR simulator and
/// on the PTX simulator for `sm`, neither finding anything, its records the CPU's at level 0.
fn level0_on_the_simulators(kernel: &Kernel, pages: &[Page], sm: Sm) {
    let n = pages.len();
    let buffers = vec![flat(pages), vec![0; n * PAGE_SIZE], vec![0; n * 16]];
    let verified = verify(kernel).expect("verifies");
    for launcher in [
        Launcher::Sim(SimOptions::default()),
        Launcher::PtxSim(SimOptions::default(), sm),
    ] {
        let loaded = launcher.load(&verified).expect("loads");
        let mut out = buffers.clone();
        let launched = launcher
            .launch(&loaded, n as u32 / 2, &mut args(&mut out, 1), &[n as u64])
            .expect("launches");
        let findings: Vec<_> = launched.sim.iter().flat_map(|r| &r.findings).collect();
        assert!(findings.is_empty(), "{findings:?}");
        let name = launcher.device_name();
        check_records(&name, &out[1], &out[2], pages, Lz4Level::THROUGHPUT);
    }
}

/// Two warps per block, each compressing its own page straight from the input buffer: the device
/// function's shared arrays are sized for every warp of the caller's block.
#[kernel(block_size = 64)]
fn two_warps_compress(pages: &[u32], output: &mut [u8], meta: &mut [u32], n: u32) {
    let g = block_index() * 2 + thread_index() / 32;
    if g < n {
        compress_page(pages, g * 1024, output, g as u64 * 4096, meta, g * 4);
    }
}

#[test]
fn compress_page_with_two_warps_per_block_matches_the_cpu() {
    let pages = pages(8);
    let kernel = two_warps_compress();
    level0_on_the_simulators(&kernel, &pages, Sm::Sm90);
    // Two hash tables of 1,760 words (level 0 reads the page where it is): 14,080 bytes.
    let shared: u32 = kernel.shared.iter().map(|(_, s)| s.len * 4).sum();
    assert_eq!(shared, 2 * 7040);
}

/// Two warps per block, each transforming two pages in turn into its half of one shared array
/// (`first_word` 0 and 1024) and compressing them at the default level from there: the page's base in
/// the caller's array is the caller's, and the next page is written right after the call returns.
#[kernel(block_size = 64)]
fn two_warps_default_from_shared(
    pages: &[u32],
    output: &mut [u8],
    meta: &mut [u32],
    scratch: &mut [u16],
    n: u32,
) {
    let page = shared::<u32>(2048, 16);
    let w = thread_index() / 32;
    let base = w * 1024;
    for j in 0..2 {
        let g = (block_index() * 2 + w) * 2 + j;
        if g < n {
            for i in (lane_id()..1024).step_by(32) {
                page[base + i] = pages[g * 1024 + i] ^ 0x5A5A_5A5A;
            }
            warp_sync(FULL_MASK);
            let at = g as u64 * 4096;
            compress_page_default(page, base, output, at, meta, g * 4, scratch, at);
        }
    }
}

#[test]
fn compress_page_default_from_a_shared_array_of_two_warps_matches_the_cpu() {
    let pages = pages(8);
    let n = pages.len();
    let want = xored(&pages);
    let buffers = vec![
        flat(&pages),
        vec![0; n * PAGE_SIZE],
        vec![0; n * 16],
        vec![0; n * PAGE_SIZE * 2],
    ];
    let kernel = two_warps_default_from_shared();
    let verified = verify(&kernel).expect("verifies");
    for launcher in [
        Launcher::Sim(SimOptions::default()),
        Launcher::PtxSim(SimOptions::default(), Sm::Sm90),
    ] {
        let loaded = launcher.load(&verified).expect("loads");
        let mut out = buffers.clone();
        let launched = launcher
            .launch(&loaded, n as u32 / 4, &mut args(&mut out, 1), &[n as u64])
            .expect("launches");
        let findings: Vec<_> = launched.sim.iter().flat_map(|r| &r.findings).collect();
        let name = launcher.device_name();
        assert!(findings.is_empty(), "{name}: {findings:?}");
        check_records(&name, &out[1], &out[2], &want, Lz4Level::DEFAULT);
    }
}

/// One warp compressing two pages in a loop: one call site, its shared arrays reused, the next page's
/// loads ordered after the previous page's last reads.
#[kernel(block_size = 32)]
fn two_pages_per_warp(pages: &[u32], output: &mut [u8], meta: &mut [u32], n: u32) {
    for j in 0..2 {
        let g = block_index() * 2 + j;
        if g < n {
            compress_page(pages, g * 1024, output, g as u64 * 4096, meta, g * 4);
        }
    }
}

#[test]
fn compress_page_in_a_loop_matches_the_cpu() {
    let pages = pages(6);
    level0_on_the_simulators(&two_pages_per_warp(), &pages, Sm::Sm80);
}
