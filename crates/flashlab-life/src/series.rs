//! The time series a life run produces — one [`Sample`] per sampling interval — and the
//! lifetime projection from wear.
//!
//! Lifetime: the run's blocks have been erased `mean` times on average in `elapsed`; with a
//! budget of `pe_cycles` program/erase cycles per block and the same use, the device wears out
//! after `elapsed x pe_cycles / mean` (wear levelling assumed to even the blocks out; the
//! pessimistic `elapsed x pe_cycles / max` is given too). TBW: the host bytes written by then.

use crate::probe::ProbeResult;
use serde::Serialize;

/// P/E-cycle budgets by cell type when `--pe-cycles` is not given (typical datasheet classes:
/// SLC 100k, MLC 3k, TLC 1k, QLC 300).
pub fn default_pe_cycles(cell: &str) -> u32 {
    match cell {
        "slc" => 100_000,
        "mlc" => 3_000,
        "tlc" => 1_000,
        _ => 300,
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Sample {
    /// Virtual time, days since the start.
    pub day: f64,
    /// Cumulative host bytes written to the device (application data, fsync'd or not; not the
    /// probe's) and the NAND bytes programmed.
    pub host_write_bytes: u64,
    pub nand_write_bytes: u64,
    /// NAND / host writes since new, and over the last interval.
    pub waf: f64,
    pub waf_interval: f64,
    pub fs_used_bytes: u64,
    pub fs_capacity_bytes: u64,
    /// Data the device holds as valid (4 KiB units x 4096).
    pub device_valid_bytes: u64,
    pub logical_bytes: u64,
    /// Valid to the device but not in any file: deleted and never trimmed.
    pub deleted_valid_bytes: u64,
    pub free_blocks: u64,
    pub total_blocks: u64,
    pub erases_mean: f64,
    pub erases_max: u32,
    pub erases_min: u32,
    pub fstrims: u64,
    pub trimmed_bytes: u64,
    /// 99th percentile of the applications' small writes and of fsync over the interval, us.
    pub app_write_p99_us: Option<f64>,
    pub app_write_p999_us: Option<f64>,
    pub app_write_mean_us: Option<f64>,
    pub fsync_p99_us: Option<f64>,
    pub fsync_mean_us: Option<f64>,
    pub probe: Option<ProbeResult>,
    /// Projected lifetime in years from the mean and the maximum erase count (None before
    /// any erase).
    pub lifetime_years: Option<f64>,
    pub lifetime_years_worst_block: Option<f64>,
    /// Host TB written so far and projected at the end of the P/E budget (10^12 bytes).
    pub tbw_tb: f64,
    pub projected_tbw_tb: Option<f64>,
}

/// (years from the mean, years from the max, projected TBW) for wear after `days`.
pub fn project(days: f64, mean: f64, max: u32, pe: u32, host_bytes: u64) -> (Option<f64>, Option<f64>, Option<f64>) {
    if mean <= 0.0 || days <= 0.0 {
        return (None, None, None);
    }
    let years = days / 365.25;
    let f = f64::from(pe) / mean;
    let worst = (max > 0).then(|| years * f64::from(pe) / f64::from(max));
    (Some(years * f), worst, Some(host_bytes as f64 * f / 1e12))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projection() {
        // 10 erases per block in half a year with 3000 cycles: 300 half-years.
        let (y, w, tbw) = project(365.25 / 2.0, 10.0, 20, 3000, 1_000_000_000_000);
        assert!((y.unwrap() - 150.0).abs() < 1e-9);
        assert!((w.unwrap() - 75.0).abs() < 1e-9);
        assert!((tbw.unwrap() - 300.0).abs() < 1e-9);
        assert_eq!(project(10.0, 0.0, 0, 3000, 0), (None, None, None));
        assert_eq!(default_pe_cycles("tlc"), 1000);
    }
}
