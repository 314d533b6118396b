//! Results of `flashlab sqlite`: per configuration, throughput, commit latency percentiles, the
//! SQLite-level operations the VFS recorded, and what reached the device (kernel counters, the
//! simulated device's, or on a `flashlab serve` device the simulator's own counters beside the
//! loop device's kernel counters); the terminal table and the JSON document.

use crate::config::{JournalMode, SyncMode, Workload};
use crate::vfs_recorder::{Event, Mark};
use flashlab_measure::LatencyHistogram;
use serde::Serialize;

/// Commit latency summary (ns), percentiles by fio's rule over fio's log-linear buckets.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Latency {
    /// Median, ns.
    pub p50_ns: u64,
    /// 90th percentile, ns.
    pub p90_ns: u64,
    /// 99th percentile, ns.
    pub p99_ns: u64,
    /// Mean, ns.
    pub mean_ns: f64,
    /// Slowest, ns.
    pub max_ns: u64,
}

impl Latency {
    pub(crate) fn of(samples: &[u64]) -> Latency {
        let mut h = LatencyHistogram::new();
        for &s in samples {
            h.record(s);
        }
        if h.is_empty() {
            return Latency::default();
        }
        Latency {
            p50_ns: h.percentile(50.0),
            p90_ns: h.percentile(90.0),
            p99_ns: h.percentile(99.0),
            mean_ns: h.mean(),
            max_ns: h.max(),
        }
    }
}

/// The file operations SQLite asked the VFS for in the measured interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct VfsCounts {
    /// Files opened.
    pub opens: u64,
    /// `xWrite` calls.
    pub writes: u64,
    /// Bytes those writes carried.
    pub write_bytes: u64,
    /// `xSync` calls.
    pub syncs: u64,
    /// `xTruncate` calls.
    pub truncates: u64,
    /// `xDelete` calls.
    pub deletes: u64,
    /// Deletes with SQLite's syncDir flag (a directory fsync).
    pub deletes_sync_dir: u64,
    /// WAL-index regions mapped (the -shm file, written through mmap, never through xWrite).
    pub shm_maps: u64,
    /// Writebacks of everything the workload made (the one ending the interval is counted).
    pub writeback_all: u64,
}

impl VfsCounts {
    /// Count the events between the measure marks.
    pub fn measured(events: &[Event]) -> VfsCounts {
        let mut c = VfsCounts::default();
        let mut on = false;
        for e in events {
            match e {
                Event::Mark(Mark::MeasureStart) => on = true,
                Event::Mark(Mark::MeasureEnd) => on = false,
                _ if !on => {}
                Event::Open { .. } => c.opens += 1,
                Event::Write { len, .. } => {
                    c.writes += 1;
                    c.write_bytes += len;
                }
                Event::Sync { .. } => c.syncs += 1,
                Event::Truncate { .. } => c.truncates += 1,
                Event::Delete { sync_dir, .. } => {
                    c.deletes += 1;
                    c.deletes_sync_dir += *sync_dir as u64;
                }
                Event::ShmMap { .. } => c.shm_maps += 1,
                Event::Mark(Mark::WritebackAll) => c.writeback_all += 1,
                Event::Close { .. } | Event::Stat { .. } | Event::Read { .. } | Event::Mark(_) => {}
            }
        }
        c
    }
}

/// What reached the device in the measured interval.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct DeviceCounts {
    /// Write requests.
    pub write_requests: u64,
    /// Bytes written.
    pub write_bytes: u64,
    /// `None` where the kernel does not report flushes.
    pub flushes: Option<u64>,
    /// Discard (trim) requests; `None` where the kernel does not report them.
    pub discards: Option<u64>,
    /// Simulated devices only: bytes programmed to NAND (host data, GC copies, padding).
    pub nand_write_bytes: Option<u64>,
    /// Simulated devices only: NAND units programmed per host unit written.
    pub waf: Option<f64>,
}

/// The device's activity over an idle interval measured before the runs.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Baseline {
    /// Length of the idle interval, seconds.
    pub seconds: f64,
    /// Write requests in it.
    pub write_requests: u64,
    /// Bytes written in it.
    pub write_bytes: u64,
    /// Flush requests in it; `None` where the kernel does not report flushes.
    pub flushes: Option<u64>,
}

/// Per-transaction figures, derived from the counts above.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct PerTx {
    /// VFS writes per transaction.
    pub vfs_writes: f64,
    /// VFS bytes written per transaction.
    pub vfs_write_bytes: f64,
    /// VFS syncs per transaction.
    pub vfs_syncs: f64,
    /// Device write requests per transaction.
    pub device_write_requests: Option<f64>,
    /// Device bytes written per transaction.
    pub device_write_bytes: Option<f64>,
    /// Device flush requests per transaction.
    pub device_flushes: Option<f64>,
    /// Device discard requests per transaction.
    pub device_discards: Option<f64>,
    /// Device bytes written / row bytes.
    pub amplification: Option<f64>,
    /// NAND bytes programmed per transaction (simulated devices only).
    pub nand_write_bytes: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
/// One configuration's (journal mode × synchronous) results.
pub struct ConfigResult {
    /// The journal mode run.
    pub journal_mode: JournalMode,
    /// The `synchronous` setting run.
    pub synchronous: SyncMode,
    /// Transactions measured.
    pub transactions: u64,
    /// Row bytes each transaction writes (batch × row bytes).
    pub row_bytes_per_tx: u64,
    /// "wall" on real targets, "virtual" (device time only) on simulated ones.
    pub time: &'static str,
    /// `None` when the transactions took no time (simulated synchronous=OFF: nothing reaches
    /// the device before the final writeback).
    pub tx_per_s: Option<f64>,
    /// Commit latency (BEGIN to COMMIT's return).
    pub latency: Latency,
    /// Length of the measured interval (syncfs to syncfs), seconds.
    pub measured_s: f64,
    /// What SQLite asked the VFS for in the measured interval.
    pub vfs: VfsCounts,
    /// What reached the device in the measured interval (`None` when it cannot be counted).
    pub device: Option<DeviceCounts>,
    /// On a flashlab serve device: the loop device's kernel counters over the same interval
    /// (`device` then holds the simulator's counters).
    pub kernel_device: Option<DeviceCounts>,
    /// On a real device: what the idle baseline predicts for this interval's length.
    pub background_expected: Option<Baseline>,
    /// The counts divided by the transactions.
    pub per_tx: PerTx,
    /// What `PRAGMA integrity_check` answered ("ok").
    pub integrity_check: String,
}

impl ConfigResult {
    /// Derive the per-transaction figures.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        wl: &Workload,
        mode: JournalMode,
        sync: SyncMode,
        time: &'static str,
        latencies_ns: &[u64],
        tx_span_ns: u64,
        measured_s: f64,
        vfs: VfsCounts,
        device: Option<DeviceCounts>,
        baseline: Option<&Baseline>,
        integrity_check: String,
    ) -> ConfigResult {
        let n = wl.transactions as f64;
        let row_bytes_per_tx = wl.batch * wl.row_bytes as u64;
        let per = |x: u64| x as f64 / n;
        let per_tx = PerTx {
            vfs_writes: per(vfs.writes),
            vfs_write_bytes: per(vfs.write_bytes),
            vfs_syncs: per(vfs.syncs),
            device_write_requests: device.map(|d| per(d.write_requests)),
            device_write_bytes: device.map(|d| per(d.write_bytes)),
            device_flushes: device.and_then(|d| d.flushes.map(per)),
            device_discards: device.and_then(|d| d.discards.map(per)),
            amplification: device.map(|d| per(d.write_bytes) / row_bytes_per_tx as f64),
            nand_write_bytes: device.and_then(|d| d.nand_write_bytes.map(per)),
        };
        let background_expected = baseline.filter(|b| b.seconds > 0.0).map(|b| {
            let k = measured_s / b.seconds;
            Baseline {
                seconds: measured_s,
                write_requests: (b.write_requests as f64 * k).round() as u64,
                write_bytes: (b.write_bytes as f64 * k).round() as u64,
                flushes: b.flushes.map(|f| (f as f64 * k).round() as u64),
            }
        });
        let tx_per_s = if tx_span_ns > 0 { Some(n / (tx_span_ns as f64 / 1e9)) } else { None };
        ConfigResult {
            journal_mode: mode,
            synchronous: sync,
            transactions: wl.transactions,
            row_bytes_per_tx,
            time,
            tx_per_s,
            latency: Latency::of(latencies_ns),
            measured_s,
            vfs,
            device,
            kernel_device: None,
            background_expected,
            per_tx,
            integrity_check,
        }
    }
}

/// One `flashlab sqlite` run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The SQLite library's version (bundled).
    pub sqlite_version: String,
    /// The target as the user named it.
    pub target: String,
    /// "directory", "serve" (a directory on a flashlab serve device) or "simulated".
    pub kind: &'static str,
    /// Where the device counts come from, in words.
    pub counts_from: String,
    /// The target directory's filesystem type (e.g. `ext4`), when known.
    pub filesystem: Option<String>,
    /// The simulated device's history before each run (`--precondition`); none on a real device.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub precondition: Option<flashlab_lab::precondition::Precondition>,
    /// The device's activity over an idle interval before the runs (real devices only).
    pub baseline: Option<Baseline>,
    /// The run's settings.
    pub workload: Workload,
    /// Remarks printed under the table.
    pub notes: Vec<String>,
    /// Every configuration's results, in run order.
    pub configs: Vec<ConfigResult>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vfs_recorder::FileKind;

    #[test]
    fn counts_only_the_measured_interval() {
        let ev = vec![
            Event::Write { file: 0, off: 0, len: 10 },
            Event::Mark(Mark::MeasureStart),
            Event::Open { file: 1, path: None, kind: FileKind::Other, dir_sync: false, chown: false },
            Event::Write { file: 0, off: 0, len: 4096 },
            Event::Write { file: 0, off: 4096, len: 100 },
            Event::Sync { file: 0, flags: 2 },
            Event::Delete { path: "x".into(), sync_dir: true },
            Event::Mark(Mark::WritebackAll),
            Event::Mark(Mark::MeasureEnd),
            Event::Sync { file: 0, flags: 2 },
        ];
        let c = VfsCounts::measured(&ev);
        assert_eq!(
            c,
            VfsCounts {
                opens: 1,
                writes: 2,
                write_bytes: 4196,
                syncs: 1,
                deletes: 1,
                deletes_sync_dir: 1,
                writeback_all: 1,
                ..VfsCounts::default()
            }
        );
    }

    #[test]
    fn table_header_matches_rows() {
        let wl =
            Workload::new(vec![JournalMode::Wal], vec![SyncMode::Full], 4, 1, crate::Shape::Insert, 100, 1).unwrap();
        let dev = DeviceCounts {
            write_requests: 8,
            write_bytes: 8192,
            flushes: Some(4),
            discards: Some(0),
            nand_write_bytes: Some(16384),
            waf: Some(2.0),
        };
        for kind in ["directory", "simulated", "serve"] {
            let mut c = ConfigResult::new(
                &wl,
                JournalMode::Wal,
                SyncMode::Full,
                "wall",
                &[1_000_000; 4],
                4_000_000,
                0.004,
                VfsCounts { writes: 4, syncs: 4, ..VfsCounts::default() },
                Some(dev),
                None,
                "ok".into(),
            );
            assert_eq!(c.per_tx.amplification, Some(2048.0 / 100.0));
            assert_eq!(c.tx_per_s, Some(1000.0));
            if kind == "serve" {
                c.kernel_device = Some(dev);
            }
            let r = Report {
                sqlite_version: "3".into(),
                target: "t".into(),
                kind,
                counts_from: "x".into(),
                filesystem: None,
                precondition: None,
                baseline: None,
                workload: wl.clone(),
                notes: vec![],
                configs: vec![c],
            };
            let tables = crate::text::tables(&r);
            for t in &tables {
                assert!(t.rows.iter().all(|row| row.len() == t.columns.len()), "{kind}: {}", t.title);
            }
            let text = crate::text::render_table(&r);
            assert!(text.lines().all(|l| l.chars().count() <= 80), "{kind}:\n{text}");
            assert_eq!(text.contains("loop flushes"), kind == "serve", "{text}");
            assert_eq!(text.contains("WAF"), kind != "directory", "{text}");
        }
    }

    #[test]
    fn latency_percentiles() {
        let v: Vec<u64> = (1..=100).map(|i| i * 1000).collect();
        let l = Latency::of(&v);
        assert!(l.p50_ns >= 49_000 && l.p50_ns <= 51_000, "{l:?}");
        assert!(l.p99_ns >= 98_000 && l.p99_ns <= 100_000, "{l:?}");
        assert_eq!(Latency::of(&[]).p50_ns, 0);
    }
}
