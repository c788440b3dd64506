//! [`Clock`]: which clock measured a stage time, so that every figure can say what it measured.

use std::fmt;

/// The clock a stage time was read from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Clock {
    /// CUDA events recorded on the stream around the stage (`cuEventElapsedTime`): device time.
    CudaEvents,
    /// WebGPU timestamp queries written by the GPU at the start and end of the compute pass
    /// (`wgpu::Features::TIMESTAMP_QUERY`): device time.
    WebGpuTimestamps,
    /// The host's monotonic clock around a synchronized submission: includes submission and wake-up
    /// latency, so it is an upper bound on the device time.
    #[default]
    HostClock,
}

impl Clock {
    /// Whether the device itself measured the time (events or timestamps), rather than the host.
    pub fn is_device_clock(self) -> bool {
        !matches!(self, Clock::HostClock)
    }
}

impl fmt::Display for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Clock::CudaEvents => "CUDA events",
            Clock::WebGpuTimestamps => "WebGPU timestamp queries",
            Clock::HostClock => "host clock",
        })
    }
}

/// The stage times of one launch (or one batch of launches), nanoseconds, and the clocks that measured
/// them. Every backend reports these three stages: upload (host to device), kernel, download (device to
/// host). On the simulator there is no transfer: upload and download are 0 and the kernel time is the
/// host clock around the whole launch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timings {
    /// Host to device.
    pub upload_ns: u64,
    /// The kernel.
    pub kernel_ns: u64,
    /// Device to host.
    pub download_ns: u64,
    /// The clock of `kernel_ns`.
    pub kernel_clock: Clock,
    /// The clock of `upload_ns` and `download_ns`.
    pub transfer_clock: Clock,
}

impl Timings {
    /// Adds `other`'s times (the clocks stay this one's: add only timings of one backend).
    pub fn add(&mut self, other: &Timings) {
        self.upload_ns += other.upload_ns;
        self.kernel_ns += other.kernel_ns;
        self.download_ns += other.download_ns;
    }
}

impl fmt::Display for Timings {
    /// `kernel 1.234 ms (CUDA events), upload 0.5 ms, download 0.7 ms (host clock)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |ns: u64| format!("{:.3} ms", ns as f64 / 1e6);
        write!(
            f,
            "kernel {} ({}), upload {}, download {} ({})",
            ms(self.kernel_ns),
            self.kernel_clock,
            ms(self.upload_ns),
            ms(self.download_ns),
            self.transfer_clock
        )
    }
}
