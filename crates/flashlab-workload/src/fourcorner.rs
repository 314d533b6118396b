//! The four-corner test as AndroBench ran it for AnandTech's tables: on a fresh 100 MiB test
//! file, 256 KiB sequential write then read, then 4 KiB random read and write, all at queue
//! depth 1; the test file is deleted afterwards (trimmed only if the filesystem discards).
//!
//! Where the random writes land is a setting ([`FourCornerConfig::rand_write_truncated`]):
//! by default they overwrite the file the sequential test wrote (fio's layout); AndroBench 3.x
//! instead reopens its write-test file with `O_TRUNC` and writes the 4 KiB records at random
//! offsets into the emptied file, so every write fills a hole; that file is opened `O_SYNC`
//! ([`FourCornerConfig::rand_write_sync`]). AndroBench's sequential write opens its file the
//! same way and fsyncs after every request ([`FourCornerConfig::seq_write_sync`]).
//!
//! AndroBench 3.x also orders and repeats the tests its own way (`Result.java`, release 3.4):
//! it writes a separate read file first (`INIT_READ`, 1 MiB `O_SYNC` records), then runs
//! sequential read, sequential write, random read and random write three times each, back to
//! back, and reports the mean of each test's three rates ([`FourCornerConfig::read_file`],
//! [`FourCornerConfig::repeats`]). Each write test reopens the write file with `O_TRUNC`.
//! Real targets (`flashlab-real`'s directory target) follow the same settings with their own
//! I/O options (`O_SYNC` as an fsync after every write).

use crate::device::DeviceReport;
use flashlab_jobs::Rw;
use flashlab_measure::{JobResult, LatencySummary};
use flashlab_simfs::FsCounters;
use serde::Serialize;

/// The settings of a four-corner run (AndroBench's defaults).
#[derive(Debug, Clone)]
pub struct FourCornerConfig {
    /// Size of the test file (the span every test covers).
    pub span: u64,
    /// Block size of the sequential tests (256 KiB).
    pub seq_bs: u64,
    /// Block size of the random tests (4 KiB).
    pub rand_bs: u64,
    /// Bytes each random test transfers (random tests cover the span in a random order; a
    /// budget below the span keeps slow devices from taking hours of virtual time).
    pub rand_io: u64,
    /// Seed of the random tests' offsets.
    pub seed: u64,
    /// The random writes go into a new, empty file (AndroBench 3.x opens its write-test file
    /// with `O_TRUNC` before them) instead of over the file the sequential test wrote. ext4
    /// (data=ordered) cannot reuse the blocks a truncate frees before the truncate's
    /// transaction commits, so the emptied file is given other free space: on a new device
    /// never-written blocks, after a fill without TRIM blocks that still hold deleted data.
    pub rand_write_truncated: bool,
    /// The random-write file is opened `O_SYNC` (AndroBench 3.x: `O_RDWR | O_CREAT | O_SYNC |
    /// O_TRUNC`): each write returns only once it is durable, which on ext4 is an fsync of the
    /// file after every write (`generic_write_sync`): a record filling a hole changes the
    /// file's extents, so each commits the journal. The latency of a write includes it.
    pub rand_write_sync: bool,
    /// The sequential-write file is opened `O_SYNC` and fsynced after every request
    /// (AndroBench 3.x's `SEQ_WRITE`: `O_RDWR | O_CREAT | O_SYNC | O_TRUNC`, then `write` and
    /// `fsync` per 256 KiB record, the fsync inside the timed region): each request extends the
    /// file, so each commits the journal. The latency of a write includes it.
    pub seq_write_sync: bool,
    /// Each test runs this many times back to back (AndroBench 3.x: 3). A row's MB/s is the
    /// mean of the runs' rates, as AndroBench reports it; its IOPS and latencies pool the runs.
    pub repeats: u32,
    /// The read tests read a file of their own, of this size, written first in 1 MiB `O_SYNC`
    /// records, and the tests run in AndroBench's order (sequential read, sequential write,
    /// random read, random write), every write test on a truncated write file. `None`: the
    /// read tests read the file the sequential write wrote, in fio's order (sequential write,
    /// sequential read, random read, random write).
    pub read_file: Option<u64>,
}

impl Default for FourCornerConfig {
    fn default() -> Self {
        FourCornerConfig {
            span: 100 << 20,
            seq_bs: 256 << 10,
            rand_bs: 4 << 10,
            rand_io: 16 << 20,
            seed: 1,
            rand_write_truncated: false,
            rand_write_sync: false,
            seq_write_sync: false,
            repeats: 1,
            read_file: None,
        }
    }
}

/// One test of a four-corner run, as simulated and real targets both run it.
#[derive(Debug, Clone, Copy)]
pub struct FourCornerTest {
    /// The test's name (`seq-write`, `rand-read`, ...).
    pub name: &'static str,
    /// Its direction and pattern.
    pub rw: Rw,
    /// Request size, bytes.
    pub bs: u64,
    /// Bytes to transfer; `None`: the file once.
    pub io: Option<u64>,
    /// Seed of its offsets.
    pub seed: u64,
    /// Written as if opened `O_SYNC`: each write returns once it is durable.
    pub sync: bool,
}

impl FourCornerConfig {
    /// The four tests of run `k` (from 0) of each test, in [`FourCorner::from_runs`]'s order:
    /// sequential write, sequential read, random read, random write. Each run of a random test
    /// draws its own offsets.
    pub fn tests(&self, k: u32) -> [FourCornerTest; 4] {
        let seed = |i: u64| self.seed + i + 3 * u64::from(k);
        let t = |name, rw, bs, io, seed, sync| FourCornerTest { name, rw, bs, io, seed, sync };
        [
            t("seq-write", Rw::Write, self.seq_bs, None, seed(0), self.seq_write_sync),
            t("seq-read", Rw::Read, self.seq_bs, None, self.seed, false),
            t("rand-read", Rw::RandRead, self.rand_bs, Some(self.rand_io), seed(1), false),
            t("rand-write", Rw::RandWrite, self.rand_bs, Some(self.rand_io), seed(2), self.rand_write_sync),
        ]
    }

    /// AndroBench's write of its read file ([`FourCornerConfig::read_file`]): 1 MiB records,
    /// each fsynced.
    pub fn init_read(&self) -> FourCornerTest {
        FourCornerTest { name: "init-read", rw: Rw::Write, bs: 1 << 20, io: None, seed: self.seed, sync: true }
    }

    /// Every step of a four-corner run, in the order it runs, for simulated and real targets
    /// alike. With a [`FourCornerConfig::read_file`]: AndroBench's order (the read file written
    /// first; each test `repeats` times; every write test on the emptied test file). Without:
    /// fio's order on the test file, the random writes into an emptied file when
    /// [`FourCornerConfig::rand_write_truncated`].
    pub fn steps(&self) -> Vec<FourCornerStep> {
        use FourCornerFile::{Read, Test};
        let n = self.repeats.max(1);
        let mut steps = Vec::new();
        let mut push = |test, file, row, truncate| steps.push(FourCornerStep { test, file, row, truncate });
        if self.read_file.is_some() {
            push(self.init_read(), Read, None, false);
            for (row, file, truncate) in [(1, Read, false), (0, Test, true), (2, Read, false), (3, Test, true)] {
                for k in 0..n {
                    push(self.tests(k)[row], file, Some(row), truncate);
                }
            }
        } else {
            for row in 0..4 {
                for k in 0..n {
                    push(self.tests(k)[row], Test, Some(row), row == 3 && k == 0 && self.rand_write_truncated);
                }
            }
        }
        steps
    }
}

/// The file a step of a four-corner run works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FourCornerFile {
    /// The test file ([`TEST_FILE`]).
    Test,
    /// The read tests' own file ([`READ_FILE`]; AndroBench's order).
    Read,
}

/// One step of a four-corner run ([`FourCornerConfig::steps`]).
#[derive(Debug, Clone, Copy)]
pub struct FourCornerStep {
    /// What it runs.
    pub test: FourCornerTest,
    /// On which file.
    pub file: FourCornerFile,
    /// Which of the row's four tests it is a run of ([`FourCorner::from_repeats`]'s order);
    /// `None`: not reported (AndroBench's write of its read file).
    pub row: Option<usize>,
    /// The test file is emptied first (`O_TRUNC`): the writes fill an empty file, and the
    /// filesystem allocates their blocks.
    pub truncate: bool,
}

/// One four-corner run. MB/s are 10^6 bytes per second; latencies in microseconds.
#[derive(Debug, Clone, Serialize)]
pub struct FourCorner {
    /// The row's label (`new`, `after fill 1`).
    pub label: String,
    /// Sequential read bandwidth, MB/s.
    pub seq_read_mbs: f64,
    /// Sequential write bandwidth, MB/s.
    pub seq_write_mbs: f64,
    /// Random read bandwidth, MB/s.
    pub rand_read_mbs: f64,
    /// Random write bandwidth, MB/s.
    pub rand_write_mbs: f64,
    /// Random read IOPS.
    pub rand_read_iops: f64,
    /// Random write IOPS.
    pub rand_write_iops: f64,
    /// Random write median latency, µs.
    pub rand_write_p50_us: f64,
    /// Random write p99 latency, µs.
    pub rand_write_p99_us: f64,
    /// Random read median latency, µs.
    pub rand_read_p50_us: f64,
    /// Completion latency of each test, µs: exact mean and max, p99 and p99.9 (clamped to the
    /// exact range, so max >= p99.9 >= p99). QD1, so mean x IOPS = 1 (Little's law).
    pub rand_write_mean_us: f64,
    /// Random write p99.9 latency, µs.
    pub rand_write_p999_us: f64,
    /// Random write largest latency, µs.
    pub rand_write_max_us: f64,
    /// Random read mean latency, µs.
    pub rand_read_mean_us: f64,
    /// Random read p99 latency, µs.
    pub rand_read_p99_us: f64,
    /// Random read p99.9 latency, µs.
    pub rand_read_p999_us: f64,
    /// Random read largest latency, µs.
    pub rand_read_max_us: f64,
    /// Sequential write mean latency, µs.
    pub seq_write_mean_us: f64,
    /// Sequential write p99 latency, µs.
    pub seq_write_p99_us: f64,
    /// Sequential write p99.9 latency, µs.
    pub seq_write_p999_us: f64,
    /// Sequential write largest latency, µs.
    pub seq_write_max_us: f64,
    /// Sequential read mean latency, µs.
    pub seq_read_mean_us: f64,
    /// Sequential read p99 latency, µs.
    pub seq_read_p99_us: f64,
    /// Sequential read p99.9 latency, µs.
    pub seq_read_p999_us: f64,
    /// Sequential read largest latency, µs.
    pub seq_read_max_us: f64,
    /// A simulated device after this run (counters cumulative since it was new); real
    /// targets have none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<DeviceReport>,
    /// The longest one device command held a simulated device during this run, µs (what the
    /// profile's busy-time ceiling bounds; set by `run_protocol` through
    /// `ProtocolTarget::take_slowest_command_us`); real targets have none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_command_max_us: Option<f64>,
    /// A simulated filesystem's counters after this run (cumulative since it was made).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filesystem: Option<FsCounters>,
    /// On a real filesystem over a `flashlab serve` device: the same tests timed on the
    /// simulated device's clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_clock: Option<DeviceClockRates>,
    /// Each test's fio-style result (not in the JSON).
    #[serde(skip)]
    pub jobs: Vec<JobResult>,
}

/// The four tests' speeds on a served simulated device's own clock (MB/s = 10^6 bytes per
/// simulated second): each test's bytes over the simulated time the device had requests in it
/// while the test ran (its `busy_ns`, the profile's host stack included). The gaps between
/// requests, which the serving host's own stack and the application make, are left out: what
/// the test would measure on the simulated phone, from the real filesystem's requests.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DeviceClockRates {
    /// Sequential read, MB/s.
    pub seq_read_mbs: f64,
    /// Sequential write, MB/s.
    pub seq_write_mbs: f64,
    /// Random read, MB/s.
    pub rand_read_mbs: f64,
    /// Random write, MB/s.
    pub rand_write_mbs: f64,
    /// 4 KiB units the device's garbage collection copied during the run (all four tests and
    /// what came between them).
    pub gc_units_copied: u64,
    /// Bytes the host trimmed during the run.
    pub trim_bytes: u64,
}

/// One reading of a served device's clock and counters (see [`DeviceClockRates`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeviceSample {
    /// Simulated ns the device has had requests or booked work in it so far.
    pub busy_ns: u64,
    /// 4 KiB units its garbage collection has copied so far.
    pub gc_units_copied: u64,
    /// Bytes the host has trimmed so far.
    pub trim_bytes: u64,
}

impl DeviceClockRates {
    /// From each test's (bytes, simulated busy ns), in [`FourCorner::from_runs`]'s order:
    /// sequential write, sequential read, random read, random write, and the readings before
    /// the first test and after the last. `None` when a test kept the device idle (a rate on
    /// its clock would be infinite: the page cache answered).
    pub fn from_busy(tests: [(u64, u64); 4], first: DeviceSample, last: DeviceSample) -> Option<DeviceClockRates> {
        if tests.iter().any(|&(_, ns)| ns == 0) {
            return None;
        }
        let [sw, sr, rr, rw] = tests.map(|(bytes, ns)| bytes as f64 * 1e3 / ns as f64);
        Some(DeviceClockRates {
            seq_read_mbs: sr,
            seq_write_mbs: sw,
            rand_read_mbs: rr,
            rand_write_mbs: rw,
            gc_units_copied: last.gc_units_copied.saturating_sub(first.gc_units_copied),
            trim_bytes: last.trim_bytes.saturating_sub(first.trim_bytes),
        })
    }
}

/// The four-corner test file's name.
pub const TEST_FILE: &str = "flashlab-four-corner.tmp";
/// The file the random writes fill when they do not overwrite [`TEST_FILE`]
/// ([`FourCornerConfig::rand_write_truncated`]).
pub const RAND_WRITE_FILE: &str = "flashlab-four-corner-rw.tmp";
/// The read tests' own file ([`FourCornerConfig::read_file`]).
pub const READ_FILE: &str = "flashlab-four-corner-read.tmp";

fn mbs(r: &JobResult, write: bool) -> f64 {
    let d = if write { &r.write } else { &r.read };
    d.bw_bytes_per_sec() / 1e6
}

/// The runs of one test pooled as back-to-back runs (runtimes add; latencies pool), and the
/// mean of their rates in MB/s (what AndroBench reports for its three runs).
fn pooled(mut runs: Vec<JobResult>, write: bool) -> (JobResult, f64) {
    assert!(!runs.is_empty(), "a four-corner test with no run");
    let mean = runs.iter().map(|r| mbs(r, write)).sum::<f64>() / runs.len() as f64;
    let mut all = runs.remove(0);
    for r in &runs {
        let (read_ns, write_ns) = (all.read.runtime_ns + r.read.runtime_ns, all.write.runtime_ns + r.write.runtime_ns);
        all.merge(r);
        all.read.runtime_ns = read_ns;
        all.write.runtime_ns = write_ns;
    }
    (all, mean)
}

impl FourCorner {
    /// The row from each test's runs (one or more, back to back), in the order of
    /// [`FourCorner::from_runs`]: MB/s is the mean of the runs' rates; IOPS and latencies
    /// pool the runs, so that mean latency x IOPS = 1 at QD1 still holds.
    ///
    /// # Panics
    /// If a test has no run.
    pub fn from_repeats(label: &str, runs: [Vec<JobResult>; 4], device: Option<DeviceReport>) -> FourCorner {
        let [sw, sr, rr, rw] = runs;
        let (sw, sw_mbs) = pooled(sw, true);
        let (sr, sr_mbs) = pooled(sr, false);
        let (rr, rr_mbs) = pooled(rr, false);
        let (rw, rw_mbs) = pooled(rw, true);
        let mut row = FourCorner::from_runs(label, [sw, sr, rr, rw], device);
        row.seq_write_mbs = sw_mbs;
        row.seq_read_mbs = sr_mbs;
        row.rand_read_mbs = rr_mbs;
        row.rand_write_mbs = rw_mbs;
        row
    }

    /// The row from the four tests' results, in the order they run: sequential write,
    /// sequential read, random read, random write.
    pub fn from_runs(label: &str, runs: [JobResult; 4], device: Option<DeviceReport>) -> FourCorner {
        let [sw, sr, rr, rw] = runs;
        let sum = |d: &flashlab_measure::DirStats| LatencySummary::of(&d.clat);
        let (lsw, lsr, lrr, lrw) = (sum(&sw.write), sum(&sr.read), sum(&rr.read), sum(&rw.write));
        FourCorner {
            label: label.to_string(),
            seq_read_mbs: mbs(&sr, false),
            seq_write_mbs: mbs(&sw, true),
            rand_read_mbs: mbs(&rr, false),
            rand_write_mbs: mbs(&rw, true),
            rand_read_iops: rr.read.iops(),
            rand_write_iops: rw.write.iops(),
            rand_write_p50_us: lrw.p50_us,
            rand_write_p99_us: lrw.p99_us,
            rand_read_p50_us: lrr.p50_us,
            rand_write_mean_us: lrw.mean_us,
            rand_write_p999_us: lrw.p999_us,
            rand_write_max_us: lrw.max_us,
            rand_read_mean_us: lrr.mean_us,
            rand_read_p99_us: lrr.p99_us,
            rand_read_p999_us: lrr.p999_us,
            rand_read_max_us: lrr.max_us,
            seq_write_mean_us: lsw.mean_us,
            seq_write_p99_us: lsw.p99_us,
            seq_write_p999_us: lsw.p999_us,
            seq_write_max_us: lsw.max_us,
            seq_read_mean_us: lsr.mean_us,
            seq_read_p99_us: lsr.p99_us,
            seq_read_p999_us: lsr.p999_us,
            seq_read_max_us: lsr.max_us,
            device,
            device_command_max_us: None,
            filesystem: None,
            device_clock: None,
            jobs: vec![sw, sr, rr, rw],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{DeviceClockRates, DeviceSample};

    #[test]
    fn device_clock_rates_are_bytes_over_busy_time_and_counters_are_differences() {
        let first = DeviceSample { busy_ns: 5, gc_units_copied: 10, trim_bytes: 4096 };
        let last = DeviceSample { busy_ns: 9, gc_units_copied: 25, trim_bytes: 3 * 4096 };
        // 1 MB in 1 ms = 1000 MB/s; 4 KB in 2 ms = 2 MB/s.
        let r = DeviceClockRates::from_busy(
            [(1_000_000, 1_000_000), (2_000_000, 1_000_000), (4_000, 2_000_000), (8_000, 2_000_000)],
            first,
            last,
        )
        .unwrap();
        assert_eq!((r.seq_write_mbs, r.seq_read_mbs, r.rand_read_mbs, r.rand_write_mbs), (1000.0, 2000.0, 2.0, 4.0));
        assert_eq!((r.gc_units_copied, r.trim_bytes), (15, 8192));
        assert_eq!(DeviceClockRates::from_busy([(1, 1), (1, 0), (1, 1), (1, 1)], first, last), None, "an idle test");
    }
}
