//! fio's rate limits (`rate`, `rate_iops`, `rate_process`): when a job's next I/O of a
//! direction may be issued, on any clock (virtual nanoseconds on a simulated target, wall
//! nanoseconds since the job started on a real one).
//!
//! As fio: each direction is paced on its own; `rate_iops` is turned into bytes/s with the
//! direction's smallest block size (HOWTO: "the smallest block size is used as the metric"),
//! so a 64 KiB I/O in a `bssplit` of 4 KiB and 64 KiB waits 16 times as long as a 4 KiB one;
//! with both `rate` and `rate_iops` the stricter wins. `linear` gives every I/O its
//! bytes ÷ rate of time, and a job that fell behind catches up (fio computes the due time of
//! the next I/O from the bytes done since the start). `poisson` draws exponential gaps of the
//! same mean (fio: "lambda = 10^6 / IOPS").

use rand_core::RngCore;

use crate::distribution::unit;
use crate::job::{IoDir, Job};

/// The pace of one job.
#[derive(Debug, Clone)]
pub struct Pacer {
    /// Nanoseconds per byte, per direction; 0 = unlimited.
    ns_per_byte: [f64; 3],
    poisson: bool,
    /// When the next I/O of each direction is due (ns on the caller's clock).
    due: [f64; 3],
}

impl Pacer {
    /// The pacer of `job` starting at time `start_ns`; `None` when the job is not rate limited.
    pub fn new(job: &Job, start_ns: u64) -> Option<Pacer> {
        if !job.rate_limited() {
            return None;
        }
        let mut ns_per_byte = [0.0; 3];
        for (i, d) in [IoDir::Read, IoDir::Write, IoDir::Trim].into_iter().enumerate() {
            let mut bps = f64::INFINITY;
            if job.rate[i] > 0 {
                bps = bps.min(job.rate[i] as f64);
            }
            if job.rate_iops[i] > 0 {
                bps = bps.min(job.rate_iops[i] as f64 * job.min_block_size(d).max(1) as f64);
            }
            if bps.is_finite() {
                ns_per_byte[i] = 1e9 / bps;
            }
        }
        Some(Pacer { ns_per_byte, poisson: job.rate_poisson, due: [start_ns as f64; 3] })
    }

    /// The earliest time the next I/O of `dir` may start (never before `now`).
    #[inline]
    pub fn due(&self, dir: IoDir, now: u64) -> u64 {
        (self.due[dir as usize].ceil() as u64).max(now)
    }

    /// Books an I/O of `len` bytes of `dir`: the next one is due a gap later.
    #[inline]
    pub fn issued<R: RngCore + ?Sized>(&mut self, dir: IoDir, len: u64, rng: &mut R) {
        let i = dir as usize;
        let mean = len as f64 * self.ns_per_byte[i];
        if mean == 0.0 {
            return;
        }
        let gap = if self.poisson { -(1.0 - unit(rng)).ln() * mean } else { mean };
        self.due[i] += gap;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::SeedableRng;

    #[test]
    fn linear_and_poisson_keep_the_mean() {
        let mut job = Job::new("r");
        job.rate_iops = [0, 1000, 1000];
        assert!(Pacer::new(&Job::new("x"), 0).is_none());
        let mut p = Pacer::new(&job, 0).unwrap();
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
        assert_eq!(p.due(IoDir::Read, 5), 5);
        for _ in 0..1000 {
            p.issued(IoDir::Write, 4096, &mut rng);
        }
        assert_eq!(p.due(IoDir::Write, 0), 1_000_000_000);
        job.rate_poisson = true;
        let mut p = Pacer::new(&job, 0).unwrap();
        let mut gaps = Vec::new();
        let mut last = 0;
        for _ in 0..20_000 {
            p.issued(IoDir::Write, 4096, &mut rng);
            let d = p.due(IoDir::Write, 0);
            gaps.push(d - last);
            last = d;
        }
        let mean = last as f64 / 20_000.0;
        assert!((mean - 1e6).abs() / 1e6 < 0.02, "{mean}");
        // Exponential: the s.d. equals the mean.
        let sd = (gaps.iter().map(|&g| (g as f64 - mean).powi(2)).sum::<f64>() / gaps.len() as f64).sqrt();
        assert!((sd / mean - 1.0).abs() < 0.05, "{sd} vs {mean}");
        // rate (bytes/s) and rate_iops: the stricter wins.
        job.rate_poisson = false;
        job.rate = [0, 1 << 20, 0];
        let mut p = Pacer::new(&job, 0).unwrap();
        p.issued(IoDir::Write, 4096, &mut rng);
        assert_eq!(p.due(IoDir::Write, 0), 3_906_250);
    }
}
