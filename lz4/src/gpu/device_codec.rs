//! [`DeviceCodec`]: the page kernels on memory that is already on the device — pages in device memory
//! compressed into device records, LZ4 blocks in device memory decoded into device pages — with no
//! copy of the data through the host (a user tiering GPU memory or a KV cache has the pages there).
//! The same code runs on CUDA and, for checks without a GPU, on the PTX simulator driven like CUDA.
//!
//! ```no_run
//! use warpforge_lz4::gpu::{DeviceBuffer, DeviceCodec, PageSpan};
//! use warpforge_lz4::kernels::lz4::Lz4Level;
//!
//! # fn main() -> Result<(), warpforge_lz4::gpu::GpuError> {
//! let mut codec = DeviceCodec::cuda(0, Lz4Level::DEFAULT)?;
//! let host_pages = vec![7u8; 64 * 4096];
//! let pages = codec.upload(&host_pages)?; // or DeviceBuffer::from(a CudaSlice<u8> you already have)
//! let mut records = codec.records(64)?;
//! codec.compress(&pages, 64, &mut records)?;
//! let meta = codec.download(records.meta())?; // 16 bytes per page: kind, length, pattern
//! # let _ = meta;
//! # Ok(())
//! # }
//! ```

use super::driver::{Arg, Driver};
use super::driver_cuda::CudaDriver;
use super::driver_sim::LaunchDriver;
use super::{GpuError, MAX_BATCH_PAGES};
use crate::kernels::lz4::{compress_scratch_bytes, Lz4Level, BLOCKS_ALIGN};
use crate::kernels::{Kernel, Lz4WarpCompressKernel, Lz4WarpDecompressKernel};
use crate::runtime::cuda::DeviceBytes;
use crate::runtime::{Backend, Launcher, Loaded};
use crate::PAGE_SIZE;

/// Bytes of device memory: a CUDA allocation, or host memory standing in for it on the simulator.
pub struct DeviceBuffer(Memory);

enum Memory {
    Cuda(DeviceBytes),
    Sim(Vec<u8>),
}

impl DeviceBuffer {
    /// Its length in bytes.
    pub fn len(&self) -> usize {
        match &self.0 {
            Memory::Cuda(b) => b.len(),
            Memory::Sim(b) => b.len(),
        }
    }

    /// Whether it holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The CUDA allocation (`None` on the simulator).
    pub fn as_cuda(&self) -> Option<&DeviceBytes> {
        match &self.0 {
            Memory::Cuda(b) => Some(b),
            Memory::Sim(_) => None,
        }
    }

    /// The CUDA allocation back (`Err(self)` on the simulator).
    pub fn into_cuda(self) -> Result<DeviceBytes, DeviceBuffer> {
        match self.0 {
            Memory::Cuda(b) => Ok(b),
            other => Err(DeviceBuffer(other)),
        }
    }
}

impl From<DeviceBytes> for DeviceBuffer {
    /// Device memory the caller allocated (on the codec's device).
    fn from(slice: DeviceBytes) -> DeviceBuffer {
        DeviceBuffer(Memory::Cuda(slice))
    }
}

/// What the compress kernel writes for a batch, left on the device: each page's 4 KiB slot (its LZ4
/// block at the start) and 16 bytes of meta per page (little-endian words: kind — 0 LZ4, 1 raw, 2
/// same-filled —, the block's length, the same-filled pattern's low and high words). A raw page's slot
/// holds nothing useful: the caller keeps the page itself.
pub struct DeviceRecords {
    slots: DeviceBuffer,
    meta: DeviceBuffer,
    pages: usize,
}

impl DeviceRecords {
    /// The slots, 4096 bytes per page: page `i`'s block starts at byte `4096 i`.
    pub fn slots(&self) -> &DeviceBuffer {
        &self.slots
    }

    /// The meta words, 16 bytes per page.
    pub fn meta(&self) -> &DeviceBuffer {
        &self.meta
    }

    /// Pages it has room for.
    pub fn capacity(&self) -> usize {
        self.pages
    }
}

/// Where page `i`'s LZ4 block lies in a blocks buffer: `len` bytes from byte `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageSpan {
    /// Byte offset of the block.
    pub offset: u32,
    /// Its length in bytes.
    pub len: u32,
}

/// The page kernels on device memory, queued in order on one stream of one device.
pub struct DeviceCodec {
    core: Core,
}

enum Core {
    Cuda(DeviceCore<CudaDriver>),
    Sim(DeviceCore<LaunchDriver>),
}

impl DeviceCodec {
    /// On CUDA device `index`, compressing at `level`.
    pub fn cuda(index: u32, level: Lz4Level) -> Result<DeviceCodec, GpuError> {
        let core = DeviceCore::new(CudaDriver::new(index)?, level)?;
        Ok(DeviceCodec {
            core: Core::Cuda(core),
        })
    }

    /// On the PTX simulator driven like the CUDA device (the same kernels, launch shapes and host
    /// code): the device API checked without a GPU.
    pub fn ptx_sim(level: Lz4Level) -> Result<DeviceCodec, GpuError> {
        let launcher = Launcher::PtxSim(Default::default(), crate::ptx::Sm::Sm80);
        let core = DeviceCore::new(LaunchDriver::new(launcher), level)?;
        Ok(DeviceCodec {
            core: Core::Sim(core),
        })
    }

    /// The compression level.
    pub fn level(&self) -> Lz4Level {
        match &self.core {
            Core::Cuda(c) => c.level,
            Core::Sim(c) => c.level,
        }
    }

    /// `bytes` of device memory, zeroed.
    pub fn alloc(&self, bytes: usize) -> Result<DeviceBuffer, GpuError> {
        Ok(DeviceBuffer(match &self.core {
            Core::Cuda(c) => Memory::Cuda(c.driver.alloc(&c.stream, bytes)?),
            Core::Sim(c) => Memory::Sim(c.driver.alloc(&c.stream, bytes)?),
        }))
    }

    /// Device memory holding a copy of `bytes` (to set up pages or blocks; waits for the copy).
    pub fn upload(&self, bytes: &[u8]) -> Result<DeviceBuffer, GpuError> {
        Ok(DeviceBuffer(match &self.core {
            Core::Cuda(c) => {
                let mut buffer = c.driver.alloc(&c.stream, bytes.len())?;
                c.stream.upload(bytes, &mut buffer)?;
                c.stream.synchronize()?;
                Memory::Cuda(buffer)
            }
            Core::Sim(_) => Memory::Sim(bytes.to_vec()),
        }))
    }

    /// A copy of `buffer` on the host, after the work queued before it.
    pub fn download(&self, buffer: &DeviceBuffer) -> Result<Vec<u8>, GpuError> {
        match (&self.core, &buffer.0) {
            (Core::Cuda(c), Memory::Cuda(b)) => Ok(c.stream.clone_to_host(b)?),
            (Core::Sim(_), Memory::Sim(b)) => Ok(b.clone()),
            _ => Err(foreign("download")),
        }
    }

    /// Room for the records of `pages` pages.
    pub fn records(&self, pages: usize) -> Result<DeviceRecords, GpuError> {
        Ok(DeviceRecords {
            slots: self.alloc(pages * PAGE_SIZE)?,
            meta: self.alloc(pages * 16)?,
            pages,
        })
    }

    /// Queues the compression of the first `count` pages of `pages` (4096 bytes each, in device
    /// memory) into `out`. Returns once queued; [`download`](Self::download) and the next call see
    /// the result.
    pub fn compress(
        &mut self,
        pages: &DeviceBuffer,
        count: usize,
        out: &mut DeviceRecords,
    ) -> Result<(), GpuError> {
        check_count(count)?;
        need("pages", pages.len(), count * PAGE_SIZE, count)?;
        if out.pages < count {
            return Err(GpuError::Config(format!(
                "compress of {count} pages into records with room for {}",
                out.pages
            )));
        }
        if count == 0 {
            return Ok(());
        }
        match (&mut self.core, &pages.0, &mut out.slots.0, &mut out.meta.0) {
            (Core::Cuda(c), Memory::Cuda(p), Memory::Cuda(s), Memory::Cuda(m)) => {
                c.compress(p, count, s, m)
            }
            (Core::Sim(c), Memory::Sim(p), Memory::Sim(s), Memory::Sim(m)) => {
                c.compress(p, count, s, m)
            }
            _ => Err(foreign("compress")),
        }
    }

    /// Queues the decoding of one LZ4 block per page: block `i` is `spans[i]` of `blocks` (device
    /// memory, a multiple of 16 bytes long) and decodes into page `i` of `pages` (4096 bytes each);
    /// `status` gets one little-endian word per page ([`crate::kernels::lz4::decode_status`] in the
    /// low 8 bits). A page whose block is malformed keeps its old bytes. The spans are checked against
    /// `blocks` and copied to the device (8 bytes per page); the data stays there.
    pub fn decompress(
        &mut self,
        blocks: &DeviceBuffer,
        spans: &[PageSpan],
        pages: &mut DeviceBuffer,
        status: &mut DeviceBuffer,
    ) -> Result<(), GpuError> {
        let count = spans.len();
        check_count(count)?;
        if blocks.is_empty() || blocks.len() % BLOCKS_ALIGN != 0 {
            return Err(GpuError::Config(format!(
                "the blocks buffer is {} bytes long: it must be a non-zero multiple of {BLOCKS_ALIGN} \
                 (the kernel reads it in aligned 16-byte groups; pad it)",
                blocks.len()
            )));
        }
        for (i, span) in spans.iter().enumerate() {
            let end = u64::from(span.offset) + u64::from(span.len);
            if end > blocks.len() as u64 {
                return Err(GpuError::Config(format!(
                    "span of page {i} ({} bytes from byte {}) ends past the {}-byte blocks buffer",
                    span.len,
                    span.offset,
                    blocks.len()
                )));
            }
        }
        need("pages", pages.len(), count * PAGE_SIZE, count)?;
        need("status", status.len(), count * 4, count)?;
        if count == 0 {
            return Ok(());
        }
        let words: Vec<u8> = spans
            .iter()
            .flat_map(|s| [s.offset, s.len])
            .flat_map(u32::to_le_bytes)
            .collect();
        match (&mut self.core, &blocks.0, &mut pages.0, &mut status.0) {
            (Core::Cuda(c), Memory::Cuda(b), Memory::Cuda(p), Memory::Cuda(s)) => {
                c.decompress(b, &words, count, p, s)
            }
            (Core::Sim(c), Memory::Sim(b), Memory::Sim(p), Memory::Sim(s)) => {
                c.decompress(b, &words, count, p, s)
            }
            _ => Err(foreign("decompress")),
        }
    }

    /// Waits until the queued work is done and reports a failure of it.
    pub fn synchronize(&self) -> Result<(), GpuError> {
        match &self.core {
            Core::Cuda(c) => c.synchronize(),
            Core::Sim(c) => c.synchronize(),
        }
    }
}

fn check_count(count: usize) -> Result<(), GpuError> {
    if count > MAX_BATCH_PAGES {
        return Err(GpuError::Config(format!(
            "{count} pages in one call: at most {MAX_BATCH_PAGES}"
        )));
    }
    Ok(())
}

fn need(what: &str, have: usize, want: usize, count: usize) -> Result<(), GpuError> {
    if have < want {
        return Err(GpuError::Config(format!(
            "the {what} buffer is {have} bytes long: {count} pages need {want}"
        )));
    }
    Ok(())
}

fn foreign(call: &str) -> GpuError {
    GpuError::Config(format!(
        "{call}: a buffer belongs to another kind of device than the codec (CUDA vs the simulator)"
    ))
}

/// The kernels, their working memory and the stream they are queued on, on one driver.
struct DeviceCore<D: Driver> {
    driver: D,
    stream: D::Stream,
    compress: Loaded,
    decompress: Loaded,
    level: Lz4Level,
    /// The compress kernel's scratch and the pages it has room for, grown to the largest call so far.
    scratch: Option<(D::Buffer, usize)>,
    /// The spans on the device, grown likewise, and their page-locked staging with the event after
    /// its last upload.
    spans: Option<(D::Buffer, D::Host, usize)>,
    uploaded: D::Event,
    /// Recorded by [`Self::synchronize`].
    done: D::Event,
}

impl<D: Driver> DeviceCore<D> {
    fn new(driver: D, level: Lz4Level) -> Result<DeviceCore<D>, GpuError> {
        let load = |kernel: &dyn Kernel| {
            let ir = kernel.ir_for(Backend::Cuda);
            driver.load(&warpforge_ir::verify(&ir).expect("the repository's kernels verify"))
        };
        let compress = load(&Lz4WarpCompressKernel::at_level(0, level))?;
        let decompress = load(&Lz4WarpDecompressKernel::new(0))?;
        let stream = driver.stream()?;
        let (uploaded, done) = (driver.event()?, driver.event()?);
        driver.record(&uploaded, &stream)?;
        Ok(DeviceCore {
            driver,
            stream,
            compress,
            decompress,
            level,
            scratch: None,
            spans: None,
            uploaded,
            done,
        })
    }

    fn compress(
        &mut self,
        pages: &D::Buffer,
        count: usize,
        slots: &mut D::Buffer,
        meta: &mut D::Buffer,
    ) -> Result<(), GpuError> {
        if self.scratch.as_ref().is_none_or(|(_, n)| *n < count) {
            let bytes = compress_scratch_bytes(self.level, count);
            // The old scratch may still be in use by queued work: let it finish before dropping it.
            self.synchronize()?;
            self.scratch = Some((self.driver.alloc(&self.stream, bytes)?, count));
        }
        let (scratch, _) = self.scratch.as_mut().expect("allocated above");
        self.driver.launch(
            &self.stream,
            &self.compress,
            "lz4_compress",
            count,
            &mut [
                Arg::In(pages),
                Arg::Out(slots),
                Arg::Out(meta),
                Arg::Scratch(scratch),
            ],
        )?;
        self.driver.check()
    }

    fn decompress(
        &mut self,
        blocks: &D::Buffer,
        span_words: &[u8],
        count: usize,
        pages: &mut D::Buffer,
        status: &mut D::Buffer,
    ) -> Result<(), GpuError> {
        // The staging buffer may still be read by the last upload.
        self.driver.synchronize(&self.uploaded)?;
        if self.spans.as_ref().is_none_or(|(_, _, n)| *n < count) {
            let bytes = count * 8;
            self.synchronize()?;
            self.spans = Some((
                self.driver.alloc(&self.stream, bytes)?,
                self.driver.alloc_host(bytes, false)?,
                count,
            ));
        }
        let (d_spans, staging, _) = self.spans.as_mut().expect("allocated above");
        self.driver.host_mut(staging)?[..span_words.len()].copy_from_slice(span_words);
        self.driver
            .upload(&self.stream, staging, 0, span_words.len(), d_spans)?;
        self.driver.record(&self.uploaded, &self.stream)?;
        self.driver.launch(
            &self.stream,
            &self.decompress,
            "lz4_decompress",
            count,
            &mut [
                Arg::In(blocks),
                Arg::In(d_spans),
                Arg::Out(pages),
                Arg::Out(status),
            ],
        )?;
        self.driver.check()
    }

    fn synchronize(&self) -> Result<(), GpuError> {
        self.driver.record(&self.done, &self.stream)?;
        self.driver.synchronize(&self.done)?;
        self.driver.check()
    }
}
