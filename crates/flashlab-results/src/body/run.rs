//! `run JOBFILE`: per job and direction, what fio's summary shows.

use super::DeviceSummary;
use crate::table::Table;
use crate::Extra;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A job file's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunBody {
    /// The job file.
    pub jobfile: String,
    /// One entry per job (per clone of a `numjobs` job), in the job file's order.
    pub jobs: Vec<RunJob>,
    /// Bandwidth and latency per interval, per job and direction.
    #[serde(default)]
    pub intervals: Vec<RunInterval>,
    /// The simulated device at the end (none on real targets).
    #[serde(default)]
    pub device: Option<DeviceSummary>,
    /// Fields this type does not name, kept as the command wrote them (a newer writer's fields
    /// survive a read and write).
    #[serde(flatten)]
    pub extra: Extra,
}

/// One job (one clone of a `numjobs` job).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunJob {
    /// The job's section name in the job file.
    pub name: String,
    /// The job's reporting group.
    pub groupid: u32,
    /// fio's `rw` (`randwrite`, `read`, `trimwrite`, ...).
    pub rw: String,
    /// The largest block size, bytes.
    pub bs: u64,
    /// Requests the job keeps in flight.
    pub iodepth: u32,
    /// The directions that did I/O.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<RunDirection>,
    /// The writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<RunDirection>,
    /// The trims.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<RunDirection>,
    /// Fields this type does not name, kept as the command wrote them (a newer writer's fields
    /// survive a read and write).
    #[serde(flatten)]
    pub extra: Extra,
}

/// One direction of one job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunDirection {
    /// Bytes moved.
    pub io_bytes: u64,
    /// Requests completed.
    pub total_ios: u64,
    /// Time the direction ran, ns.
    pub runtime_ns: u64,
    /// Bytes per second.
    pub bw_bytes: f64,
    /// Requests per second.
    pub iops: f64,
    /// Mean completion latency, ns.
    pub clat_mean_ns: f64,
    /// Longest completion latency, ns.
    pub clat_max_ns: u64,
    /// Completion-latency percentiles, ns, by percentile (`"99.000000"`, as fio names them).
    pub clat_percentiles_ns: BTreeMap<String, u64>,
    /// Fields this type does not name, kept as the command wrote them (a newer writer's fields
    /// survive a read and write).
    #[serde(flatten)]
    pub extra: Extra,
}

/// One interval of one job's direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunInterval {
    /// The job's name.
    pub job: String,
    /// `read`, `write` or `trim`.
    pub direction: String,
    /// When the interval ended, ns since the job started.
    pub end_ns: u64,
    /// Length of the interval, ns.
    pub duration_ns: u64,
    /// Bytes moved in the interval.
    pub bytes: u64,
    /// Requests completed in the interval.
    pub ios: u64,
    /// Mean and largest completion latency of the interval, ns (no mean without I/O).
    pub mean_lat_ns: Option<f64>,
    /// Longest completion latency of the interval, ns.
    pub max_lat_ns: u64,
}

impl RunBody {
    /// The intervals (the main table, which `--csv` writes), then one row per job and direction.
    pub fn tables(&self) -> Vec<Table> {
        let mut t = Table::new(
            "intervals",
            &[
                ("job", ""),
                ("direction", ""),
                ("end", "ms"),
                ("duration", "ms"),
                ("bytes", ""),
                ("ios", ""),
                ("bandwidth", "MB/s"),
                ("IOPS", ""),
                ("mean lat", "us"),
                ("max lat", "us"),
            ],
        );
        for iv in &self.intervals {
            let secs = iv.duration_ns as f64 / 1e9;
            t.row(vec![
                iv.job.as_str().into(),
                iv.direction.as_str().into(),
                (iv.end_ns as f64 / 1e6).into(),
                (iv.duration_ns as f64 / 1e6).into(),
                iv.bytes.into(),
                iv.ios.into(),
                (iv.bytes as f64 / secs / 1e6).into(),
                (iv.ios as f64 / secs).into(),
                iv.mean_lat_ns.map(|l| l / 1e3).into(),
                (iv.max_lat_ns as f64 / 1e3).into(),
            ]);
        }
        vec![t, self.jobs_table()]
    }

    /// One row per job and direction.
    pub fn jobs_table(&self) -> Table {
        let mut t = Table::new(
            "jobs",
            &[
                ("job", ""),
                ("dir", ""),
                ("MB/s", ""),
                ("IOPS", ""),
                ("clat p50", "us"),
                ("clat p99", "us"),
                ("clat max", "us"),
            ],
        );
        for j in &self.jobs {
            for (name, d) in [("read", &j.read), ("write", &j.write), ("trim", &j.trim)] {
                let Some(d) = d else { continue };
                let p = |k: &str| d.clat_percentiles_ns.get(k).map(|v| *v as f64 / 1e3);
                t.row(vec![
                    j.name.as_str().into(),
                    name.into(),
                    (d.bw_bytes / 1e6).into(),
                    d.iops.into(),
                    p("50.000000").into(),
                    p("99.000000").into(),
                    (d.clat_max_ns as f64 / 1e3).into(),
                ]);
            }
        }
        t
    }
}
