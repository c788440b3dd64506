//! The LZ4 device functions (`warpforge::kernels::lz4::device`) inside other kernels: the fused
//! XOR-delta codec (`kernels::lz4::fused`) and the default level with its scratch (blocks of several
//! warps and calls in loops: `lz4_device_warps`), on the IR simulator, the PTX simulator (every
//! target) and WebGPU, against the CPU: the blocks byte for byte with `encode_page_level` of the same
//! pages, decoded by the CPU decoder and XORed back to the input, and the decoder's pages equal to the
//! input.

use crate::backends_support::{args, assembles_everywhere, mix};
use crate::common;

use warpforge::ir::{kernel, verify, Kernel};
use warpforge::kernels::lz4::device::{compress_page_default, decompress_page};
use warpforge::kernels::lz4::fused::{xor_delta_compress, xor_delta_decompress};
use warpforge::kernels::lz4::pages::{page, PageKind};
use warpforge::kernels::lz4::{
    decode_status, encode_page_level, lz4_compress_block, lz4_decompress_block, Lz4Level,
    PageEncoding, BLOCKS_ALIGN, PAGE_SIZE,
};
use warpforge::ptx::Sm;
use warpforge::runtime::sim::{self, SimOptions};
use warpforge::runtime::webgpu::WebGpuDevice;
use warpforge::runtime::Launcher;

pub(crate) type Page = [u8; PAGE_SIZE];

/// Real pages (the embedded sample) and every synthetic kind.
pub(crate) fn pages(n: usize) -> Vec<Page> {
    let sample = warpforge::sample_pages().expect("the embedded sample reads");
    let mut out: Vec<Page> = sample.iter().step_by(37).take(n / 2).copied().collect();
    let mut seed = 0;
    while out.len() < n {
        out.push(page(PageKind::ALL[seed % PageKind::ALL.len()], seed as u64));
        seed += 1;
    }
    out
}

/// The previous version of each page: a few words changed, the same page, unrelated random bytes,
/// zeros — so the deltas are sparse, zero (same-filled), incompressible (raw) and the page itself.
fn bases(pages: &[Page]) -> Vec<Page> {
    pages
        .iter()
        .enumerate()
        .map(|(i, p)| match i % 4 {
            0 => {
                let mut b = *p;
                for k in (0..PAGE_SIZE).step_by(397) {
                    b[k] ^= (mix(i as u64 * 4096 + k as u64) as u8) | 1;
                }
                b
            }
            1 => *p,
            2 => page(PageKind::Random, 1000 + i as u64),
            _ => [0; PAGE_SIZE],
        })
        .collect()
}

fn xor(a: &Page, b: &Page) -> Page {
    std::array::from_fn(|k| a[k] ^ b[k])
}

/// Every byte of `pages` XOR 0x5A: what the transforming test kernels (each word XOR 0x5A5A5A5A)
/// write into shared memory before compressing it.
pub(crate) fn xored(pages: &[Page]) -> Vec<Page> {
    pages
        .iter()
        .map(|p| std::array::from_fn(|i| p[i] ^ 0x5A))
        .collect()
}

pub(crate) fn flat(pages: &[Page]) -> Vec<u8> {
    pages.iter().flatten().copied().collect()
}

pub(crate) fn word(bytes: &[u8], k: usize) -> u32 {
    u32::from_le_bytes(bytes[4 * k..4 * k + 4].try_into().expect("4 bytes"))
}

/// The check of a case's buffers after it ran on the backend named.
pub(crate) type Check = Box<dyn Fn(&str, &[Vec<u8>])>;

/// A kernel, its grid (one block per page; the page count is its scalar parameter), its buffers
/// (the first `inputs` read-only) and the check of its results on a backend.
pub(crate) struct Case {
    pub kernel: Kernel,
    pub blocks: u32,
    pub buffers: Vec<Vec<u8>>,
    pub inputs: usize,
    pub check: Check,
}

impl Case {
    /// A default-level compress kernel (`compress_page_default` inside) over `pages`: the pages in,
    /// output slots (from byte `pad` on), meta words and scratch out; its records must be
    /// `want`'s.
    fn default_level(kernel: Kernel, pages: &[Page], pad: usize, want: Vec<Page>) -> Case {
        let n = pages.len();
        Case {
            kernel,
            blocks: n as u32,
            buffers: vec![
                flat(pages),
                vec![0; n * PAGE_SIZE + pad],
                vec![0; n * 16],
                vec![0; n * PAGE_SIZE * 2],
            ],
            inputs: 1,
            check: Box::new(move |backend, out| {
                check_records(backend, &out[1][pad..], &out[2], &want, Lz4Level::DEFAULT)
            }),
        }
    }

    /// The decompress kernel `kernel` (one warp per block) over `n` blocks: their bytes (padded) and
    /// spans in, pages and status words out, both filled with 0xEE first.
    pub fn decompress(
        kernel: Kernel,
        data: Vec<u8>,
        spans: Vec<u8>,
        n: usize,
        check: Check,
    ) -> Case {
        Case {
            kernel,
            blocks: n as u32,
            buffers: vec![data, spans, vec![0xEE; n * PAGE_SIZE], vec![0xEE; n * 4]],
            inputs: 2,
            check,
        }
    }
}

/// [`everywhere`], and ptxas assembles the kernel for every target.
fn on_every_backend(test: &str, case: &Case) {
    everywhere(test, case);
    assembles_everywhere(test, &case.kernel);
}

/// The case checked after it ran on the IR simulator, the PTX simulator for every target (neither
/// may find anything) and WebGPU (a loud skip without an adapter).
pub(crate) fn everywhere(test: &str, case: &Case) {
    let Case {
        kernel,
        blocks,
        buffers,
        inputs,
        check,
    } = case;
    let (blocks, inputs) = (*blocks, *inputs);
    let verified = verify(kernel).expect("verifies");
    let scalars = [u64::from(blocks)];
    let mut out = buffers.to_vec();
    let report = sim::run(
        &verified,
        blocks,
        &mut args(&mut out, inputs),
        &scalars,
        &SimOptions::default(),
    )
    .expect("launches on the simulator");
    assert!(report.findings.is_empty(), "sim: {:?}", report.findings);
    check("sim", &out);
    for sm in Sm::ALL {
        let device = Launcher::PtxSim(SimOptions::default(), sm);
        let loaded = device.load(&verified).expect("the PTX loads");
        let mut out = buffers.to_vec();
        let launched = device
            .launch(&loaded, blocks, &mut args(&mut out, inputs), &scalars)
            .expect("launches on the PTX simulator");
        let findings: Vec<_> = launched.sim.iter().flat_map(|r| &r.findings).collect();
        assert!(findings.is_empty(), "ptx-sim {sm}: {findings:?}");
        check(&format!("ptx-sim {}", sm.name()), &out);
    }
    let requirements = warpforge::wgsl::emit(&verified)
        .unwrap_or_else(|e| panic!("{e}"))
        .requirements;
    if !common::webgpu_or_skip(test, &requirements) {
        return;
    }
    let device = Launcher::WebGpu(WebGpuDevice::new(&requirements).expect("an adapter"));
    let loaded = device.load(&verified).expect("the WGSL loads");
    let mut out = buffers.to_vec();
    device
        .launch(&loaded, blocks, &mut args(&mut out, inputs), &scalars)
        .expect("launches on WebGPU");
    check("webgpu", &out);
}

/// The case checked after it ran on a CUDA GPU (a loud skip without one; `scripts/gpu-check.sh`
/// runs it with `WARPFORGE_REQUIRE_CUDA=1`).
fn on_cuda(test: &str, case: &Case) -> bool {
    let Some(info) = warpforge::runtime::cuda::cuda_or_skip(test) else {
        return false;
    };
    let device = warpforge::runtime::cuda::CudaDevice::new(info.index).expect("the device opens");
    let launcher = Launcher::Cuda(device);
    let verified = verify(&case.kernel).expect("verifies");
    let loaded = launcher.load(&verified).expect("the PTX loads");
    let mut out = case.buffers.clone();
    let scalars = [u64::from(case.blocks)];
    launcher
        .launch(
            &loaded,
            case.blocks,
            &mut args(&mut out, case.inputs),
            &scalars,
        )
        .expect("launches on CUDA");
    (case.check)(&info.label(), &out);
    true
}

/// Page `g`'s record from the compress kernels' `output` and `meta`.
fn record(output: &[u8], meta: &[u8], g: usize) -> PageEncoding {
    let m = |k| word(meta, 4 * g + k);
    match m(0) {
        0 => PageEncoding::Lz4(output[g * PAGE_SIZE..g * PAGE_SIZE + m(1) as usize].to_vec()),
        1 => PageEncoding::Raw,
        2 => PageEncoding::SameFilled(u64::from(m(2)) | u64::from(m(3)) << 32),
        other => panic!("page {g}: unknown kind {other}"),
    }
}

/// Every record equals the CPU's encoding of `want[g]` at `level`, and decodes back to it.
pub(crate) fn check_records(
    backend: &str,
    output: &[u8],
    meta: &[u8],
    want: &[Page],
    level: Lz4Level,
) {
    for (g, page) in want.iter().enumerate() {
        let got = record(output, meta, g);
        assert_eq!(
            got,
            encode_page_level(page, level),
            "{backend}: page {g}: not the CPU reference's record"
        );
        match got {
            PageEncoding::Lz4(block) => {
                let mut back = [0u8; PAGE_SIZE];
                let n = lz4_decompress_block(&block, &mut back).expect("the block decodes");
                assert_eq!((n, &back), (PAGE_SIZE, page), "{backend}: page {g}");
            }
            PageEncoding::SameFilled(pattern) => {
                let bytes = pattern.to_le_bytes();
                assert!(page.chunks(8).all(|c| c == bytes), "{backend}: page {g}");
            }
            PageEncoding::Raw => {}
        }
    }
}

fn fused_compress_case() -> Case {
    let pages = pages(16);
    let bases = bases(&pages);
    let deltas: Vec<Page> = pages.iter().zip(&bases).map(|(p, b)| xor(p, b)).collect();
    let kinds: Vec<u8> = deltas
        .iter()
        .map(|d| encode_page_level(d, Lz4Level::THROUGHPUT).kind())
        .collect();
    assert!((0..3).all(|k| kinds.contains(&k)), "every kind: {kinds:?}");
    let n = pages.len();
    let buffers = vec![
        flat(&pages),
        flat(&bases),
        vec![0; n * PAGE_SIZE],
        vec![0; n * 16],
    ];
    Case {
        kernel: xor_delta_compress(),
        blocks: n as u32,
        buffers,
        inputs: 2,
        check: Box::new(move |backend, out| {
            check_records(backend, &out[2], &out[3], &deltas, Lz4Level::THROUGHPUT)
        }),
    }
}

#[test]
fn fused_xor_delta_compress_matches_the_cpu_on_every_backend() {
    let test = "fused_xor_delta_compress_matches_the_cpu_on_every_backend";
    on_every_backend(test, &fused_compress_case());
}

fn fused_decompress_case() -> Case {
    fused_decompress_case_with(xor_delta_decompress())
}

/// [`xor_delta_decompress`]'s buffers and check for `kernel` (the same parameters).
fn fused_decompress_case_with(kernel: Kernel) -> Case {
    let pages = pages(12);
    let bases = bases(&pages);
    let n = pages.len();
    // Every delta as a plain LZ4 block (same-filled and incompressible ones too), 16-byte aligned
    // starts, the last block cut short so it must fail without writing its page.
    let mut blocks = Vec::new();
    let mut spans = Vec::new();
    for (g, (p, b)) in pages.iter().zip(&bases).enumerate() {
        let mut block = vec![0u8; PAGE_SIZE + PAGE_SIZE / 255 + 16];
        let len = lz4_compress_block(&xor(p, b), &mut block).expect("fits");
        let len = if g == n - 1 { len - 3 } else { len };
        spans.extend_from_slice(&(blocks.len() as u32).to_le_bytes());
        spans.extend_from_slice(&(len as u32).to_le_bytes());
        blocks.extend_from_slice(&block[..len]);
        blocks.resize(blocks.len().next_multiple_of(BLOCKS_ALIGN), 0xa5);
    }
    let buffers = vec![
        blocks,
        spans,
        flat(&bases),
        vec![0; n * PAGE_SIZE],
        vec![0; n * 4],
    ];
    Case {
        kernel,
        blocks: n as u32,
        buffers,
        inputs: 3,
        check: Box::new(move |backend, out| {
            for (g, p) in pages.iter().enumerate() {
                let status = word(&out[4], g);
                let restored = &out[3][g * PAGE_SIZE..(g + 1) * PAGE_SIZE];
                if g == n - 1 {
                    assert_eq!(
                        status & 0xff,
                        decode_status::TRUNCATED,
                        "{backend}: the cut block"
                    );
                    assert!(restored.iter().all(|&b| b == 0), "{backend}: written");
                } else {
                    assert_eq!(status & 0xff, 0, "{backend}: page {g}: status {status:#x}");
                    assert_eq!(restored, p.as_slice(), "{backend}: page {g} restored");
                }
            }
        }),
    }
}

#[test]
fn fused_xor_delta_decompress_restores_the_pages_on_every_backend() {
    let test = "fused_xor_delta_decompress_restores_the_pages_on_every_backend";
    on_every_backend(test, &fused_decompress_case());
}

/// [`xor_delta_decompress`] reading the decoded page back with no `warp_sync` of its own after the
/// call, each lane reading words another lane wrote (`i ^ 1`): `decompress_page` returns only after
/// every lane's writes to the page.
#[kernel(block_size = 32)]
fn xor_delta_decompress_unsynced(
    blocks: &[u32],
    spans: &[u32],
    base: &[u32],
    output: &mut [u32],
    status: &mut [u32],
    n: u32,
) {
    let g = block_index();
    if g < n {
        let delta = shared::<u32>(1024, 16);
        let [start, size] = load2(&spans[g * 2]);
        let word = decompress_page(blocks, start, size, delta, 0);
        if word & 255 == 0 {
            let first = g * 1024;
            for i in (lane_id()..1024).step_by(32) {
                let j = i ^ 1;
                output[first + j] = delta[j] ^ base[first + j];
            }
        }
        if lane_id() == 0 {
            status[g] = word;
        }
    }
}

#[test]
fn decompress_page_returns_after_every_lanes_writes() {
    let test = "decompress_page_returns_after_every_lanes_writes";
    everywhere(
        test,
        &fused_decompress_case_with(xor_delta_decompress_unsynced()),
    );
}

/// The default level from a device function, with its scratch in a buffer of the caller's. The
/// output slots start 16 bytes in and the scratch slots run backwards, so an output index used for
/// the scratch (or the reverse) cannot pass.
#[kernel(block_size = 32)]
fn default_level_compress(
    pages: &[u32],
    output: &mut [u8],
    meta: &mut [u32],
    scratch: &mut [u16],
    n: u32,
) {
    let g = block_index();
    if g < n {
        let out = g as u64 * 4096 + 16;
        let slots = (n - 1 - g) as u64 * 4096;
        compress_page_default(pages, g * 1024, output, out, meta, g * 4, scratch, slots);
    }
}

fn default_level_case() -> Case {
    let pages = pages(4);
    Case::default_level(default_level_compress(), &pages, 16, pages.clone())
}

#[test]
fn compress_page_default_matches_the_cpu_on_every_backend() {
    let test = "compress_page_default_matches_the_cpu_on_every_backend";
    on_every_backend(test, &default_level_case());
}

#[test]
fn device_functions_match_the_cpu_on_cuda() {
    let test = "device_functions_match_the_cpu_on_cuda";
    for case in [
        fused_compress_case(),
        fused_decompress_case(),
        default_level_case(),
        default_level_from_shared_case(),
    ] {
        if !on_cuda(test, &case) {
            return;
        }
    }
}

/// A shared array named like the device function's own (`page`, the default level's copy of the
/// page) is kept apart from it.
#[test]
fn a_callers_shared_array_named_like_the_device_functions_is_renamed() {
    let kernel = xor_delta_compress();
    let names: Vec<&str> = kernel.shared.iter().map(|(_, s)| s.name.as_str()).collect();
    assert_eq!(
        names,
        ["delta", "buckets"],
        "level 0 reads the delta in place"
    );
    // The caller's shared arrays carry both names the default level gives its own; the page comes
    // from a buffer, so the device function declares its copy of it (`page`) and its chains.
    #[kernel(block_size = 32)]
    fn clash(pages: &[u32], output: &mut [u8], meta: &mut [u32], scratch: &mut [u16]) {
        let page = shared::<u32>(32, 4);
        let sorted = shared::<u32>(32, 4);
        page[lane_id()] = pages[lane_id()];
        sorted[lane_id()] = page[lane_id()];
        warp_sync(FULL_MASK);
        compress_page_default(pages, 0, output, 0, meta, 0, scratch, 0);
    }
    let kernel = clash();
    let names: Vec<&str> = kernel.shared.iter().map(|(_, s)| s.name.as_str()).collect();
    assert_eq!(names, ["page", "sorted", "page_1", "sorted_1"]);
    let ptx = warpforge::ptx::emit(&verify(&kernel).expect("verifies"), Sm::Sm90).expect("emits");
    assert!(
        ptx.text.contains("s_page_1") && ptx.text.contains("s_sorted_1"),
        "{}",
        ptx.text
    );
    // A page in the caller's shared memory is read where it is: no copy of it is declared.
    let kernel = default_level_from_shared();
    let names: Vec<&str> = kernel.shared.iter().map(|(_, s)| s.name.as_str()).collect();
    assert_eq!(
        names,
        ["page", "sorted"],
        "the default level copies a shared page"
    );
}

/// The default level on a page the kernel first writes into shared memory (a transform: each word
/// XOR a constant), which the device function reads in place.
#[kernel(block_size = 32)]
fn default_level_from_shared(
    pages: &[u32],
    output: &mut [u8],
    meta: &mut [u32],
    scratch: &mut [u16],
    n: u32,
) {
    let g = block_index();
    if g < n {
        let page = shared::<u32>(1024, 16);
        let first = g * 1024;
        for i in (lane_id()..1024).step_by(32) {
            page[i] = pages[first + i] ^ 0x5A5A_5A5A;
        }
        warp_sync(FULL_MASK);
        compress_page_default(
            page,
            0,
            output,
            g as u64 * 4096,
            meta,
            g * 4,
            scratch,
            g as u64 * 4096,
        );
    }
}

fn default_level_from_shared_case() -> Case {
    let pages = pages(4);
    Case::default_level(default_level_from_shared(), &pages, 0, xored(&pages))
}

#[test]
fn compress_page_default_reads_a_shared_page_in_place_on_every_backend() {
    let test = "compress_page_default_reads_a_shared_page_in_place_on_every_backend";
    on_every_backend(test, &default_level_from_shared_case());
}
