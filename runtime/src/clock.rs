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
