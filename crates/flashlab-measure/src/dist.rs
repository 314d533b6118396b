//! fio's coarse distributions, counted exactly: completion-latency bands (the
//! `latency_ns` / `latency_us` / `latency_ms` objects of fio's JSON, fio `io_u.c`
//! `io_u_mark_latency`) and I/O depth / submit / complete batch sizes (`iodepth_level`,
//! `iodepth_submit`, `iodepth_complete`, fio `io_u_mark_depth` / `__io_u_mark_map`).
//!
//! These are plain counters; turning them into fio's percentages is the report's job
//! ([`mod@crate::fio_json`]).

use serde::{Deserialize, Serialize};

/// JSON keys of the nanosecond and microsecond bands, in order. Each key is the band's
/// exclusive upper bound: `"2"` counts 0–1, `"4"` 2–3, `"10"` 4–9, … `"1000"` 750–999.
pub const LAT_NU_KEYS: [&str; 10] = ["2", "4", "10", "20", "50", "100", "250", "500", "750", "1000"];
/// JSON keys of the millisecond bands: as [`LAT_NU_KEYS`], then `"2000"` (1000–1999 ms)
/// and `">=2000"`.
pub const LAT_M_KEYS: [&str; 12] = ["2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000"];
/// JSON keys of `iodepth_level` (queue depth at submission: 1, 2–3, 4–7, … ≥ 64).
pub const DEPTH_KEYS: [&str; 7] = ["1", "2", "4", "8", "16", "32", ">=64"];
/// JSON keys of `iodepth_submit` / `iodepth_complete` (I/Os per call: 0, 1–4, 5–8, 9–16,
/// 17–32, 33–64, > 64).
pub const BATCH_KEYS: [&str; 7] = ["0", "4", "8", "16", "32", "64", ">=64"];

/// Band of a value below 1000 (ns, µs or ms): lower bounds 2, 4, 10, 20, 50, 100, 250,
/// 500, 750.
#[inline]
fn band_below_1000(v: u64) -> usize {
    const LOWER: [u64; 9] = [2, 4, 10, 20, 50, 100, 250, 500, 750];
    LOWER.iter().take_while(|&&b| v >= b).count()
}

/// Completion latencies counted into fio's fixed bands (exact, unlike the histogram's
/// buckets near band edges).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatencyBands {
    /// Latencies below 1 µs, by ns band ([`LAT_NU_KEYS`]).
    pub nsec: [u64; 10],
    /// Latencies of 1 µs up to 1 ms, by whole-µs band ([`LAT_NU_KEYS`]).
    pub usec: [u64; 10],
    /// Latencies of 1 ms and more, by whole-ms band ([`LAT_M_KEYS`]).
    pub msec: [u64; 12],
}

impl LatencyBands {
    /// Count one latency of `ns` nanoseconds.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        if ns < 1_000 {
            self.nsec[band_below_1000(ns)] += 1;
        } else if ns < 1_000_000 {
            self.usec[band_below_1000(ns / 1_000)] += 1;
        } else {
            let ms = ns / 1_000_000;
            let i = match ms {
                0..=999 => band_below_1000(ms),
                1_000..=1_999 => 10,
                _ => 11,
            };
            self.msec[i] += 1;
        }
    }

    /// Add `other`'s counts.
    pub fn merge(&mut self, other: &LatencyBands) {
        add_into(&mut self.nsec, &other.nsec);
        add_into(&mut self.usec, &other.usec);
        add_into(&mut self.msec, &other.msec);
    }

    /// Number of latencies counted.
    pub fn total(&self) -> u64 {
        self.nsec.iter().chain(&self.usec).chain(&self.msec).sum()
    }
}

/// Queue-depth and batch-size counters, as fio keeps them per job.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepthDist {
    /// I/Os submitted while the job had 1, 2–3, 4–7, 8–15, 16–31, 32–63, ≥ 64 in flight
    /// ([`DEPTH_KEYS`]); fio's `io_u_map`.
    pub depth: [u64; 7],
    /// Submit calls that carried 0, 1–4, 5–8, 9–16, 17–32, 33–64, > 64 I/Os
    /// ([`BATCH_KEYS`]); fio's `io_u_submit`.
    pub submit: [u64; 7],
    /// Reaping calls that returned 0, 1–4, … I/Os ([`BATCH_KEYS`]); fio's `io_u_complete`.
    pub complete: [u64; 7],
    /// Number of submit calls.
    pub total_submit: u64,
    /// Number of reaping calls.
    pub total_complete: u64,
}

#[inline]
fn batch_bucket(nr: u64) -> usize {
    match nr {
        0 => 0,
        1..=4 => 1,
        5..=8 => 2,
        9..=16 => 3,
        17..=32 => 4,
        33..=64 => 5,
        _ => 6,
    }
}

impl DepthDist {
    /// `nr` I/Os were submitted while `in_flight` I/Os (including them) were outstanding.
    #[inline]
    pub fn mark_depth(&mut self, in_flight: u64, nr: u64) {
        let i = match in_flight {
            0..=1 => 0,
            2..=3 => 1,
            4..=7 => 2,
            8..=15 => 3,
            16..=31 => 4,
            32..=63 => 5,
            _ => 6,
        };
        self.depth[i] += nr;
    }

    /// One submit call carried `nr` I/Os.
    #[inline]
    pub fn mark_submit(&mut self, nr: u64) {
        self.submit[batch_bucket(nr)] += 1;
        self.total_submit += 1;
    }

    /// One reaping call returned `nr` completions.
    #[inline]
    pub fn mark_complete(&mut self, nr: u64) {
        self.complete[batch_bucket(nr)] += 1;
        self.total_complete += 1;
    }

    /// Add `other`'s counts.
    pub fn merge(&mut self, other: &DepthDist) {
        add_into(&mut self.depth, &other.depth);
        add_into(&mut self.submit, &other.submit);
        add_into(&mut self.complete, &other.complete);
        self.total_submit += other.total_submit;
        self.total_complete += other.total_complete;
    }
}

fn add_into(dst: &mut [u64], src: &[u64]) {
    for (a, b) in dst.iter_mut().zip(src) {
        *a += *b;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_band_edges() {
        let mut b = LatencyBands::default();
        for ns in [0, 1, 2, 3, 4, 9, 10, 749, 750, 999] {
            b.record(ns);
        }
        assert_eq!(b.nsec, [2, 2, 2, 1, 0, 0, 0, 0, 1, 2]);
        b = LatencyBands::default();
        for ns in [1_000, 1_999, 2_000, 999_999] {
            b.record(ns);
        }
        assert_eq!(b.usec, [2, 1, 0, 0, 0, 0, 0, 0, 0, 1]);
        b = LatencyBands::default();
        for ns in [1_000_000, 999_999_999, 1_000_000_000, 1_999_999_999, 2_000_000_000, u64::MAX] {
            b.record(ns);
        }
        assert_eq!(b.msec, [1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 2]);
        assert_eq!(b.total(), 6);
        let mut c = b.clone();
        c.merge(&b);
        assert_eq!(c.total(), 12);
    }

    #[test]
    fn depth_and_batch_buckets() {
        let mut d = DepthDist::default();
        d.mark_depth(1, 1);
        d.mark_depth(3, 2);
        d.mark_depth(32, 1);
        d.mark_depth(64, 1);
        assert_eq!(d.depth, [1, 2, 0, 0, 0, 1, 1]);
        for nr in [0, 1, 4, 5, 64, 65] {
            d.mark_submit(nr);
            d.mark_complete(nr);
        }
        assert_eq!(d.submit, [1, 2, 1, 0, 0, 1, 1]);
        assert_eq!(d.total_submit, 6);
        assert_eq!(d.complete, d.submit);
    }
}
