//! `age` and `bench`: a protocol's four-corner runs and the log of its other steps.

use super::DeviceSummary;
use crate::table::{Format, Table};
use crate::Extra;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A protocol's results.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AgeBody {
    /// The protocol's name (`age`, `four-corner`, or a file's).
    pub protocol: String,
    /// One four-corner run per bench step.
    pub steps: Vec<AgeStep>,
    /// What the other steps did.
    pub log: Vec<AgeLog>,
    /// The device's history before the protocol (`--precondition`), on simulated targets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precondition: Option<serde_json::Value>,
    /// Fields this type does not name, kept as the command wrote them (a newer writer's fields
    /// survive a read and write).
    #[serde(flatten)]
    pub extra: Extra,
}

/// One four-corner run: MB/s = 10^6 bytes/s; latencies of the random writes in µs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AgeStep {
    /// The step's label (`new`, `after fill 1`, ...): the table's first column.
    pub label: String,
    /// Sequential read, MB/s.
    pub seq_read_mbs: f64,
    /// Sequential write, MB/s.
    pub seq_write_mbs: f64,
    /// 4 KiB random read at QD1, MB/s.
    pub rand_read_mbs: f64,
    /// 4 KiB random write at QD1, MB/s.
    pub rand_write_mbs: f64,
    /// Median random-write latency, µs.
    pub rand_write_p50_us: f64,
    /// 99th-percentile random-write latency, µs.
    pub rand_write_p99_us: f64,
    /// 99.9th-percentile random-write latency, µs. Every document has it; absent (not
    /// guessed) only in the age/bench files flashlab wrote before the results document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rand_write_p999_us: Option<f64>,
    /// Longest random write, µs; absent only where `rand_write_p999_us` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rand_write_max_us: Option<f64>,
    /// The simulated device after the run (none on real targets).
    #[serde(default)]
    pub device: Option<DeviceSummary>,
    /// The longest one device command held the simulated device during the run, µs: what the
    /// profile's busy-time ceiling bounds (none on real targets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_command_max_us: Option<f64>,
    /// On a real filesystem over a `flashlab serve` device: the same four tests on the
    /// simulated device's clock (none elsewhere).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_clock: Option<DeviceClock>,
    /// Fields this type does not name, kept as the command wrote them (a newer writer's fields
    /// survive a read and write).
    #[serde(flatten)]
    pub extra: Extra,
}

/// A four-corner run timed on a served simulated device's clock: each test's bytes over the
/// simulated time the device had requests in it (the profile's host stack included), so the
/// serving host's own costs between requests are left out. MB/s = 10^6 bytes per simulated
/// second.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeviceClock {
    /// Sequential read, MB/s.
    pub seq_read_mbs: f64,
    /// Sequential write, MB/s.
    pub seq_write_mbs: f64,
    /// 4 KiB random read at QD1, MB/s.
    pub rand_read_mbs: f64,
    /// 4 KiB random write at QD1, MB/s.
    pub rand_write_mbs: f64,
    /// 4 KiB units the device's garbage collection copied during the run.
    #[serde(default)]
    pub gc_units_copied: u64,
    /// Bytes the host trimmed during the run.
    #[serde(default)]
    pub trim_bytes: u64,
}

/// A step other than a four-corner run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AgeLog {
    /// The step's number in the protocol, from 1.
    pub step: u64,
    /// The step's kind (`fill`, `random-writes`, `delete-fill`, `fstrim`, `idle`, ...).
    pub kind: String,
    /// What the step did, in words (bytes written, files deleted, bytes trimmed).
    pub detail: String,
    /// When the step ended, seconds since the target was set up.
    #[serde(default)]
    pub at_s: Option<f64>,
    /// The longest one device command held the simulated device during the step, µs: what
    /// the profile's busy-time ceiling bounds (none on real targets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_command_max_us: Option<f64>,
    /// Fields this type does not name, kept as the command wrote them (a newer writer's fields
    /// survive a read and write).
    #[serde(flatten)]
    pub extra: Extra,
}

impl AgeLog {
    /// The step's line under the table: what it did, and on a simulated device its slowest
    /// command.
    pub fn line(&self) -> String {
        let slowest = self
            .device_command_max_us
            .filter(|&us| us > 0.0)
            .map(|us| format!("; slowest device command {:.1} ms", us / 1e3))
            .unwrap_or_default();
        format!("  step {:>2} {:<14} {}{slowest}", self.step, self.kind, self.detail)
    }
}

impl AgeBody {
    /// One row per four-corner run.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            "four-corner runs",
            &[
                ("step", ""),
                ("seq rd", "MB/s"),
                ("seq wr", "MB/s"),
                ("rnd rd", "MB/s"),
                ("rnd wr", "MB/s"),
                ("rw p50", "ms"),
                ("rw p99", "ms"),
                ("p99.9", "ms"),
                ("rw max", "ms"),
                ("WAF", ""),
                ("free", "blocks"),
            ],
        )
        .format(9, Format::Fixed(2))
        .format(10, Format::Fixed(0));
        for s in &self.steps {
            t.row(vec![
                s.label.as_str().into(),
                s.seq_read_mbs.into(),
                s.seq_write_mbs.into(),
                s.rand_read_mbs.into(),
                s.rand_write_mbs.into(),
                (s.rand_write_p50_us / 1e3).into(),
                (s.rand_write_p99_us / 1e3).into(),
                s.rand_write_p999_us.map(|us| us / 1e3).into(),
                s.rand_write_max_us.map(|us| us / 1e3).into(),
                s.device.as_ref().map(|d| d.write_amplification).into(),
                s.device.as_ref().map(|d| d.state.free_blocks).into(),
            ]);
        }
        t
    }

    /// On a served device: one row per four-corner run with the tests' speeds on the
    /// simulated device's clock, and what the device's GC copied and the host trimmed during
    /// the run; `None` elsewhere.
    pub fn device_clock_table(&self) -> Option<Table> {
        if self.steps.iter().all(|s| s.device_clock.is_none()) {
            return None;
        }
        let mut t = Table::new(
            "the same tests on the served device's clock (simulated time; the serving host's own costs left out)",
            &[
                ("step", ""),
                ("seq rd", "MB/s"),
                ("seq wr", "MB/s"),
                ("rnd rd", "MB/s"),
                ("rnd wr", "MB/s"),
                ("GC copied", "MiB"),
                ("trimmed", "MiB"),
            ],
        )
        .format(5, Format::Fixed(0))
        .format(6, Format::Fixed(0));
        for s in &self.steps {
            let c = s.device_clock.as_ref();
            t.row(vec![
                s.label.as_str().into(),
                c.map(|c| c.seq_read_mbs).into(),
                c.map(|c| c.seq_write_mbs).into(),
                c.map(|c| c.rand_read_mbs).into(),
                c.map(|c| c.rand_write_mbs).into(),
                c.map(|c| (c.gc_units_copied * 4096) as f64 / 1048576.0).into(),
                c.map(|c| c.trim_bytes as f64 / 1048576.0).into(),
            ]);
        }
        Some(t)
    }
}
