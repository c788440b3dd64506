//! One row of `warpforge host-bench` ([`Direction`]): the median host work and wall time of a call
//! over the timed runs, their spread, and the row's text and JSON.

use std::time::Instant;

use serde::Serialize;

/// Bytes in a GiB.
const GIB: f64 = (1u64 << 30) as f64;

/// One direction's figures, medians over the timed runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Direction {
    /// Host work per call (wall time minus device stand-in time), ms.
    pub host_ms: f64,
    /// Wall time per call, ms (host clock; includes the replay driver's copies).
    pub wall_ms: f64,
    /// How far the runs' host work spread: the slowest run's over the fastest run's, less 1 (0.2:
    /// the slowest took 20% longer). 0 with one run.
    pub host_spread: f64,
    /// Bytes of pages per call.
    pub bytes: usize,
}

impl Direction {
    /// Host milliseconds per GiB of pages.
    pub fn host_ms_per_gib(&self) -> f64 {
        self.host_ms * GIB / self.bytes as f64
    }

    /// The row of the text report, its host work also as a multiple of `staged`'s (the staged path
    /// of the same run, what the owned APIs are measured against).
    pub fn row(&self, name: &str, staged: &Direction) -> String {
        format!(
            "{name:<28}  host {:>8.1} ms/GiB  {:>7.2} GB/s  {:>6.2}x staged   (wall {:.1} ms, of which \
             host {:.1} ms; host spread {:.0}%)\n",
            self.host_ms_per_gib(),
            self.host_gbps(),
            self.host_ms_per_gib() / staged.host_ms_per_gib().max(1e-12),
            self.wall_ms,
            self.host_ms,
            self.host_spread * 1e2
        )
    }

    /// The object of `--json`.
    pub fn json(&self) -> DirectionJson {
        DirectionJson {
            host_gbps: self.host_gbps(),
            host_ms: self.host_ms,
            host_ms_per_gib: self.host_ms_per_gib(),
            host_spread: self.host_spread,
            wall_ms: self.wall_ms,
        }
    }

    /// Pages' bytes per second of host work, GB/s (10⁹ B/s).
    pub fn host_gbps(&self) -> f64 {
        self.bytes as f64 / (self.host_ms.max(1e-9) / 1e3) / 1e9
    }
}

/// One row's timed calls: each call's host work (its wall time minus the driver's device stand-in
/// time) and its wall time, ms.
#[derive(Default)]
pub struct Runs {
    host: Vec<f64>,
    wall: Vec<f64>,
}

impl Runs {
    /// Runs `f` once, timed; `device_ns` reads the replay drivers' running total of device stand-in
    /// time.
    pub fn time<T>(
        &mut self,
        device_ns: impl Fn() -> u64,
        f: impl FnOnce() -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        let device = device_ns();
        let start = Instant::now();
        let out = f()?;
        let wall = start.elapsed().as_nanos() as f64;
        let device = (device_ns() - device) as f64;
        self.host.push((wall - device) / 1e6);
        self.wall.push(wall / 1e6);
        Ok(out)
    }

    /// The row: medians over the runs and the host work's spread, `bytes` of pages per call.
    pub fn direction(self, bytes: usize) -> Direction {
        Direction {
            host_spread: spread(&self.host),
            host_ms: median(self.host),
            wall_ms: median(self.wall),
            bytes,
        }
    }
}

/// The median of `v` (the upper one for an even count).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// The slowest of `v` over the fastest, less 1 (0 for one value or a fastest of 0).
fn spread(v: &[f64]) -> f64 {
    let fastest = v.iter().copied().fold(f64::INFINITY, f64::min);
    let slowest = v.iter().copied().fold(0.0, f64::max);
    if fastest > 0.0 && fastest.is_finite() {
        slowest / fastest - 1.0
    } else {
        0.0
    }
}

/// One row in `--json` (keys in alphabetical order, as the report's).
#[derive(Serialize)]
pub struct DirectionJson {
    host_gbps: f64,
    host_ms: f64,
    host_ms_per_gib: f64,
    host_spread: f64,
    wall_ms: f64,
}

#[cfg(test)]
mod tests {
    use super::spread;

    #[test]
    fn spread_is_the_slowest_over_the_fastest_less_one() {
        assert!((spread(&[2.0, 3.0, 2.5]) - 0.5).abs() < 1e-12);
        assert_eq!(spread(&[4.0]), 0.0);
        assert_eq!(spread(&[]), 0.0);
        assert_eq!(spread(&[0.0, 1.0]), 0.0);
    }
}
