//! What a GPU backend does for the batch compressor, and the WebGPU implementation.

use super::{GpuDeviceInfo, GpuError};
use crate::archive::Record;
use crate::codec::{DecodeError, Page, WebGpuCodec};
use crate::runtime::Clock;

/// Measured stage times of one chunk, nanoseconds, and the clocks that measured them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timings {
    /// Host to device.
    pub h2d_ns: u64,
    /// Kernels.
    pub kernel_ns: u64,
    /// Device to host.
    pub d2h_ns: u64,
    /// The clock of `kernel_ns`.
    pub kernel_clock: Clock,
    /// The clock of `h2d_ns` and `d2h_ns`.
    pub transfer_clock: Clock,
}

/// The outcome of one chunk: its records and stage times, or why the GPU failed it.
pub type ChunkOutcome = Result<(Vec<Record>, Timings), GpuError>;

/// A GPU backend.
pub trait Engine {
    /// The device.
    fn info(&self) -> GpuDeviceInfo;
    /// Compresses `pages` in chunks of `batch` pages; one outcome per chunk, in order.
    fn compress_chunks(&mut self, pages: &[Page], batch: usize) -> Vec<ChunkOutcome>;
    /// Decodes one chunk (a device failure is `Err`; a malformed page is `Ok(Err(..))`).
    fn decompress_chunk(
        &mut self,
        records: &[Record],
        out: &mut [Page],
    ) -> Result<Result<(), DecodeError>, GpuError>;
}

/// The WebGPU backend: chunks run one after another.
pub struct WgpuEngine(pub WebGpuCodec);

impl Engine for WgpuEngine {
    fn info(&self) -> GpuDeviceInfo {
        self.0.device_info()
    }

    fn compress_chunks(&mut self, pages: &[Page], batch: usize) -> Vec<ChunkOutcome> {
        pages
            .chunks(batch.max(1))
            .map(|chunk| {
                let (records, t) = self
                    .0
                    .compress_timed(chunk)
                    .map_err(|e| GpuError::WebGpu(format!("{e:#}")))?;
                Ok((
                    records,
                    Timings {
                        h2d_ns: t.upload_ns,
                        kernel_ns: t.kernel_ns,
                        d2h_ns: t.download_ns,
                        kernel_clock: t.kernel_clock,
                        transfer_clock: Clock::HostClock,
                    },
                ))
            })
            .collect()
    }

    fn decompress_chunk(
        &mut self,
        records: &[Record],
        out: &mut [Page],
    ) -> Result<Result<(), DecodeError>, GpuError> {
        self.0
            .decompress_timed(records, out)
            .map(|(r, _)| r)
            .map_err(|e| GpuError::WebGpu(format!("{e:#}")))
    }
}
