//! [`GpuBatchConfig`]: what a [`super::GpuBatchCompressor`] is built with.

use super::GpuError;
use crate::Algorithm;

/// Configuration of a batch compressor. Exactly these five public fields, so it can be written as a
/// struct literal (see `Default` for the defaults).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuBatchConfig {
    /// CUDA device (0 = first GPU). Ignored by the WebGPU backend, which picks the best adapter.
    pub device_index: u32,
    /// Compression algorithm.
    pub algorithm: Algorithm,
    /// Pages per batch: the unit moved to the device, compressed, and moved back.
    pub batch_size: usize,
    /// Overlap transfers and kernels of successive batches (CUDA; WebGPU runs batches in order).
    pub async_dma: bool,
    /// Batches in flight at once (pipeline depth); each slot owns pinned host and device buffers.
    pub ring_buffer_slots: usize,
}

impl Default for GpuBatchConfig {
    /// Device 0, LZ4, 4096 pages (16 MiB) per batch, async DMA with a 3-slot ring (H2D of batch k+1,
    /// kernel of batch k and D2H of batch k−1 in flight together).
    fn default() -> Self {
        GpuBatchConfig {
            device_index: 0,
            algorithm: Algorithm::Lz4,
            batch_size: 4096,
            async_dma: true,
            ring_buffer_slots: 3,
        }
    }
}

/// The largest batch accepted (4 GiB of pages would overflow 32-bit byte offsets in the kernels).
pub const MAX_BATCH_PAGES: usize = 1 << 19;
/// The most ring slots accepted.
pub const MAX_RING_SLOTS: usize = 16;

impl GpuBatchConfig {
    /// Checks the values, saying which is wrong and what is allowed.
    pub fn validate(&self) -> Result<(), GpuError> {
        let bad = |what: String| Err(GpuError::Config(what));
        if self.batch_size == 0 || self.batch_size > MAX_BATCH_PAGES {
            return bad(format!(
                "batch_size must be 1..={MAX_BATCH_PAGES} pages, got {}",
                self.batch_size
            ));
        }
        if self.ring_buffer_slots == 0 || self.ring_buffer_slots > MAX_RING_SLOTS {
            return bad(format!(
                "ring_buffer_slots must be 1..={MAX_RING_SLOTS}, got {}",
                self.ring_buffer_slots
            ));
        }
        if self.async_dma && self.ring_buffer_slots < 2 {
            return bad("async_dma needs at least 2 ring_buffer_slots (one transferring while one computes)".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_bad_values_say_which_field() {
        assert!(GpuBatchConfig::default().validate().is_ok());
        let cases = [
            (
                GpuBatchConfig {
                    batch_size: 0,
                    ..Default::default()
                },
                "batch_size",
            ),
            (
                GpuBatchConfig {
                    batch_size: MAX_BATCH_PAGES + 1,
                    ..Default::default()
                },
                "batch_size",
            ),
            (
                GpuBatchConfig {
                    ring_buffer_slots: 0,
                    ..Default::default()
                },
                "ring_buffer_slots",
            ),
            (
                GpuBatchConfig {
                    ring_buffer_slots: MAX_RING_SLOTS + 1,
                    ..Default::default()
                },
                "ring_buffer_slots",
            ),
            (
                GpuBatchConfig {
                    ring_buffer_slots: 1,
                    async_dma: true,
                    ..Default::default()
                },
                "async_dma",
            ),
        ];
        for (config, field) in cases {
            match config.validate() {
                Err(GpuError::Config(why)) => assert!(why.contains(field), "{why}"),
                other => panic!("{config:?}: {other:?}"),
            }
        }
        let sync = GpuBatchConfig {
            ring_buffer_slots: 1,
            async_dma: false,
            ..Default::default()
        };
        assert!(sync.validate().is_ok());
    }
}
