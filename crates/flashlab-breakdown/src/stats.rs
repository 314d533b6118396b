//! Per-phase statistics of one job: p50/p90/p99 and mean of each phase and of the total, and
//! each phase's share of the total latency (sum of the phase over the sum of totals, as btt's
//! "% of Q2C"), from exact per-request values (sorted, nearest rank).

use serde::Serialize;

/// Percentiles of one phase, in ns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Dist {
    pub mean_ns: f64,
    pub p50_ns: i64,
    pub p90_ns: i64,
    pub p99_ns: i64,
    pub min_ns: i64,
    pub max_ns: i64,
}

/// Nearest-rank percentile of sorted values.
pub fn percentile(sorted: &[i64], p: f64) -> i64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

impl Dist {
    pub fn of(values: &mut [i64]) -> Dist {
        if values.is_empty() {
            return Dist::default();
        }
        values.sort_unstable();
        let sum: i128 = values.iter().map(|&v| i128::from(v)).sum();
        Dist {
            mean_ns: sum as f64 / values.len() as f64,
            p50_ns: percentile(values, 50.0),
            p90_ns: percentile(values, 90.0),
            p99_ns: percentile(values, 99.0),
            min_ns: values[0],
            max_ns: values[values.len() - 1],
        }
    }
}

/// One phase of a job's breakdown.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PhaseStats {
    pub name: String,
    #[serde(flatten)]
    pub dist: Dist,
    /// Sum of this phase over the sum of the totals (0..1).
    pub share: f64,
}

/// The breakdown of one job.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Breakdown {
    /// Requests the statistics are over.
    pub requests: u64,
    pub phases: Vec<PhaseStats>,
    pub total: Dist,
}

impl Breakdown {
    /// Statistics of per-request phase values `rows` (each row: the phases of one request,
    /// which add up to its total) under the phase names `names`.
    pub fn from_rows<const N: usize>(names: [&str; N], rows: &[[i64; N]]) -> Breakdown {
        let mut totals: Vec<i64> = rows.iter().map(|r| r.iter().sum()).collect();
        let sum_total: i128 = totals.iter().map(|&v| i128::from(v)).sum();
        let phases = (0..N)
            .map(|i| {
                let mut v: Vec<i64> = rows.iter().map(|r| r[i]).collect();
                let sum: i128 = v.iter().map(|&x| i128::from(x)).sum();
                PhaseStats {
                    name: names[i].to_string(),
                    dist: Dist::of(&mut v),
                    share: if sum_total > 0 { sum as f64 / sum_total as f64 } else { 0.0 },
                }
            })
            .collect();
        Breakdown { requests: rows.len() as u64, phases, total: Dist::of(&mut totals) }
    }

    /// Share of the phases other than `device_phase` (the software's share).
    pub fn share_except(&self, device_phase: usize) -> f64 {
        self.phases.iter().enumerate().filter(|(i, _)| *i != device_phase).map(|(_, p)| p.share).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank() {
        let v: Vec<i64> = (1..=100).collect();
        assert_eq!(percentile(&v, 50.0), 50);
        assert_eq!(percentile(&v, 99.0), 99);
        assert_eq!(percentile(&v, 100.0), 100);
        assert_eq!(percentile(&[7], 90.0), 7);
        assert_eq!(percentile(&[], 90.0), 0);
    }

    #[test]
    fn shares_add_up() {
        let rows = [[10, 20, 60, 10], [20, 20, 140, 20]];
        let b = Breakdown::from_rows(["a", "b", "c", "d"], &rows);
        assert_eq!(b.requests, 2);
        assert_eq!(b.total.mean_ns, 150.0);
        assert_eq!(b.phases[2].dist.p50_ns, 60);
        assert_eq!(b.phases[2].dist.p99_ns, 140);
        assert!((b.phases[2].share - 200.0 / 300.0).abs() < 1e-12);
        let s: f64 = b.phases.iter().map(|p| p.share).sum();
        assert!((s - 1.0).abs() < 1e-12);
        assert!((b.share_except(2) - 100.0 / 300.0).abs() < 1e-12);
    }
}
