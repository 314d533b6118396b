//! What one job measured: per-direction I/O statistics ([`DirStats`] for read, write and
//! trim), sync statistics, CPU and depth counters, gathered in a [`JobResult`] — the input
//! of every report. Fields mirror fio's `struct thread_stat`; times are in nanoseconds
//! (virtual for simulated targets, real otherwise).

use crate::dist::{DepthDist, LatencyBands};
use crate::histogram::LatencyHistogram;
use crate::rate::RateStats;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// An I/O direction that moves (or discards) data, as fio's `DDIR_READ/WRITE/TRIM`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Ddir {
    /// Reads.
    Read,
    /// Writes.
    Write,
    /// Trims (discards).
    Trim,
}

impl Ddir {
    /// All three, in fio's order.
    pub const ALL: [Ddir; 3] = [Ddir::Read, Ddir::Write, Ddir::Trim];

    /// fio's name: `"read"`, `"write"`, `"trim"`.
    pub fn name(self) -> &'static str {
        match self {
            Ddir::Read => "read",
            Ddir::Write => "write",
            Ddir::Trim => "trim",
        }
    }
}

/// One bandwidth/IOPS sampling interval: what completed in `(end_ns - duration_ns, end_ns]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interval {
    /// End of the interval, ns since the job started.
    pub end_ns: u64,
    /// Length of the interval, ns.
    pub duration_ns: u64,
    /// Bytes completed in the interval.
    pub bytes: u64,
    /// I/Os completed in the interval.
    pub ios: u64,
    /// Sum of the completion latencies of those I/Os, ns (for the interval's mean latency).
    #[serde(default)]
    pub lat_ns_sum: u64,
    /// Largest completion latency in the interval, ns.
    #[serde(default)]
    pub lat_ns_max: u64,
}

impl Interval {
    /// Mean completion latency of the interval's I/Os, ns (`None` when none completed).
    pub fn mean_lat_ns(&self) -> Option<f64> {
        (self.ios > 0).then(|| self.lat_ns_sum as f64 / self.ios as f64)
    }

    /// Bandwidth sample as fio computes it: KiB/s, truncated (`bytes·1000/ms/1024`; here
    /// from ns). `None` when nothing moved or the interval is empty (fio skips those).
    pub fn bw_kib_per_sec(&self) -> Option<u64> {
        if self.bytes == 0 || self.duration_ns == 0 {
            return None;
        }
        let v = self.bytes as u128 * 1_000_000_000 / self.duration_ns as u128 / 1024;
        Some(v.min(u64::MAX as u128) as u64)
    }

    /// IOPS sample as fio computes it: I/Os per second, truncated. `None` when no I/O
    /// completed or the interval is empty.
    pub fn iops(&self) -> Option<u64> {
        if self.ios == 0 || self.duration_ns == 0 {
            return None;
        }
        let v = self.ios as u128 * 1_000_000_000 / self.duration_ns as u128;
        Some(v.min(u64::MAX as u128) as u64)
    }
}

/// Statistics of one I/O direction of one job (fio's per-`ddir` slice of `thread_stat`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DirStats {
    /// Completion latency: issue → completion (fio `clat`).
    pub clat: LatencyHistogram,
    /// Submission latency: creation → issue (fio `slat`); may stay empty.
    pub slat: LatencyHistogram,
    /// Total latency: creation → completion (fio `lat`).
    pub lat: LatencyHistogram,
    /// Completion latencies in fio's fixed bands (`latency_ns/us/ms`).
    pub clat_bands: LatencyBands,
    /// Bytes transferred.
    pub io_bytes: u64,
    /// I/Os done (fio `total_ios`).
    pub ios: u64,
    /// Short I/Os (fewer bytes than asked).
    pub short_ios: u64,
    /// Dropped I/Os.
    pub drop_ios: u64,
    /// Time this direction was active, ns (fio `runtime`, which it keeps in ms).
    pub runtime_ns: u64,
    /// Bandwidth/IOPS sampling intervals, in order (time series for charts).
    pub intervals: Vec<Interval>,
    /// Summary of the per-interval bandwidth samples, KiB/s (fio `bw_stat`).
    pub bw_stat: RateStats,
    /// Summary of the per-interval IOPS samples (fio `iops_stat`).
    pub iops_stat: RateStats,
    /// Completion latencies per I/O priority (fio's `clat_prio`, JSON `prios`): one entry per
    /// distinct priority the job's per-command priorities use in this direction, the job's own
    /// first; empty without per-command priorities.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prios: Vec<PrioStat>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The completion latencies of one I/O priority of one direction (fio's `clat_prio_stat`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PrioStat {
    /// Linux's ioprio value: class << 13 | hint << 3 | level.
    pub ioprio: u16,
    /// Completion latencies of the I/Os sent with it.
    pub clat: LatencyHistogram,
}

impl PrioStat {
    /// The class (ioprio >> 13).
    pub fn class(&self) -> u32 {
        u32::from(self.ioprio >> 13)
    }

    /// The level (the low three bits).
    pub fn level(&self) -> u32 {
        u32::from(self.ioprio & 7)
    }

    /// The hint (bits 3 to 12).
    pub fn hint(&self) -> u32 {
        u32::from((self.ioprio >> 3) & 0x3ff)
    }

    /// fio's name of it in text output: `class/level`, or `class/level/hint` with a hint.
    pub fn label(&self) -> String {
        match self.hint() {
            0 => format!("{}/{}", self.class(), self.level()),
            h => format!("{}/{}/{h}", self.class(), self.level()),
        }
    }
}

/// Most intervals one direction keeps (see [`DirStats::record_interval`]).
pub const MAX_INTERVALS: usize = 4096;

/// Merge the older half of `ivs` pairwise: bytes, I/Os, latency sums and durations add, the
/// maximum latency is the larger one, the end is the later one.
fn decimate(ivs: &mut Vec<Interval>) {
    let half = ivs.len() / 2;
    let mut out = Vec::with_capacity(ivs.len());
    let mut it = ivs[..half].chunks(2);
    for c in &mut it {
        let mut m = c[0];
        if let Some(b) = c.get(1) {
            m.end_ns = b.end_ns;
            m.duration_ns += b.duration_ns;
            m.bytes += b.bytes;
            m.ios += b.ios;
            m.lat_ns_sum += b.lat_ns_sum;
            m.lat_ns_max = m.lat_ns_max.max(b.lat_ns_max);
        }
        out.push(m);
    }
    out.extend_from_slice(&ivs[half..]);
    *ivs = out;
}

impl DirStats {
    /// Empty statistics.
    pub fn new() -> Self {
        Self::default()
    }

    /// Account one finished I/O of `bytes` bytes: completion latency `clat_ns` (into the
    /// histogram and the bands), total latency `lat_ns`.
    #[inline]
    pub fn record_io(&mut self, bytes: u64, clat_ns: u64, lat_ns: u64) {
        self.io_bytes += bytes;
        self.ios += 1;
        self.clat.record(clat_ns);
        self.clat_bands.record(clat_ns);
        self.lat.record(lat_ns);
    }

    /// [`DirStats::record_io`] of an I/O whose completion latency is its total latency (no
    /// submission latency, as on the simulated clock): both histograms take `lat_ns` with its
    /// bucket and square worked out once.
    #[inline]
    pub fn record_io_same(&mut self, bytes: u64, lat_ns: u64) {
        self.io_bytes += bytes;
        self.ios += 1;
        LatencyHistogram::record_both(&mut self.clat, &mut self.lat, lat_ns);
        self.clat_bands.record(lat_ns);
    }

    /// Account one submission latency.
    #[inline]
    pub fn record_slat(&mut self, ns: u64) {
        self.slat.record(ns);
    }

    /// Close a sampling interval: keep it in [`intervals`](Self::intervals) and add its
    /// bandwidth and IOPS samples (when non-empty, as fio) to the summaries.
    ///
    /// The series is bounded: at [`MAX_INTERVALS`] the older half is merged pairwise (each
    /// interval keeps its own end and duration, so the series stays exact, only coarser), so
    /// a long run keeps a few thousand intervals instead of one per window of the whole run.
    /// The summaries see every interval.
    pub fn record_interval(&mut self, iv: Interval) {
        if let Some(bw) = iv.bw_kib_per_sec() {
            self.bw_stat.add(bw);
        }
        if let Some(iops) = iv.iops() {
            self.iops_stat.add(iops);
        }
        if self.intervals.len() >= MAX_INTERVALS {
            decimate(&mut self.intervals);
        }
        self.intervals.push(iv);
    }

    /// Mean bandwidth over the runtime, bytes/s (exact, from ns); 0.0 without runtime.
    pub fn bw_bytes_per_sec(&self) -> f64 {
        if self.runtime_ns == 0 {
            0.0
        } else {
            self.io_bytes as f64 * 1e9 / self.runtime_ns as f64
        }
    }

    /// Mean IOPS over the runtime; 0.0 without runtime.
    pub fn iops(&self) -> f64 {
        if self.runtime_ns == 0 {
            0.0
        } else {
            self.ios as f64 * 1e9 / self.runtime_ns as f64
        }
    }

    /// True when this direction did no I/O.
    pub fn is_idle(&self) -> bool {
        self.ios == 0 && self.io_bytes == 0
    }

    /// Fold another job's statistics in, as fio's `group_reporting` does
    /// (`sum_thread_stats`): latencies pool, byte and I/O counts add, runtime is the longer
    /// one, bandwidth/IOPS summaries add ([`RateStats::merge_sum`]); intervals are appended.
    pub fn merge(&mut self, other: &DirStats) {
        self.clat.merge(&other.clat);
        self.slat.merge(&other.slat);
        self.lat.merge(&other.lat);
        self.clat_bands.merge(&other.clat_bands);
        self.io_bytes += other.io_bytes;
        self.ios += other.ios;
        self.short_ios += other.short_ios;
        self.drop_ios += other.drop_ios;
        self.runtime_ns = self.runtime_ns.max(other.runtime_ns);
        self.intervals.extend_from_slice(&other.intervals);
        self.bw_stat.merge_sum(&other.bw_stat);
        self.iops_stat.merge_sum(&other.iops_stat);
        // fio's sum_thread_stats pools the latencies of equal priorities.
        for p in &other.prios {
            match self.prios.iter_mut().find(|q| q.ioprio == p.ioprio) {
                Some(q) => q.clat.merge(&p.clat),
                None => self.prios.push(p.clone()),
            }
        }
    }

    /// Per-priority statistics for the priorities `ioprios` (slot order), replacing any.
    pub fn init_prios(&mut self, ioprios: &[u16]) {
        self.prios = ioprios.iter().map(|&ioprio| PrioStat { ioprio, clat: LatencyHistogram::new() }).collect();
    }

    /// Account a completion latency to the priority in `slot` (see [`DirStats::init_prios`]);
    /// nothing without per-priority statistics.
    #[inline]
    pub fn record_prio(&mut self, slot: u8, clat_ns: u64) {
        if let Some(p) = self.prios.get_mut(slot as usize) {
            p.clat.record(clat_ns);
        }
    }
}

/// fsync / fdatasync / sync_file_range statistics (fio's `"sync"` object).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SyncStats {
    /// Latency of each sync call.
    pub lat: LatencyHistogram,
    /// Number of sync calls.
    pub total_ios: u64,
}

impl SyncStats {
    /// Account one sync call that took `ns`.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.lat.record(ns);
        self.total_ios += 1;
    }

    /// Add another job's sync statistics.
    pub fn merge(&mut self, other: &SyncStats) {
        self.lat.merge(&other.lat);
        self.total_ios += other.total_ios;
    }
}

/// CPU usage of a job's process/thread. All zero when not measured (always, for simulated
/// targets): reports then print 0, never an estimate.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuUsage {
    /// User CPU time, ns.
    pub usr_ns: u64,
    /// System CPU time, ns.
    pub sys_ns: u64,
    /// Context switches.
    pub ctx: u64,
    /// Major page faults.
    pub majf: u64,
    /// Minor page faults.
    pub minf: u64,
}

impl CpuUsage {
    /// Add another job's usage.
    pub fn merge(&mut self, other: &CpuUsage) {
        self.usr_ns += other.usr_ns;
        self.sys_ns += other.sys_ns;
        self.ctx += other.ctx;
        self.majf += other.majf;
        self.minf += other.minf;
    }
}

/// Everything one job (or one `group_reporting` group) measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    /// Job name (fio `jobname`).
    pub name: String,
    /// Reporting group (fio `groupid`).
    pub groupid: u32,
    /// First error (errno-style); 0 when none.
    pub error: i32,
    /// Start of the job, ms since the Unix epoch (fio ≥ 3.3x `job_start`); `None` when
    /// unknown, e.g. on a virtual clock.
    pub job_start_ms: Option<u64>,
    /// Configured queue depth; when known, reports carry fio's `latency_depth` and the
    /// no-latency-target `latency_*` keys.
    pub iodepth: Option<u32>,
    /// Reads (fio's `read` object).
    pub read: DirStats,
    /// Writes (fio's `write` object).
    pub write: DirStats,
    /// Trims (fio's `trim` object).
    pub trim: DirStats,
    /// fsyncs (fio's `sync` object).
    pub sync: SyncStats,
    /// Wall (or virtual) time the job ran, ns (fio `job_runtime`, kept in ms).
    pub job_runtime_ns: u64,
    /// CPU usage; zeros when not measured.
    pub cpu: CpuUsage,
    /// Queue depth and batch-size counters; zeros when not counted.
    pub depth: DepthDist,
    /// Job options as given, name → value (fio `"job options"`).
    pub options: BTreeMap<String, String>,
    /// Extra measurements (device counters: host writes, NAND programs, erases, WAF …);
    /// reported as `"flashlab_device"`.
    pub extra: Option<serde_json::Value>,
    /// fio's `steadystate` object, when the job had `ss_dur` (see
    /// `flashlab_jobs::steadystate`); reported under that key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steadystate: Option<serde_json::Value>,
    /// Data verification (fio's `verify`), when the job verified; reported as
    /// `"flashlab_verify"`, and with `continue_on_error` as fio's `total_err`/`first_error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<crate::verify::VerifySummary>,
    /// The job continued after errors (fio's `continue_on_error`): fio then reports
    /// `total_err` and `first_error`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub continue_on_error: bool,
    /// I/O errors the job went on after (fio's `continue_on_error`/`ignore_error`), counted
    /// in fio's `total_err` with the verify errors.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub io_errors: u64,
    /// A job over several files: the I/O each file was given (fio reports only the job);
    /// reported as `"flashlab_files"`. Empty for a job with one file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileIo>,
    /// fio's `latency_target` probe, when the job had one: reported as fio's `latency_depth`,
    /// `latency_target`, `latency_percentile`, `latency_window`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_probe: Option<LatencyProbe>,
    /// fio's `zonemode=zbd` write or trim job: the zone resets it did (fio's `zone_resets`).
    /// `None` for any other job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone_resets: Option<u64>,
    /// fio's `unified_rw_reporting`: how the directions are reported.
    #[serde(default, skip_serializing_if = "UnifiedRw::is_split")]
    pub unified_rw: UnifiedRw,
}

/// fio's `unified_rw_reporting` (`stat.c`'s `UNIFIED_SPLIT`, `UNIFIED_MIXED`, `UNIFIED_BOTH`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnifiedRw {
    /// `none`: one object per direction (`read`, `write`, `trim`) and `sync`.
    #[default]
    Split,
    /// `mixed`: the three directions summed into one object, `mixed`, in their place (and no
    /// `sync` object, as fio 3.33 prints it).
    Mixed,
    /// `both`: the directions and `sync`, then `mixed`.
    Both,
}

impl UnifiedRw {
    /// fio's value of the option (0, 1, 2).
    pub fn from_fio(v: u8) -> UnifiedRw {
        match v {
            1 => UnifiedRw::Mixed,
            2 => UnifiedRw::Both,
            _ => UnifiedRw::Split,
        }
    }

    fn is_split(&self) -> bool {
        *self == UnifiedRw::Split
    }
}

/// The outcome of a job's `latency_target` probe.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyProbe {
    /// The queue depth the probe ended at (fio's `latency_depth`).
    pub depth: u32,
    /// `latency_target`, ns.
    pub target_ns: u64,
    /// `latency_window`, ns.
    pub window_ns: u64,
    /// `latency_percentile`.
    pub percentile: f64,
}

/// The I/O one file of a job over several files was given (issued, ramp included).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileIo {
    /// The file's name.
    pub name: String,
    /// I/Os per direction (read, write, trim).
    pub ios: [u64; 3],
    /// Bytes per direction (read, write, trim).
    pub bytes: [u64; 3],
}

impl JobResult {
    /// An empty result for job `name` in group `groupid`.
    pub fn new(name: impl Into<String>, groupid: u32) -> Self {
        JobResult { name: name.into(), groupid, ..Default::default() }
    }

    /// Statistics of one direction.
    pub fn dir(&self, d: Ddir) -> &DirStats {
        match d {
            Ddir::Read => &self.read,
            Ddir::Write => &self.write,
            Ddir::Trim => &self.trim,
        }
    }

    /// Statistics of one direction, mutably.
    pub fn dir_mut(&mut self, d: Ddir) -> &mut DirStats {
        match d {
            Ddir::Read => &mut self.read,
            Ddir::Write => &mut self.write,
            Ddir::Trim => &mut self.trim,
        }
    }

    /// The three directions summed, as fio's `unified_rw_reporting` reports them (`"mixed"`):
    /// I/Os, bytes and latencies pool, the runtime is the longest, per-interval bandwidth
    /// and IOPS add up ([`DirStats::merge`]).
    pub fn mixed(&self) -> DirStats {
        let mut m = self.read.clone();
        m.merge(&self.write);
        m.merge(&self.trim);
        m
    }

    /// I/Os over read, write and trim (fio's `ddir_rw_sum(total_io_u)`).
    pub fn total_rw_ios(&self) -> u64 {
        self.read.ios + self.write.ios + self.trim.ios
    }

    /// Fold another member of the same group in, as fio's `group_reporting` does: the name,
    /// group, options, depth setting and start time stay `self`'s (the group's first job),
    /// the first non-zero error wins, statistics merge per [`DirStats::merge`], job runtimes
    /// and CPU usage add up, and `extra` is kept from `self` (or taken from `other` when
    /// `self` has none) — device counters describe a device, not a job.
    pub fn merge(&mut self, other: &JobResult) {
        if self.error == 0 {
            self.error = other.error;
        }
        if self.job_start_ms.is_none() {
            self.job_start_ms = other.job_start_ms;
        }
        if self.iodepth.is_none() {
            self.iodepth = other.iodepth;
        }
        self.read.merge(&other.read);
        self.write.merge(&other.write);
        self.trim.merge(&other.trim);
        self.sync.merge(&other.sync);
        self.job_runtime_ns += other.job_runtime_ns;
        self.cpu.merge(&other.cpu);
        self.depth.merge(&other.depth);
        if self.extra.is_none() {
            self.extra = other.extra.clone();
        }
        self.files.extend(other.files.iter().cloned());
        self.io_errors += other.io_errors;
        self.continue_on_error |= other.continue_on_error;
        if let Some(n) = other.zone_resets {
            // fio's sum_thread_stats: the group's resets add up.
            self.zone_resets = Some(self.zone_resets.unwrap_or(0) + n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_series_is_bounded_and_keeps_every_byte() {
        let mut d = DirStats::new();
        let n = 1_000_000u64;
        for i in 0..n {
            d.record_interval(Interval {
                end_ns: (i + 1) * 500,
                duration_ns: 500,
                bytes: 4096,
                ios: 1,
                lat_ns_sum: 100,
                lat_ns_max: i,
            });
        }
        assert!(d.intervals.len() <= MAX_INTERVALS, "{} intervals kept", d.intervals.len());
        assert_eq!(d.intervals.iter().map(|iv| iv.bytes).sum::<u64>(), 4096 * n);
        assert_eq!(d.intervals.iter().map(|iv| iv.duration_ns).sum::<u64>(), 500 * n);
        assert_eq!(d.intervals.last().unwrap().end_ns, 500 * n);
        assert!(d.intervals.windows(2).all(|w| w[0].end_ns + w[1].duration_ns == w[1].end_ns), "contiguous");
        assert_eq!(d.intervals.iter().map(|iv| iv.lat_ns_max).max(), Some(n - 1));
        assert_eq!(d.bw_stat.samples(), n);
    }

    #[test]
    fn interval_rates_truncate_like_fio() {
        let iv = Interval {
            end_ns: 500_000_000,
            duration_ns: 500_000_000,
            bytes: 4096 * 1001,
            ios: 1001,
            ..Default::default()
        };
        // 4096·1001 B in 0.5 s = 8 200 192 B/s = 8008 KiB/s.
        assert_eq!(iv.bw_kib_per_sec(), Some(8008));
        assert_eq!(iv.iops(), Some(2002));
        let idle = Interval { bytes: 0, ios: 0, ..iv };
        assert_eq!((idle.bw_kib_per_sec(), idle.iops()), (None, None));
        let empty = Interval { duration_ns: 0, ..iv };
        assert_eq!((empty.bw_kib_per_sec(), empty.iops()), (None, None));
    }

    /// `record_io_same` is `record_io` with the same completion and total latency.
    #[test]
    fn record_io_same_is_record_io() {
        let (mut a, mut b) = (DirStats::new(), DirStats::new());
        for ns in [0, 1, 127, 128, 999, 50_000, 1_234_567, 17_112_760_320, u64::MAX] {
            a.record_io(4096, ns, ns);
            b.record_io_same(4096, ns);
        }
        assert_eq!(a, b);
    }

    #[test]
    fn record_and_rates() {
        let mut d = DirStats::new();
        for i in 0..1000u64 {
            d.record_io(4096, 50_000 + i, 51_000 + i);
        }
        d.runtime_ns = 2_000_000_000;
        assert_eq!(d.ios, 1000);
        assert_eq!(d.io_bytes, 4_096_000);
        assert_eq!(d.bw_bytes_per_sec(), 2_048_000.0);
        assert_eq!(d.iops(), 500.0);
        assert_eq!(d.clat.count(), 1000);
        assert_eq!(d.clat_bands.usec[5], 1000); // 50–99 µs
        d.record_interval(Interval {
            end_ns: 1_000_000_000,
            duration_ns: 1_000_000_000,
            bytes: 2_048_000,
            ios: 500,
            ..Default::default()
        });
        d.record_interval(Interval {
            end_ns: 2_000_000_000,
            duration_ns: 1_000_000_000,
            bytes: 0,
            ios: 0,
            ..Default::default()
        });
        assert_eq!(d.intervals.len(), 2);
        assert_eq!(d.bw_stat.samples(), 1);
        assert_eq!(d.bw_stat.min(), 2000);
        assert_eq!(d.iops_stat.max(), 500);
        assert_eq!(DirStats::new().bw_bytes_per_sec(), 0.0);
    }

    #[test]
    fn group_merge() {
        let mut a = JobResult::new("j", 0);
        a.write.record_io(4096, 10_000, 11_000);
        a.write.runtime_ns = 1_000;
        a.job_runtime_ns = 5;
        a.sync.record(7);
        let mut b = JobResult::new("j", 0);
        b.write.record_io(8192, 20_000, 21_000);
        b.write.runtime_ns = 3_000;
        b.job_runtime_ns = 6;
        b.error = 5;
        b.extra = Some(serde_json::json!({"erases": 3}));
        a.merge(&b);
        assert_eq!(a.write.ios, 2);
        assert_eq!(a.write.io_bytes, 12_288);
        assert_eq!(a.write.runtime_ns, 3_000);
        assert_eq!(a.write.clat.max(), 20_000);
        assert_eq!(a.job_runtime_ns, 11);
        assert_eq!(a.error, 5);
        assert_eq!(a.sync.total_ios, 1);
        assert_eq!(a.extra, b.extra);
        assert_eq!(a.total_rw_ios(), 2);
        assert_eq!(a.dir(Ddir::Write).ios, 2);
    }

    #[test]
    fn job_result_serde_round_trip() {
        let mut j = JobResult::new("rw", 1);
        j.read.record_io(512, 100, 200);
        j.options.insert("bs".into(), "4k".into());
        j.extra = Some(serde_json::json!({"waf": 1.5}));
        let s = serde_json::to_string(&j).unwrap();
        let back: JobResult = serde_json::from_str(&s).unwrap();
        assert_eq!(back, j);
    }
}
