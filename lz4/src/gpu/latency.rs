//! Per-call latency figures for the benchmarks (`warpforge host-bench`'s latency rows, the
//! `gpu_batch` example's, `gpu_kernel_bench`'s): percentiles by nearest rank, and the seed's
//! real-time streaming case on a [`GpuBatchCompressor`] ([`round_trips`]).

use std::time::Instant;

use super::{GpuBatchCompressor, GpuError};
use crate::archive::PackedRecords;
use crate::{CompressedPage, PAGE_SIZE};

/// Wall times of [`round_trips`]' calls, milliseconds (host clock), in call order.
#[derive(Clone, Debug, Default)]
pub struct RoundTrips {
    /// Pages per call.
    pub pages: usize,
    /// `compress_into` of the batch, per call.
    pub compress_ms: Vec<f64>,
    /// `decompress_into` of its records, per call.
    pub decompress_ms: Vec<f64>,
    /// Batches that fell back to the CPU during the calls (the figures are the GPU's only when 0).
    pub cpu_fallbacks: u64,
}

/// Why [`round_trips`] stopped.
#[derive(Debug, thiserror::Error)]
pub enum RoundTripError {
    /// The compressor failed.
    #[error("latency call {call}: {source}")]
    Gpu {
        /// The call, from 0.
        call: usize,
        /// What failed.
        source: Box<GpuError>,
    },
    /// A call's records are not `want`, or its pages did not come back.
    #[error("latency call {call}: {what}")]
    Mismatch {
        /// The call, from 0.
        call: usize,
        /// What differed.
        what: &'static str,
    },
}

/// `calls` host-to-host round trips of one small batch (the seed's streaming case: 64 pages):
/// `compress_into` then `decompress_into` of its records, the pages in the compressor's
/// [`HostPages`](super::HostPages) both ways (a streaming caller's fastest path: page-locked on CUDA,
/// no staging or download copy), each call timed alone on the host clock and checked outside the
/// timed region (the records equal `want`, the pages come back).
pub fn round_trips(
    compressor: &mut GpuBatchCompressor,
    batch: &[[u8; PAGE_SIZE]],
    want: &[CompressedPage],
    calls: usize,
) -> Result<RoundTrips, RoundTripError> {
    let before = compressor.stats().cpu_fallbacks;
    let mut packed = PackedRecords::new();
    let host = |compressor: &mut GpuBatchCompressor| {
        compressor
            .host_pages(batch.len())
            .map_err(|source| RoundTripError::Gpu {
                call: 0,
                source: Box::new(source),
            })
    };
    let mut input = host(compressor)?;
    input.copy_from_slice(batch);
    let mut back = host(compressor)?;
    let mut out = RoundTrips {
        pages: batch.len(),
        ..RoundTrips::default()
    };
    for call in 0..calls {
        let gpu = |source| RoundTripError::Gpu {
            call,
            source: Box::new(source),
        };
        let start = Instant::now();
        compressor.compress_into(&input, &mut packed).map_err(gpu)?;
        out.compress_ms.push(start.elapsed().as_secs_f64() * 1e3);
        if packed.to_records() != want {
            let what = "the records differ from the CPU reference";
            return Err(RoundTripError::Mismatch { call, what });
        }
        back.iter_mut().for_each(|p| p.fill(0xa5));
        let start = Instant::now();
        compressor
            .decompress_into(&packed, &mut back)
            .map_err(gpu)?;
        out.decompress_ms.push(start.elapsed().as_secs_f64() * 1e3);
        if *back != *batch {
            let what = "the round trip changed the pages";
            return Err(RoundTripError::Mismatch { call, what });
        }
    }
    out.cpu_fallbacks = compressor.stats().cpu_fallbacks - before;
    Ok(out)
}

/// The value at or below which a fraction `q` (0 < q ≤ 1) of `samples` lies (nearest rank; the
/// samples are sorted in place). `None` for no samples.
pub fn percentile(samples: &mut [f64], q: f64) -> Option<f64> {
    if samples.is_empty() {
        return None;
    }
    samples.sort_by(|a, b| a.total_cmp(b));
    let rank = ((q * samples.len() as f64).ceil() as usize).clamp(1, samples.len());
    Some(samples[rank - 1])
}

#[cfg(test)]
mod tests {
    use super::percentile;

    #[test]
    fn percentiles_are_nearest_rank() {
        let mut v: Vec<f64> = (1..=100).map(f64::from).rev().collect();
        assert_eq!(percentile(&mut v, 0.50), Some(50.0));
        assert_eq!(percentile(&mut v, 0.99), Some(99.0));
        assert_eq!(percentile(&mut [3.0], 0.99), Some(3.0));
        assert_eq!(percentile(&mut [], 0.5), None);
    }
}
