//! fio's steady-state detection (`steadystate`/`ss`, `ss_dur`, `ss_ramp`), read from fio's
//! `steadystate.c` and `stat.c` (fio 3.33): once a second the job's IOPS and bandwidth over
//! that second are recorded in a rolling window of `ss_dur` seconds; when the window is full,
//! the criterion is computed over it and the job stops as soon as it holds.
//!
//! - `iops` / `bw`: the largest deviation of a sample from the window's mean, in IOPS or
//!   bytes/s (or, with `%`, in per cent of the mean), must be below the limit.
//! - `iops_slope` / `bw_slope`: the least-squares slope of the samples against their index
//!   (per second), absolute or in per cent of the mean, must be below the limit in magnitude.
//!
//! Sampling starts once `ss_ramp` plus one sampling interval has passed since the job
//! started (fio counts from the job's start, `ramp_time` included). The clock is whatever the
//! caller's is: virtual on a simulated target, the wall clock on a real one. Pure arithmetic:
//! no I/O, no clock of its own, no allocation after [`SteadyTracker::new`].

use serde::{Deserialize, Serialize};

/// fio's default sampling interval (`steadystate_check_interval`, one second; fixed in fio
/// 3.33, an option since).
pub const CHECK_INTERVAL_NS: u64 = 1_000_000_000;

/// What steady state is judged on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum SsMetric {
    /// I/Os per second.
    #[default]
    Iops,
    /// Bytes per second.
    Bw,
    /// Mean completion latency of the interval's I/Os, ns (fio's `lat` / `lat_slope`, newer
    /// than fio 3.33).
    Lat,
}

/// A job's steady-state options, as fio reads them. Detection is on when `dur_s > 0`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SteadyState {
    /// IOPS or bandwidth.
    pub metric: SsMetric,
    /// The slope criterion (`*_slope`) rather than the largest deviation from the mean.
    pub slope: bool,
    /// The limit is a percentage of the window's mean.
    pub pct: bool,
    /// The limit: IOPS, bytes/s or per cent (per second for slopes).
    pub limit: f64,
    /// `ss_dur` in whole seconds (fio truncates); 0 = off (fio's default).
    pub dur_s: u64,
    /// `ss_ramp`: no samples before this, ns since the job started.
    pub ramp_ns: u64,
    /// `steadystate_check_interval` (`ss_interval`) in whole seconds: one sample per interval,
    /// `dur_s / interval_s` samples in the window. Default 1.
    #[serde(default = "one")]
    pub interval_s: u64,
}

fn one() -> u64 {
    1
}

impl Default for SteadyState {
    /// fio's default criterion `iops_slope:0.01%`, off (`ss_dur=0`).
    fn default() -> Self {
        SteadyState { metric: SsMetric::Iops, slope: true, pct: true, limit: 0.01, dur_s: 0, ramp_ns: 0, interval_s: 1 }
    }
}

impl SteadyState {
    /// Detection is on (`ss_dur` given).
    pub fn enabled(&self) -> bool {
        self.dur_s > 0
    }

    /// Reads fio's `steadystate=` value (`iops:5`, `iops_slope:0.1%`, `bw:10%`,
    /// `bw_slope:1m`, ...) into the criterion fields of `self`; an absolute bandwidth limit
    /// is a size read with `kb_base`.
    pub fn parse_criterion(&mut self, v: &str, kb_base: u32) -> Result<(), crate::Error> {
        use crate::Error;
        let bad = |what: &'static str, value: &str, expected: &str| Error::Bad {
            what,
            value: value.to_string(),
            expected: expected.to_string(),
        };
        let (name, limit) = v.split_once(':').ok_or_else(|| Error::Value {
            value: v.to_string(),
            problem: "fio needs a threshold after the criterion (e.g. 'iops_slope:0.1%')".into(),
        })?;
        let (metric, slope) = match name {
            "iops" => (SsMetric::Iops, false),
            "iops_slope" => (SsMetric::Iops, true),
            "bw" => (SsMetric::Bw, false),
            "bw_slope" => (SsMetric::Bw, true),
            "lat" => (SsMetric::Lat, false),
            "lat_slope" => (SsMetric::Lat, true),
            _ => return Err(bad("criterion", name, "iops, iops_slope, bw, bw_slope, lat or lat_slope")),
        };
        let limit = limit.trim();
        let (pct, value) = match limit.strip_suffix('%') {
            Some(p) => {
                (true, p.trim().parse::<f64>().map_err(|_| bad("percentage", limit, "a number before the '%'"))?)
            }
            None if metric == SsMetric::Iops => {
                (false, limit.parse::<f64>().map_err(|_| bad("IOPS threshold", limit, "a number"))?)
            }
            // fio reads an absolute latency limit as a number (ns, the unit of its samples).
            None if metric == SsMetric::Lat => {
                (false, limit.parse::<f64>().map_err(|_| bad("latency threshold", limit, "a number (ns)"))?)
            }
            None => (false, crate::units::parse_size(limit, kb_base)? as f64),
        };
        if !value.is_finite() || value < 0.0 {
            return Err(bad("threshold", limit, "a non-negative number"));
        }
        self.metric = metric;
        self.slope = slope;
        self.pct = pct;
        self.limit = value;
        Ok(())
    }

    /// fio's text of the criterion as its JSON prints it (`iops_slope:0.010000%`).
    pub fn fio_name(&self) -> String {
        format!(
            "{}{}:{:.6}{}",
            match self.metric {
                SsMetric::Iops => "iops",
                SsMetric::Bw => "bw",
                SsMetric::Lat => "lat",
            },
            if self.slope { "_slope" } else { "" },
            self.limit as f32,
            if self.pct { "%" } else { "" }
        )
    }
}

/// The steady-state window of one running job. Feed it the job's completed I/O counters
/// with [`SteadyTracker::advance`]; it says when the criterion holds.
#[derive(Debug, Clone)]
pub struct SteadyTracker {
    ss: SteadyState,
    /// When the job started (caller's clock, ns).
    start_ns: u64,
    /// The next sampling instant.
    next_ns: u64,
    /// Counters at the previous sampling instant.
    prev_bytes: u64,
    prev_ios: u64,
    prev_lat_sum: u128,
    prev_lat_ios: u64,
    /// The sampling interval, ns.
    interval_ns: u64,
    /// The window, oldest first once full (`len` valid entries, ring from `head`).
    bw: Vec<u64>,
    iops: Vec<u64>,
    lat: Vec<u64>,
    head: usize,
    len: usize,
    attained: bool,
    criterion: f64,
    slope: f64,
    deviation: f64,
}

impl SteadyTracker {
    /// A tracker for `ss` (which must be enabled) of a job started at `start_ns`.
    pub fn new(ss: SteadyState, start_ns: u64) -> SteadyTracker {
        let interval_s = ss.interval_s.max(1);
        let n = (ss.dur_s / interval_s).max(1) as usize;
        let interval_ns = interval_s * CHECK_INTERVAL_NS;
        SteadyTracker {
            ss,
            start_ns,
            next_ns: start_ns + interval_ns,
            prev_bytes: 0,
            prev_ios: 0,
            prev_lat_sum: 0,
            prev_lat_ios: 0,
            interval_ns,
            bw: vec![0; n],
            iops: vec![0; n],
            lat: vec![0; n],
            head: 0,
            len: 0,
            attained: false,
            criterion: 0.0,
            slope: 0.0,
            deviation: 0.0,
        }
    }

    /// Steady state was reached.
    pub fn attained(&self) -> bool {
        self.attained
    }

    /// The job's clock reads `now_ns` and it has completed `bytes` and `ios` in all (every
    /// direction, from its start), whose completion latencies add up to `lat_sum_ns` (the
    /// measured ones: after the ramp): take the samples of every sampling instant up to
    /// `now_ns` (the counters are those of the last instant: call this before counting an I/O
    /// that completes at `now_ns`). Returns true once steady state is attained; the job
    /// should stop.
    pub fn advance(&mut self, now_ns: u64, bytes: u64, ios: u64, lat_sum_ns: u128, lat_ios: u64) -> bool {
        while !self.attained && now_ns >= self.next_ns {
            let t = self.next_ns;
            self.next_ns += self.interval_ns;
            let (db, di) = (bytes - self.prev_bytes, ios - self.prev_ios);
            let dl = lat_sum_ns - self.prev_lat_sum;
            let dn = lat_ios - self.prev_lat_ios;
            self.prev_bytes = bytes;
            self.prev_ios = ios;
            self.prev_lat_sum = lat_sum_ns;
            self.prev_lat_ios = lat_ios;
            // fio: samples are taken once ss_ramp plus one interval has passed.
            if t - self.start_ns < self.ss.ramp_ns + self.interval_ns {
                continue;
            }
            // Rates per second (fio scales the interval's counts to a second); the latency is
            // the mean of the interval's completions (0 when none completed).
            let per_s = |d: u64| (u128::from(d) * 1_000_000_000 / u128::from(self.interval_ns)) as u64;
            let lat = if dn > 0 { (dl / u128::from(dn)) as u64 } else { 0 };
            self.sample(per_s(db), per_s(di), lat);
        }
        self.attained
    }

    fn sample(&mut self, bytes: u64, ios: u64, lat: u64) {
        let n = self.bw.len();
        if self.len < n {
            self.bw[self.len] = bytes;
            self.iops[self.len] = ios;
            self.lat[self.len] = lat;
            self.len += 1;
        } else {
            self.bw[self.head] = bytes;
            self.iops[self.head] = ios;
            self.lat[self.head] = lat;
            self.head = (self.head + 1) % n;
        }
        if self.len < n {
            return;
        }
        let ys = match self.ss.metric {
            SsMetric::Iops => &self.iops,
            SsMetric::Bw => &self.bw,
            SsMetric::Lat => &self.lat,
        };
        let y = |i: usize| ys[(self.head + i) % n] as f64;
        let nf = n as f64;
        let mean = (0..n).map(y).sum::<f64>() / nf;
        let value = if self.ss.slope {
            // Least squares against x = 0..n-1 (fio assumes equally spaced samples).
            let sum_x = nf * (nf - 1.0) / 2.0;
            let sum_x2 = (nf - 1.0) * nf * (2.0 * nf - 1.0) / 6.0;
            let sum_xy: f64 = (0..n).map(|i| i as f64 * y(i)).sum();
            let denom = sum_x2 - sum_x * sum_x / nf;
            self.slope = if denom > 0.0 { (sum_xy - sum_x * mean) / denom } else { 0.0 };
            self.slope
        } else {
            self.deviation = (0..n).map(|i| (y(i) - mean).abs()).fold(0.0, f64::max);
            self.deviation
        };
        self.criterion = if self.ss.pct {
            if mean > 0.0 {
                100.0 * value / mean
            } else {
                f64::INFINITY
            }
        } else {
            value
        };
        if self.criterion.abs() < self.ss.limit {
            self.attained = true;
        }
    }

    /// fio's `steadystate` JSON object for the job as it ends.
    pub fn report(&self) -> SteadyStateReport {
        let n = self.bw.len();
        // Oldest first; a window that never filled is padded with zeros, as fio prints it.
        let order = |v: &[u64]| -> Vec<u64> {
            if self.len < n {
                v.to_vec()
            } else {
                (0..n).map(|i| v[(self.head + i) % n]).collect()
            }
        };
        let (bw, iops, lat) = (order(&self.bw), order(&self.iops), order(&self.lat));
        let criterion = if self.criterion.is_finite() { self.criterion } else { 0.0 };
        SteadyStateReport {
            ss: self.ss.fio_name(),
            duration: self.ss.dur_s,
            attained: u8::from(self.attained),
            criterion: format!("{:.6}{}", criterion as f32, if self.ss.pct { "%" } else { "" }),
            max_deviation: self.deviation,
            slope: self.slope,
            data: SteadyStateData {
                bw_mean: bw.iter().sum::<u64>() / n as u64,
                iops_mean: iops.iter().sum::<u64>() / n as u64,
                iops,
                bw,
                lat_mean: (self.ss.metric == SsMetric::Lat).then(|| lat.iter().sum::<u64>() / n as u64),
                lat: (self.ss.metric == SsMetric::Lat).then_some(lat),
            },
        }
    }
}

/// fio's `jobs[].steadystate` object (fio 3.33 `stat.c`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadyStateReport {
    /// The criterion and limit, as fio prints them (`iops_slope:0.100000%`).
    pub ss: String,
    /// `ss_dur`, seconds.
    pub duration: u64,
    /// 1 when steady state was reached (and ended the job), else 0.
    pub attained: u8,
    /// The last value of the criterion (`0.051234%`).
    pub criterion: String,
    /// The largest deviation from the mean (deviation criteria; 0 for slopes).
    pub max_deviation: f64,
    /// The slope per second (slope criteria; 0 for deviations).
    pub slope: f64,
    /// The window's samples.
    pub data: SteadyStateData,
}

/// The samples of the steady-state window, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadyStateData {
    /// Mean of `bw`, bytes/s (integer, as fio).
    pub bw_mean: u64,
    /// Mean of `iops` (integer, as fio).
    pub iops_mean: u64,
    /// IOPS of each second.
    pub iops: Vec<u64>,
    /// Bytes/s of each second.
    pub bw: Vec<u64>,
    /// Mean of `lat`, ns (a latency criterion only, as fio writes it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lat_mean: Option<u64>,
    /// Mean completion latency of each interval, ns (a latency criterion only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lat: Option<Vec<u64>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ss(v: &str, dur: u64) -> SteadyState {
        let mut s = SteadyState { dur_s: dur, ..SteadyState::default() };
        s.parse_criterion(v, 1024).unwrap();
        s
    }

    /// Feed per-second IOPS values; returns the second at which it attained, if any.
    fn feed(t: &mut SteadyTracker, per_sec: &[u64]) -> Option<usize> {
        let (mut ios, mut bytes) = (0u64, 0u64);
        for (k, &v) in per_sec.iter().enumerate() {
            ios += v;
            bytes += v * 4096;
            if t.advance((k as u64 + 1) * CHECK_INTERVAL_NS + 1, bytes, ios, 0, 0) {
                return Some(k + 1);
            }
        }
        None
    }

    #[test]
    fn parses_fios_forms() {
        let s = ss("iops_slope:0.1%", 5);
        assert!(s.slope && s.pct && s.metric == SsMetric::Iops && s.limit == 0.1);
        assert_eq!(s.fio_name(), "iops_slope:0.100000%");
        let s = ss("bw:1m", 5);
        assert!(!s.slope && !s.pct && s.metric == SsMetric::Bw && s.limit == 1048576.0);
        assert_eq!(ss("iops:20", 3).limit, 20.0);
        let mut d = SteadyState::default();
        assert!(d.parse_criterion("iops", 1024).unwrap_err().to_string().contains("threshold"));
        assert!(d.parse_criterion("lat:5ms", 1024).is_err(), "fio reads an absolute latency limit in ns");
        let s = ss("lat:5%", 3);
        assert!(!s.slope && s.pct && s.metric == SsMetric::Lat);
        assert_eq!(s.fio_name(), "lat:5.000000%");
        assert_eq!(ss("lat_slope:2000", 3).limit, 2000.0);
        assert!(d.parse_criterion("frob:1", 1024).unwrap_err().to_string().contains("criterion"));
        assert!(d.parse_criterion("iops:x%", 1024).is_err());
    }

    #[test]
    fn slope_stops_once_the_window_is_flat() {
        // Falling for 5 s (GC catching up), then flat.
        let mut t = SteadyTracker::new(ss("iops_slope:1%", 4), 0);
        let at = feed(&mut t, &[5000, 4000, 3000, 2000, 1000, 1000, 1000, 1000, 1000, 1000]);
        // The first window of four flat seconds ends at second 8.
        assert_eq!(at, Some(8));
        let r = t.report();
        assert_eq!(r.attained, 1);
        assert_eq!(r.data.iops, vec![1000; 4]);
        assert_eq!(r.data.iops_mean, 1000);
        assert_eq!(r.data.bw_mean, 1000 * 4096);
        assert_eq!(r.slope, 0.0);
    }

    #[test]
    fn latency_deviation_over_ten_second_intervals() {
        // Window of 3 samples, one every 10 s; each interval's I/Os take `lat` ns on average.
        let mut s = ss("lat:5%", 30);
        s.interval_s = 10;
        let mut t = SteadyTracker::new(s, 0);
        let (mut ios, mut lat_sum) = (0u64, 0u128);
        let mut at = None;
        for (k, &lat) in [300_000u64, 200_000, 104_000, 100_000, 98_000, 99_000].iter().enumerate() {
            // 1000 I/Os per interval.
            ios += 1000;
            lat_sum += u128::from(lat) * 1000;
            if t.advance((k as u64 + 1) * 10 * CHECK_INTERVAL_NS + 1, ios * 4096, ios, lat_sum, ios) {
                at = Some(k + 1);
                break;
            }
        }
        // Windows: [300,200,104] no; [200,104,100] no; [104,100,98]: mean 100.67, deviation 3.3 %.
        assert_eq!(at, Some(5));
        let r = t.report();
        assert_eq!(r.data.lat.as_deref(), Some(&[104_000, 100_000, 98_000][..]));
        assert_eq!(r.data.lat_mean, Some(100_666));
        // IOPS are per second: 1000 I/Os in 10 s.
        assert_eq!(r.data.iops, vec![100; 3]);
    }

    #[test]
    fn slope_is_least_squares() {
        let mut t = SteadyTracker::new(ss("iops_slope:0.001%", 3), 0);
        assert_eq!(feed(&mut t, &[100, 110, 120]), None);
        assert!((t.report().slope - 10.0).abs() < 1e-9);
        // 10/110 = 9.09 %.
        assert_eq!(t.report().criterion, "9.090909%");
        assert_eq!(t.report().attained, 0);
    }

    #[test]
    fn deviation_uses_the_largest_departure_from_the_mean() {
        let mut t = SteadyTracker::new(ss("iops:15", 3), 0);
        // Window 100,120,110: mean 110, max deviation 10 < 15.
        assert_eq!(feed(&mut t, &[500, 100, 120, 110]), Some(4));
        assert_eq!(t.report().max_deviation, 10.0);
        assert_eq!(t.report().data.iops, vec![100, 120, 110]);
    }

    #[test]
    fn ramp_delays_sampling() {
        let mut s = ss("iops:1", 2);
        s.ramp_ns = 3 * CHECK_INTERVAL_NS;
        let mut t = SteadyTracker::new(s, 0);
        // Seconds 1..3 are ramp; samples from second 4 on (ramp + one interval).
        assert_eq!(feed(&mut t, &[1, 2, 3, 50, 50, 50]), Some(5));
    }

    #[test]
    fn an_unfilled_window_is_padded_and_not_attained() {
        let mut t = SteadyTracker::new(ss("iops:1000", 5), 0);
        assert_eq!(feed(&mut t, &[7, 7]), None);
        let r = t.report();
        assert_eq!(r.attained, 0);
        assert_eq!(r.data.iops, vec![7, 7, 0, 0, 0]);
    }

    #[test]
    fn job_files_read_it_and_bad_values_name_file_line_and_option() {
        let f = crate::parse_jobfile("s.fio", "[j]\nrw=randwrite\nss=bw_slope:1%\nss_dur=1m\nss_ramp=5\n").unwrap();
        let s = f.jobs[0].steadystate;
        assert!(s.enabled() && s.slope && s.pct && s.metric == SsMetric::Bw);
        assert_eq!((s.dur_s, s.ramp_ns), (60, 5 * CHECK_INTERVAL_NS));
        // ss alone: fio's default window 0 keeps it off.
        assert!(!crate::parse_jobfile("s.fio", "[j]\nss=iops:5\n").unwrap().jobs[0].steadystate.enabled());
        let e = crate::parse_jobfile("s.fio", "[j]\nrw=read\nss_dur=500ms\n").unwrap_err().to_string();
        assert!(e.contains("s.fio") && e.contains(":3") && e.contains("ss_dur"), "{e}");
        let e = crate::parse_jobfile("s.fio", "[j]\nss=lat:5ms\n").unwrap_err().to_string();
        assert!(e.contains(":2") && e.contains("ss"), "{e}");
    }
}
