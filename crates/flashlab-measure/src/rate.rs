//! Summary of per-interval rate samples (bandwidth in KiB/s, IOPS) kept the way fio keeps
//! its `bw_stat` / `iops_stat` (`struct io_stat`): min, max, running mean and sum of
//! squared deviations (Welford), and fio's `group_reporting` merge, which *adds* the
//! members' summaries so that a group's numbers describe the group's aggregate rate.

use serde::{Deserialize, Serialize};

/// Running summary of integer rate samples.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RateStats {
    samples: u64,
    /// `u64::MAX` while empty.
    min: u64,
    max: u64,
    mean: f64,
    /// Sum of squared deviations from the mean (fio's `S`).
    m2: f64,
}

impl Default for RateStats {
    fn default() -> Self {
        RateStats { samples: 0, min: u64::MAX, max: 0, mean: 0.0, m2: 0.0 }
    }
}

impl RateStats {
    /// An empty summary.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add one sample (fio's `add_stat_sample`).
    pub fn add(&mut self, v: u64) {
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        let x = v as f64;
        let delta = x - self.mean;
        self.mean += delta / (self.samples as f64 + 1.0);
        self.m2 += delta * (x - self.mean);
        self.samples += 1;
    }

    /// fio's `group_reporting` merge (`sum_stat(.., pure_sum = true)`): when both sides have
    /// samples, min, max, sample count, mean and `S` are *added*, so a group of jobs reports
    /// its aggregate rate (e.g. `bw_mean` of 4 jobs at 100 KiB/s is 400 KiB/s).
    pub fn merge_sum(&mut self, other: &RateStats) {
        if other.samples == 0 {
            return;
        }
        if self.samples == 0 {
            *self = other.clone();
            return;
        }
        self.min = self.min.saturating_add(other.min);
        self.max = self.max.saturating_add(other.max);
        self.samples += other.samples;
        self.mean += other.mean;
        self.m2 += other.m2;
    }

    /// Number of samples.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// Smallest sample; 0 when empty.
    pub fn min(&self) -> u64 {
        if self.samples == 0 {
            0
        } else {
            self.min
        }
    }

    /// Largest sample; 0 when empty.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// Mean; 0.0 when empty.
    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// Sample standard deviation `sqrt(S / (N - 1))`; 0.0 below two samples (fio's
    /// `calc_lat`).
    pub fn stddev(&self) -> f64 {
        if self.samples < 2 {
            0.0
        } else {
            (self.m2 / (self.samples as f64 - 1.0)).max(0.0).sqrt()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn welford_matches_two_pass() {
        let mut r = RateStats::new();
        assert_eq!((r.min(), r.max(), r.mean(), r.stddev()), (0, 0, 0.0, 0.0));
        for v in [2u64, 4, 4, 4, 5, 5, 7, 9] {
            r.add(v);
        }
        assert_eq!((r.samples(), r.min(), r.max()), (8, 2, 9));
        assert!((r.mean() - 5.0).abs() < 1e-12);
        assert!((r.stddev() - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn group_merge_adds() {
        let mut a = RateStats::new();
        let mut b = RateStats::new();
        for v in [100, 110] {
            a.add(v);
        }
        for v in [200, 220] {
            b.add(v);
        }
        let mut g = RateStats::new();
        g.merge_sum(&a);
        assert_eq!(g, a);
        g.merge_sum(&b);
        g.merge_sum(&RateStats::new());
        assert_eq!((g.samples(), g.min(), g.max()), (4, 300, 330));
        assert!((g.mean() - 315.0).abs() < 1e-12);
    }
}
