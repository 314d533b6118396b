//! The time series a life run produces — one [`Sample`] per sampling interval — and the
//! lifetime projection from wear.
//!
//! Lifetime: the P/E cycles the run has used per block on average is what the NAND took —
//! the bytes programmed over the physical bytes (a block programmed and not yet erased has
//! used its cycle already) — and never less than the mean erase count. With a budget of
//! `pe_cycles` per block and the same use, the device wears out after
//! `elapsed x pe_cycles / used` (wear levelling assumed to even the blocks out; the pessimistic
//! `elapsed x pe_cycles / max(max erases, used)` is given too). TBW: the host bytes written by
//! then, which is at most physical bytes x pe_cycles / WAF of the run — the physical ceiling.
//! (Counting erases alone lags the programs by up to a device's worth on a new device, and so
//! projected up to hundreds of times more than the NAND can take.)

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

/// The state of the simulated phone at one point of a life run.
#[derive(Debug, Clone, Serialize)]
pub struct Sample {
    /// Virtual time, days since the start.
    pub day: f64,
    /// Cumulative host bytes written to the device (application data, fsync'd or not; not the
    /// probe's) and the NAND bytes programmed.
    pub host_write_bytes: u64,
    /// Cumulative NAND bytes programmed (GC copies included).
    pub nand_write_bytes: u64,
    /// NAND / host writes since new, and over the last interval.
    pub waf: f64,
    /// NAND / host writes over the last interval.
    pub waf_interval: f64,
    /// Bytes the filesystem holds in files.
    pub fs_used_bytes: u64,
    /// The filesystem's capacity, in bytes.
    pub fs_capacity_bytes: u64,
    /// Data the device holds as valid (4 KiB units x 4096).
    pub device_valid_bytes: u64,
    /// The device's logical capacity, in bytes.
    pub logical_bytes: u64,
    /// Valid to the device but not in any file: deleted and never trimmed.
    pub deleted_valid_bytes: u64,
    /// Erase blocks free (erased, not yet written).
    pub free_blocks: u64,
    /// Erase blocks in the device.
    pub total_blocks: u64,
    /// Mean erase count per block.
    pub erases_mean: f64,
    /// Highest erase count of a block.
    pub erases_max: u32,
    /// Lowest erase count of a block.
    pub erases_min: u32,
    /// fstrims run so far.
    pub fstrims: u64,
    /// Bytes the fstrims so far trimmed.
    pub trimmed_bytes: u64,
    /// 99th percentile of the applications' small writes and of fsync over the interval, us.
    pub app_write_p99_us: Option<f64>,
    /// 99.9th percentile of the applications' small writes over the interval, µs.
    pub app_write_p999_us: Option<f64>,
    /// Mean of the applications' small writes over the interval, µs.
    pub app_write_mean_us: Option<f64>,
    /// 99th percentile of fsync over the interval, µs.
    pub fsync_p99_us: Option<f64>,
    /// Mean fsync latency over the interval, µs.
    pub fsync_mean_us: Option<f64>,
    /// The random-write probe's result, when one ran at this sample.
    pub probe: Option<ProbeResult>,
    /// Projected lifetime in years from the mean and the maximum erase count (None before
    /// any erase).
    pub lifetime_years: Option<f64>,
    /// Projected lifetime in years from the most-erased block (None before any erase).
    pub lifetime_years_worst_block: Option<f64>,
    /// Host TB written so far and projected at the end of the P/E budget (10^12 bytes).
    pub tbw_tb: f64,
    /// Projected host TB written when the P/E budget is used up (10^12 bytes).
    pub projected_tbw_tb: Option<f64>,
}

/// P/E cycles used per block on average: NAND bytes programmed over physical bytes, at least
/// the mean erase count.
pub fn cycles_used(nand_bytes: u64, physical_bytes: u64, mean_erases: f64) -> f64 {
    (nand_bytes as f64 / physical_bytes.max(1) as f64).max(mean_erases)
}

/// (years from the mean, years from the worst block, projected TBW) after `days` in which each
/// block used `used` P/E cycles on average ([`cycles_used`]) and the most erased block was
/// erased `max` times.
pub fn project(days: f64, used: f64, max: u32, pe: u32, host_bytes: u64) -> (Option<f64>, Option<f64>, Option<f64>) {
    if used <= 0.0 || days <= 0.0 {
        return (None, None, None);
    }
    let years = days / 365.25;
    let f = f64::from(pe) / used;
    let worst = years * f64::from(pe) / f64::from(max).max(used);
    (Some(years * f), Some(worst), Some(host_bytes as f64 * f / 1e12))
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
        // Programs count before the erases: a new device written once over has used a cycle.
        assert_eq!(cycles_used(1000, 1000, 0.0), 1.0);
        assert_eq!(cycles_used(1000, 1000, 2.5), 2.5);
        // With programs as wear, TBW is the physical ceiling: physical x pe / WAF.
        let (host, nand, phys) = (4_000_000u64, 5_000_000u64, 1_000_000u64);
        let (_, _, t) = project(1.0, cycles_used(nand, phys, 0.0), 0, 3000, host);
        let ceiling = phys as f64 * 3000.0 / (nand as f64 / host as f64) / 1e12;
        assert!((t.unwrap() - ceiling).abs() <= 1e-12 * ceiling);
        assert_eq!(default_pe_cycles("tlc"), 1000);
    }
}
