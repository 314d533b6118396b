//! [`LatencySummary`]: the latency figures every report prints, taken from one histogram in
//! one place, so that every table and JSON document agrees: the exact mean and max, and
//! p50/p90/p99/p99.9/p99.99 (nearest rank, fio's buckets, clamped to the exact min and max, so
//! `max_us >= p9999_us >= p999_us >= p99_us >= p90_us >= p50_us` by construction).

use crate::histogram::LatencyHistogram;
use serde::{Deserialize, Serialize};

/// The percentiles a summary carries, in percent.
pub const SUMMARY_PERCENTILES: [f64; 5] = [50.0, 90.0, 99.0, 99.9, 99.99];

/// Latency figures in microseconds. All zero when nothing was recorded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencySummary {
    /// Number of latencies summarised.
    pub count: u64,
    /// Exact mean.
    pub mean_us: f64,
    /// Median (fio's percentile rule, to the histogram's bucket).
    pub p50_us: f64,
    /// 90th percentile.
    pub p90_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// 99.9th percentile.
    pub p999_us: f64,
    /// 99.99th percentile.
    pub p9999_us: f64,
    /// Exact largest latency.
    pub max_us: f64,
}

impl LatencySummary {
    /// The summary of everything `h` recorded (nanoseconds).
    pub fn of(h: &LatencyHistogram) -> LatencySummary {
        let p = h.percentiles(&SUMMARY_PERCENTILES);
        let us = |ns: u64| ns as f64 / 1e3;
        LatencySummary {
            count: h.count(),
            mean_us: h.mean() / 1e3,
            p50_us: us(p[0].1),
            p90_us: us(p[1].1),
            p99_us: us(p[2].1),
            p999_us: us(p[3].1),
            p9999_us: us(p[4].1),
            max_us: us(h.max()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordered_and_exact_at_the_ends() {
        let mut h = LatencyHistogram::new();
        for i in 0..10_000u64 {
            h.record(1_000 + i * 37 % 5_000_000);
        }
        let s = LatencySummary::of(&h);
        assert_eq!(s.count, 10_000);
        assert_eq!(s.max_us, h.max() as f64 / 1e3);
        assert!((s.mean_us - h.mean() / 1e3).abs() < 1e-9);
        let seq = [s.p50_us, s.p90_us, s.p99_us, s.p999_us, s.p9999_us, s.max_us];
        assert!(seq.windows(2).all(|w| w[0] <= w[1]), "{s:?}");
        assert_eq!(LatencySummary::of(&LatencyHistogram::new()), LatencySummary::default());
    }
}
