//! Per-call latency figures for the benchmarks (`warpforge host-bench`'s latency rows, the
//! `gpu_batch` example's): percentiles by nearest rank.

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
