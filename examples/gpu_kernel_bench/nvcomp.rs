//! nvCOMP's batched LZ4 (libnvcomp.so.6 from PyPI `nvidia-libnvcomp-cu13` 6.0.0, opened at run time)
//! on the same rotation sets, 4 KiB chunks (one per page), device to device, timed with CUDA events on
//! the bench's stream. Signatures and structs are those of the 6.0 headers (`include/nvcomp/lz4.h`,
//! `nvcomp/shared_types.h`, `nvcomp.h` in the wheel); `scripts/gpu-check.sh perf-build` unpacks them.
//! Checked afterwards: every chunk's status, every decompressed page byte for byte, and each compressed
//! chunk decoded by lz4_flex (reported; nvCOMP documents no block format, so a mismatch is a note).

use std::ffi::{c_char, c_void, CStr};

use anyhow::{anyhow, bail, Context, Result};
use libloading::Library;
use warpforge::runtime::cudarc::driver::CudaSlice;
use warpforge::PAGE_SIZE;

use crate::gpu::{par_check, Gpu, Page, Sets};
use crate::ours::Runs;
use crate::report::{Figure, Report, Scope};

/// `nvcompStatus_t` (a C enum: `int`); `nvcompSuccess` is 0.
type Status = i32;
/// `cudaStream_t`, the same handle as the driver's `CUstream`.
type Stream = *mut c_void;

/// `nvcompBatchedLZ4CompressOpts_t`: data type, bitshuffle mode, 56 reserved bytes (zeroed).
#[repr(C)]
#[derive(Clone, Copy)]
struct CompressOpts {
    data_type: i32,
    bitshuffle_mode: i32,
    reserved: [u8; 56],
}

/// `nvcompBatchedLZ4DecompressOpts_t`: backend, sort flag, data type, bitshuffle, 48 reserved bytes.
#[repr(C)]
#[derive(Clone, Copy)]
struct DecompressOpts {
    backend: i32,
    sort_before_hw_decompress: i32,
    data_type: i32,
    bitshuffle_mode: i32,
    reserved: [u8; 48],
}

const _: () = assert!(std::mem::size_of::<CompressOpts>() == 64);
const _: () = assert!(std::mem::size_of::<DecompressOpts>() == 64);

/// `nvcompBatchedLZ4CompressDefaultOpts`: NVCOMP_TYPE_CHAR (0), NVCOMP_BITSHUFFLE_NONE (0).
const COMPRESS_OPTS: CompressOpts = CompressOpts {
    data_type: 0,
    bitshuffle_mode: 0,
    reserved: [0; 56],
};
/// `nvcompBatchedLZ4DecompressDefaultOpts`: NVCOMP_DECOMPRESS_BACKEND_DEFAULT (0), no sort, CHAR.
const DECOMPRESS_OPTS: DecompressOpts = DecompressOpts {
    backend: 0,
    sort_before_hw_decompress: 0,
    data_type: 0,
    bitshuffle_mode: 0,
    reserved: [0; 48],
};

/// `nvcompAlignmentRequirements_t`.
#[repr(C)]
#[derive(Default)]
struct Alignments {
    input: usize,
    output: usize,
    temp: usize,
}

/// `nvcompProperties_t`.
#[repr(C)]
#[derive(Default)]
struct Properties {
    version: u32,
    cudart_version: u32,
}

type GetProperties = unsafe extern "C" fn(*mut Properties) -> Status;
type StatusString = unsafe extern "C" fn(Status) -> *const c_char;
type CompressAlignments = unsafe extern "C" fn(CompressOpts, *mut Alignments) -> Status;
type DecompressAlignments = unsafe extern "C" fn(DecompressOpts, *mut Alignments) -> Status;
type CompressTemp =
    unsafe extern "C" fn(usize, usize, CompressOpts, *mut usize, usize, Stream) -> Status;
type DecompressTemp =
    unsafe extern "C" fn(usize, usize, DecompressOpts, *mut usize, usize, Stream) -> Status;
type MaxOutput = unsafe extern "C" fn(usize, CompressOpts, *mut usize) -> Status;
type CompressAsync = unsafe extern "C" fn(
    *const *const c_void,
    *const usize,
    usize,
    usize,
    *mut c_void,
    usize,
    *const *mut c_void,
    *mut usize,
    CompressOpts,
    *mut Status,
    Stream,
) -> Status;
type DecompressAsync = unsafe extern "C" fn(
    *const *const c_void,
    *const usize,
    *const usize,
    *mut usize,
    usize,
    *mut c_void,
    usize,
    *const *mut c_void,
    DecompressOpts,
    *mut Status,
    Stream,
) -> Status;

/// The library and the entry points the bench calls.
struct NvComp {
    _lib: Library,
    status_string: StatusString,
    compress: CompressAsync,
    decompress: DecompressAsync,
    version: String,
    alignments: (Alignments, Alignments),
    compress_temp: CompressTemp,
    decompress_temp: DecompressTemp,
    max_output: MaxOutput,
}

impl NvComp {
    fn open(path: &str) -> Result<NvComp> {
        // SAFETY: loading libnvcomp runs its initialisers, which only set up its own state; the library
        // stays loaded as long as the function pointers taken from it (both live in `NvComp`).
        let lib = unsafe { Library::new(path) }.with_context(|| format!("dlopen {path}"))?;
        macro_rules! sym {
            ($name:literal, $ty:ty) => {{
                // SAFETY: the symbol's type is the prototype of the nvCOMP 6.0 headers (see the types
                // above); the pointer is used only while `lib` is alive (both live in `NvComp`).
                let symbol = unsafe { lib.get::<$ty>($name) }
                    .with_context(|| format!("{path}: no symbol {}", $name))?;
                *symbol
            }};
        }
        let properties = sym!("nvcompGetProperties", GetProperties);
        let status_string = sym!("nvcompGetStatusString", StatusString);
        let compress_alignments = sym!(
            "nvcompBatchedLZ4CompressGetRequiredAlignments",
            CompressAlignments
        );
        let decompress_alignments = sym!(
            "nvcompBatchedLZ4DecompressGetRequiredAlignments",
            DecompressAlignments
        );
        let compress = sym!("nvcompBatchedLZ4CompressAsync", CompressAsync);
        let decompress = sym!("nvcompBatchedLZ4DecompressAsync", DecompressAsync);
        let compress_temp = sym!("nvcompBatchedLZ4CompressGetTempSize", CompressTemp);
        let decompress_temp = sym!("nvcompBatchedLZ4DecompressGetTempSize", DecompressTemp);
        let max_output = sym!("nvcompBatchedLZ4CompressGetMaxOutputChunkSize", MaxOutput);
        let mut nv = NvComp {
            status_string,
            compress,
            decompress,
            compress_temp,
            decompress_temp,
            max_output,
            version: String::new(),
            alignments: Default::default(),
            _lib: lib,
        };
        let mut p = Properties::default();
        // SAFETY: `p` is a valid nvcompProperties_t to write.
        nv.check("nvcompGetProperties", unsafe { properties(&mut p) })?;
        let v = p.version;
        nv.version = format!(
            "{}.{}.{} (built with CUDA runtime {})",
            v / 1000,
            v % 1000 / 100,
            v % 100,
            p.cudart_version
        );
        let (mut ca, mut da) = (Alignments::default(), Alignments::default());
        // SAFETY: options by value, an alignments struct to write.
        let status = unsafe { compress_alignments(COMPRESS_OPTS, &mut ca) };
        nv.check("nvcompBatchedLZ4CompressGetRequiredAlignments", status)?;
        // SAFETY: as above.
        let status = unsafe { decompress_alignments(DECOMPRESS_OPTS, &mut da) };
        nv.check("nvcompBatchedLZ4DecompressGetRequiredAlignments", status)?;
        nv.alignments = (ca, da);
        Ok(nv)
    }

    fn check(&self, call: &str, status: Status) -> Result<()> {
        if status == 0 {
            return Ok(());
        }
        // SAFETY: nvcompGetStatusString returns a static NUL-terminated string (or null).
        let text = unsafe {
            let s = (self.status_string)(status);
            if s.is_null() {
                "?".into()
            } else {
                CStr::from_ptr(s).to_string_lossy().into_owned()
            }
        };
        bail!("{call} returned nvcompStatus {status} ({text})")
    }
}

/// Opens nvCOMP and says what it reports for 4 KiB chunks: version, alignments, the largest compressed
/// chunk (host-side calls only: no GPU needed).
pub fn describe(lib: &str) -> Result<String> {
    let nv = NvComp::open(lib)?;
    let mut max_out = 0usize;
    // SAFETY: a size to write.
    let status = unsafe { (nv.max_output)(PAGE_SIZE, COMPRESS_OPTS, &mut max_out) };
    nv.check("nvcompBatchedLZ4CompressGetMaxOutputChunkSize", status)?;
    let (c, d) = &nv.alignments;
    Ok(format!(
        "{lib}: nvCOMP {}; LZ4 alignments: compress input {} output {} temp {}, decompress input {} \
         output {} temp {}; largest compressed 4 KiB chunk {max_out} bytes",
        nv.version, c.input, c.output, c.temp, d.input, d.output, d.temp
    ))
}

/// One set's nvCOMP buffers: pointer arrays, sizes, statuses, outputs.
struct SetBuffers {
    in_ptrs: CudaSlice<u64>,
    out: CudaSlice<u8>,
    out_ptrs: CudaSlice<u64>,
    comp_bytes: CudaSlice<usize>,
    comp_status: CudaSlice<i32>,
    dec: CudaSlice<u8>,
    dec_ptrs: CudaSlice<u64>,
    dec_bytes: CudaSlice<usize>,
    dec_status: CudaSlice<i32>,
}

fn round_up(x: usize, to: usize) -> usize {
    x.div_ceil(to.max(1)) * to.max(1)
}

/// nvCOMP's compress and decompress on the sets; figures into `report`.
pub fn run(
    gpu: &Gpu,
    lib: &str,
    pages: &[Page],
    sets: &Sets,
    runs: Runs,
    report: &mut Report,
) -> Result<()> {
    let nv = NvComp::open(lib)?;
    let n = sets.pages_per_set;
    let stream: Stream = gpu.stream.cu_stream().cast();
    let mut max_out = 0usize;
    // SAFETY: a size to write.
    nv.check("GetMaxOutputChunkSize", unsafe {
        (nv.max_output)(PAGE_SIZE, COMPRESS_OPTS, &mut max_out)
    })?;
    let (ca, da) = &nv.alignments;
    let stride = round_up(max_out, ca.output.max(da.input).max(16));
    let (mut ct, mut dt) = (0usize, 0usize);
    // SAFETY: sizes to write; the stream is the bench's live stream.
    nv.check("CompressGetTempSize", unsafe {
        (nv.compress_temp)(n, PAGE_SIZE, COMPRESS_OPTS, &mut ct, n * PAGE_SIZE, stream)
    })?;
    // SAFETY: as above.
    nv.check("DecompressGetTempSize", unsafe {
        (nv.decompress_temp)(
            n,
            PAGE_SIZE,
            DECOMPRESS_OPTS,
            &mut dt,
            n * PAGE_SIZE,
            stream,
        )
    })?;
    let temp_bytes = ct.max(dt).max(16);
    let temp = gpu.zeros(temp_bytes + ca.temp.max(da.temp).max(256))?;
    let temp_ptr = round_up(gpu.address(&temp) as usize, ca.temp.max(da.temp).max(256));
    let chunk_bytes = gpu.upload(&vec![PAGE_SIZE; n])?;
    let ptrs = |base: u64, step: usize| {
        (0..n)
            .map(|i| base + (i * step) as u64)
            .collect::<Vec<u64>>()
    };
    let bufs = (0..sets.len())
        .map(|s| {
            let out = gpu.zeros(n * stride)?;
            let dec = gpu.zeros(n * PAGE_SIZE)?;
            Ok(SetBuffers {
                in_ptrs: gpu.upload(&ptrs(gpu.address(&sets.inputs[s]), PAGE_SIZE))?,
                out_ptrs: gpu.upload(&ptrs(gpu.address(&out), stride))?,
                dec_ptrs: gpu.upload(&ptrs(gpu.address(&dec), PAGE_SIZE))?,
                out,
                dec,
                comp_bytes: gpu.upload(&vec![0usize; n])?,
                comp_status: gpu.upload(&vec![-1i32; n])?,
                dec_bytes: gpu.upload(&vec![0usize; n])?,
                dec_status: gpu.upload(&vec![-1i32; n])?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    gpu.sync()?;
    let p = |s: &CudaSlice<u64>| gpu.address(s) as usize as *const *const c_void;
    let total = (runs.warmup + runs.timed).max(sets.len());
    let mut compress_s = Vec::new();
    for run in 0..total {
        let b = &bufs[run % sets.len()];
        let t = gpu.time(|| {
            // SAFETY: every pointer is a live device allocation of this context: n chunk pointers into
            // the set's pages (4 KiB apart), n sizes of 4096, a temp buffer of at least the size nvCOMP
            // asked for at its alignment, n output pointers `stride` bytes apart (≥ the max output
            // chunk size, at the output alignment), n sizes and n statuses to write; the stream is live.
            let status = unsafe {
                (nv.compress)(
                    p(&b.in_ptrs),
                    gpu.address(&chunk_bytes) as usize as *const usize,
                    PAGE_SIZE,
                    n,
                    temp_ptr as *mut c_void,
                    temp_bytes,
                    gpu.address(&b.out_ptrs) as usize as *const *mut c_void,
                    gpu.address(&b.comp_bytes) as usize as *mut usize,
                    COMPRESS_OPTS,
                    gpu.address(&b.comp_status) as usize as *mut Status,
                    stream,
                )
            };
            nv.check("nvcompBatchedLZ4CompressAsync", status)
        })?;
        if run >= total - runs.timed {
            compress_s.push(t);
        }
    }
    let mut decompress_s = Vec::new();
    for run in 0..total {
        let b = &bufs[run % sets.len()];
        let t = gpu.time(|| {
            // SAFETY: compressed chunk pointers and sizes as the compression left them, n buffer sizes
            // of 4096, n actual sizes and statuses to write, the temp buffer, n output pointers 4 KiB
            // apart into a buffer of n pages; all live allocations of this context; the stream is live.
            let status = unsafe {
                (nv.decompress)(
                    gpu.address(&b.out_ptrs) as usize as *const *const c_void,
                    gpu.address(&b.comp_bytes) as usize as *const usize,
                    gpu.address(&chunk_bytes) as usize as *const usize,
                    gpu.address(&b.dec_bytes) as usize as *mut usize,
                    n,
                    temp_ptr as *mut c_void,
                    temp_bytes,
                    gpu.address(&b.dec_ptrs) as usize as *const *mut c_void,
                    DECOMPRESS_OPTS,
                    gpu.address(&b.dec_status) as usize as *mut Status,
                    stream,
                )
            };
            nv.check("nvcompBatchedLZ4DecompressAsync", status)
        })?;
        if run >= total - runs.timed {
            decompress_s.push(t);
        }
    }
    // Every set's outputs, downloaded once and checked.
    let (mut compressed, mut verified, mut flex_ok) = (0u64, 0u64, 0u64);
    for (s, b) in bufs.iter().enumerate() {
        let set = &pages[sets.range(s)];
        let sizes = gpu.download(&b.comp_bytes, n)?;
        let status = gpu.download(&b.comp_status, n)?;
        if let Some(i) = (0..n).find(|&i| status[i] != 0 || sizes[i] == 0 || sizes[i] > max_out) {
            bail!(
                "nvCOMP compress, set {s}: chunk {i}: status {}, {} bytes",
                status[i],
                sizes[i]
            );
        }
        compressed += sizes.iter().map(|&x| x as u64).sum::<u64>();
        let out = gpu.download(&b.out, n * stride)?;
        flex_ok += par_check(n, |range| {
            Ok(range
                .filter(|&i| {
                    lz4_flex::block::decompress(&out[i * stride..i * stride + sizes[i]], PAGE_SIZE)
                        .is_ok_and(|d| d == set[i])
                })
                .count() as u64)
        })?;
        let dec = gpu.download(&b.dec, n * PAGE_SIZE)?;
        let dec_sizes = gpu.download(&b.dec_bytes, n)?;
        let dec_status = gpu.download(&b.dec_status, n)?;
        verified += par_check(n, |range| {
            for i in range.clone() {
                if dec_status[i] != 0 || dec_sizes[i] != PAGE_SIZE {
                    bail!(
                        "nvCOMP decompress, set {s}: chunk {i}: status {}, {} bytes",
                        dec_status[i],
                        dec_sizes[i]
                    );
                }
                if dec[i * PAGE_SIZE..(i + 1) * PAGE_SIZE] != set[i] {
                    bail!("nvCOMP decompress, set {s}: chunk {i} decodes to a different page");
                }
            }
            Ok(range.len() as u64)
        })?;
    }
    let all = (n * sets.len()) as u64;
    let name = format!("nvCOMP {} LZ4", nv.version.split(' ').next().unwrap_or("?"));
    report.set("nvcomp", format!("{lib}: nvCOMP {}", nv.version));
    let flex = if flex_ok == all {
        "every compressed chunk also decodes with lz4_flex to its page".to_string()
    } else {
        format!("lz4_flex decodes {flex_ok} of {all} compressed chunks to their page")
    };
    let set_bytes = (n * PAGE_SIZE) as u64;
    report.figures.push(Figure {
        backend: name.clone(),
        op: "compress".into(),
        scope: Scope::DeviceResident,
        clock: "CUDA events".into(),
        bytes: set_bytes,
        seconds: compress_s,
        ratio: Some((all * PAGE_SIZE as u64) as f64 / compressed as f64),
        fallback_pages: None,
        verified_pages: verified,
        note: format!("batched API, 4 KiB chunks (one per page), default options; {flex}"),
    });
    report.figures.push(Figure {
        backend: name,
        op: "decompress".into(),
        scope: Scope::DeviceResident,
        clock: "CUDA events".into(),
        bytes: set_bytes,
        seconds: decompress_s,
        ratio: None,
        fallback_pages: None,
        verified_pages: verified,
        note: "default backend; every page compared byte for byte, every status and size checked"
            .into(),
    });
    if verified != all {
        return Err(anyhow!("nvCOMP: {verified} of {all} pages verified"));
    }
    Ok(())
}
