//! fio's `latency_target`, `latency_window`, `latency_percentile` and `latency_run`: the job
//! probes its queue depth for the deepest one whose completions meet the latency target, as
//! fio 3.33 does it (`io_u.c` `lat_target_init`, `lat_target_check`, `lat_target_success`,
//! `__lat_target_failed`):
//!
//! - the depth starts at 1, between a low of 1 and a high of `iodepth`;
//! - at the end of every window of `latency_window` (checked at each completion), if at least
//!   `latency_percentile` % of the window's I/Os met the target, the depth goes up (doubling
//!   until a depth failed, then bisecting towards the high, which creeps up by one after three
//!   stable windows), else down (bisecting towards the low);
//! - with `latency_percentile=100` a single I/O over the target lowers the depth at once (and
//!   at depth 1 fails the job with ETIMEDOUT, fio's "max latency exceeded");
//! - a depth lowered, the I/O in flight drains before any more is issued (fio's quiesce);
//! - without `latency_run`, once a success leaves the depth unchanged the statistics restart
//!   (one more window at the found depth is measured), and the next such success ends the job.
//!
//! Pure: no clock of its own (the engines pass theirs), no allocation.

use serde::{Deserialize, Serialize};

/// The options, as a job holds them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LatencyTarget {
    /// `latency_target` (ns; 0: off).
    pub target_ns: u64,
    /// `latency_window` (ns; fio's default 0: every completion ends a window).
    pub window_ns: u64,
    /// `latency_percentile` (default 100).
    pub percentile: f64,
    /// `latency_run`: keep probing for the whole run instead of stopping at the depth found.
    pub run: bool,
}

impl Default for LatencyTarget {
    fn default() -> Self {
        LatencyTarget { target_ns: 0, window_ns: 0, percentile: 100.0, run: false }
    }
}

impl LatencyTarget {
    /// A target is set.
    pub fn enabled(&self) -> bool {
        self.target_ns > 0
    }
}

/// What the engine must do after telling the probe about a completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Go on (issue up to [`DepthProbe::depth`]).
    Go,
    /// The depth was lowered: let the I/O in flight complete before issuing more.
    Quiesce,
    /// The depth was found: let the I/O in flight complete, then restart the job's statistics.
    ResetStats,
    /// The job is done (its final window at the found depth is over).
    Done,
    /// An I/O missed a 100 % target at depth 1: the job fails (fio: ETIMEDOUT).
    Fatal,
}

/// The queue-depth probe of one job.
#[derive(Debug, Clone)]
pub struct DepthProbe {
    o: LatencyTarget,
    iodepth: u32,
    qd: u32,
    low: u32,
    high: u32,
    stable: u32,
    end_run: bool,
    window_start: u64,
    window_ios: u64,
    failed: u64,
}

impl DepthProbe {
    /// The probe of a job of `iodepth`, starting at time `now` (ns, the engine's clock).
    pub fn new(o: LatencyTarget, iodepth: u32, now: u64) -> DepthProbe {
        let iodepth = iodepth.max(1);
        DepthProbe {
            o,
            iodepth,
            qd: 1,
            low: 1,
            high: iodepth,
            stable: 0,
            end_run: false,
            window_start: now,
            window_ios: 0,
            failed: 0,
        }
    }

    /// The depth to keep in flight now (fio's `latency_qd`, reported as `latency_depth`).
    pub fn depth(&self) -> u32 {
        self.qd
    }

    fn new_cycle(&mut self, now: u64) {
        self.window_start = now;
        self.window_ios = 0;
        self.failed = 0;
    }

    fn failed_now(&mut self, now: u64) -> Action {
        if self.qd == 1 {
            return Action::Fatal;
        }
        self.high = self.qd;
        if self.qd == self.low {
            self.low -= 1;
        }
        self.qd = ((self.qd + self.low) / 2).max(1);
        self.stable = 0;
        self.new_cycle(now);
        Action::Quiesce
    }

    fn success(&mut self, now: u64) -> Action {
        let qd = self.qd;
        self.low = self.qd;
        if self.qd + 1 == self.high {
            self.stable += 1;
            if self.stable >= 3 {
                self.high += 1;
                self.stable = 0;
            }
        }
        if self.high != self.iodepth {
            self.qd = (self.qd + self.high) / 2;
        } else {
            self.qd *= 2;
        }
        self.qd = self.qd.min(self.iodepth);
        let mut a = Action::Go;
        if !self.o.run && self.qd == qd {
            if self.end_run {
                a = Action::Done;
            } else {
                self.end_run = true;
                a = Action::ResetStats;
            }
        }
        self.new_cycle(now);
        a
    }

    /// A read or write completed at `now` after `lat_ns`: fio's completion check, then its
    /// window check.
    pub fn completed(&mut self, lat_ns: u64, now: u64) -> Action {
        self.window_ios += 1;
        if lat_ns > self.o.target_ns {
            if self.o.percentile >= 100.0 {
                match self.failed_now(now) {
                    Action::Fatal => return Action::Fatal,
                    a => return a,
                }
            }
            self.failed += 1;
        }
        if now.saturating_sub(self.window_start) < self.o.window_ns || self.window_ios == 0 {
            return Action::Go;
        }
        let ok = (self.window_ios - self.failed) as f64 * 100.0 / self.window_ios as f64;
        if ok >= self.o.percentile {
            self.success(now)
        } else {
            match self.failed_now(now) {
                // fio's window check ignores "give up" at depth 1, and keeps the window
                // going: the success rate is then over all I/O since the last change.
                Action::Fatal => Action::Go,
                a => a,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(pct: f64) -> DepthProbe {
        DepthProbe::new(LatencyTarget { target_ns: 1000, window_ns: 100, percentile: pct, run: false }, 32, 0)
    }

    #[test]
    fn doubles_until_a_failure_then_bisects_and_settles() {
        // Latency grows with depth: 100 ns per I/O in flight; the target (1000 ns) holds up
        // to depth 10.
        let mut p = probe(100.0);
        let mut t = 0;
        let mut seen = vec![];
        for _ in 0..10_000 {
            t += 50;
            let lat = 100 * u64::from(p.depth());
            match p.completed(lat, t) {
                Action::Done => break,
                Action::Fatal => panic!("fatal"),
                _ => {}
            }
            if seen.last() != Some(&p.depth()) {
                seen.push(p.depth());
            }
        }
        assert_eq!(&seen[..7], &[1, 2, 4, 8, 16, 12, 10], "{seen:?}");
        assert_eq!(p.depth(), 10, "{seen:?}");
    }

    #[test]
    fn a_miss_at_depth_one_is_fatal_only_at_100_percent() {
        let mut p = probe(100.0);
        assert_eq!(p.completed(5000, 1), Action::Fatal);
        let mut p = probe(99.0);
        assert_eq!(p.completed(5000, 1), Action::Go);
    }
}
