//! Kernel time from WebGPU timestamp queries (`wgpu::Features::TIMESTAMP_QUERY`): the GPU writes a
//! timestamp at the beginning and at the end of the compute pass; they are resolved into a buffer,
//! copied to a mappable staging buffer with the read-back copies, and converted to nanoseconds with the
//! queue's timestamp period. Where the device lacks the feature, or the reading is unusable, the launch
//! keeps its host-clock figure.

use super::transfer::staging;
use super::WebGpuError;

/// Timestamps written: the beginning and the end of the compute pass.
const COUNT: u32 = 2;
/// Bytes of the resolved timestamps (one `u64` each).
const BYTES: u64 = COUNT as u64 * wgpu::QUERY_SIZE as u64;

/// The query set of one launch and the buffers its two timestamps travel through.
pub(crate) struct Timestamps {
    query_set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    /// The mappable copy of `resolve`; map it with the read-back staging buffers.
    pub(crate) staging: wgpu::Buffer,
}

impl Timestamps {
    /// A query set and its buffers when `device` was created with `TIMESTAMP_QUERY`; `None` otherwise.
    /// Call inside error scopes.
    pub(crate) fn new(device: &wgpu::Device) -> Option<Timestamps> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let query_set = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("kernel timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: COUNT,
        });
        let resolve = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("kernel timestamps (resolved)"),
            size: BYTES,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        Some(Timestamps {
            query_set,
            resolve,
            staging: staging(device, "kernel timestamps", BYTES),
        })
    }

    /// The compute pass's timestamp writes: index 0 at its beginning, 1 at its end.
    pub(crate) fn writes(&self) -> wgpu::ComputePassTimestampWrites<'_> {
        wgpu::ComputePassTimestampWrites {
            query_set: &self.query_set,
            beginning_of_pass_write_index: Some(0),
            end_of_pass_write_index: Some(1),
        }
    }

    /// Records the resolve of both timestamps and their copy to [`Timestamps::staging`] on `encoder`
    /// (any encoder submitted after the pass).
    pub(crate) fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.query_set, 0..COUNT, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.staging, 0, BYTES);
    }

    /// The pass's duration in nanoseconds, read from the mapped staging buffer (which it unmaps);
    /// `None` when the reading is unusable (see [`pass_ns`]).
    pub(crate) fn read(&self, period_ns: f32) -> Result<Option<u64>, WebGpuError> {
        let view = self
            .staging
            .get_mapped_range(..)
            .map_err(|error| WebGpuError::Map(format!("kernel timestamps: {error}")))?;
        let ticks: Vec<u64> = view
            .chunks_exact(8)
            .map(|bytes| {
                let mut word = [0u8; 8];
                word.copy_from_slice(bytes);
                u64::from_ne_bytes(word)
            })
            .collect();
        drop(view);
        self.staging.unmap();
        Ok(match ticks[..] {
            [start, end] => pass_ns(start, end, period_ns),
            _ => None,
        })
    }
}

/// Nanoseconds between two timestamps `period_ns` nanoseconds per tick apart; `None` (use the host
/// clock) when the period is not a positive number or `end` is not after `start` (a counter that
/// wrapped, or timestamps the device did not write).
pub(crate) fn pass_ns(start: u64, end: u64, period_ns: f32) -> Option<u64> {
    if !(period_ns.is_finite() && period_ns > 0.0) {
        return None;
    }
    let ticks = end.saturating_sub(start);
    if ticks == 0 {
        return None;
    }
    // `as` saturates; at least 1 ns, since the pass did take time.
    Some(((ticks as f64 * f64::from(period_ns)).round() as u64).max(1))
}

#[cfg(test)]
mod tests {
    use super::pass_ns;

    #[test]
    fn ticks_become_nanoseconds_or_nothing() {
        assert_eq!(pass_ns(100, 350, 1.0), Some(250));
        assert_eq!(pass_ns(100, 350, 40.0), Some(10_000));
        assert_eq!(pass_ns(0, 3, 0.5), Some(2));
        assert_eq!(pass_ns(10, 11, 0.1), Some(1));
        assert_eq!(pass_ns(350, 100, 1.0), None, "end before start");
        assert_eq!(pass_ns(7, 7, 1.0), None, "no time at all");
        assert_eq!(pass_ns(100, 350, 0.0), None, "no period");
        assert_eq!(pass_ns(100, 350, f32::NAN), None);
        assert_eq!(pass_ns(0, u64::MAX, f32::MAX), Some(u64::MAX));
    }
}
