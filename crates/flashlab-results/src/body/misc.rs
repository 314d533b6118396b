//! The bodies of the commands with small results (or results typed by their own crates, kept
//! here with the fields a script needs first and the rest in `extra`): profiles, sim waf,
//! doctor, report, calibrate, breakdown, sqlite, serve, sweep, validate-fs, phone.

use crate::table::{Format, Table};
use crate::{Document, Extra};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `profiles`: the built-in profiles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProfilesBody {
    /// One row per built-in profile, in the order `--target sim:NAME` lists them.
    pub profiles: Vec<ProfileRow>,
    /// The profile a command uses when `--target` is not given.
    pub default: String,
}

/// One built-in profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProfileRow {
    /// The name `--target sim:NAME` takes.
    pub name: String,
    /// The host interface (`emmc`, `ufs`, `nvme`, ...).
    pub interface: String,
    /// Logical capacity the host sees, bytes.
    pub logical_bytes: u64,
    /// Cell type and layout (`Mlc 2ch x 2die`).
    pub nand: String,
    /// What the profile models and where its numbers come from, in words.
    pub description: String,
}

impl ProfilesBody {
    /// One row per profile.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            "profiles",
            &[("name", ""), ("interface", ""), ("capacity", "GB"), ("NAND", ""), ("description", "")],
        )
        .format(2, Format::Fixed(1));
        for p in &self.profiles {
            t.row(vec![
                p.name.as_str().into(),
                p.interface.as_str().into(),
                (p.logical_bytes as f64 / 1e9).into(),
                p.nand.as_str().into(),
                p.description.as_str().into(),
            ]);
        }
        t
    }
}

/// `sim waf`: write amplification of GC under uniform random writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WafBody {
    /// The GC victim policy (`greedy`, `cost-benefit`, `fifo`, `random`).
    pub policy: String,
    /// Spare blocks / logical blocks.
    pub spare_factor: f64,
    /// NAND writes / host writes over the measured passes.
    pub write_amplification: f64,
    /// Fields this type does not name, kept as the command wrote them (a newer writer's fields
    /// survive a read and write).
    #[serde(flatten)]
    pub extra: Extra,
}

impl WafBody {
    /// One row.
    pub fn table(&self) -> Table {
        let mut t = Table::new("waf", &[("policy", ""), ("spare factor", ""), ("WAF", "")]).format(2, Format::Fixed(3));
        t.row(vec![self.policy.as_str().into(), self.spare_factor.into(), self.write_amplification.into()]);
        t
    }
}

/// `doctor`: flashlab-doctor's report (its own layout, versioned by its `schema` field).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DoctorBody {
    /// Counts of findings by severity.
    pub summary: serde_json::Value,
    /// Every finding (rule, severity, what it means, how to fix it), as flashlab-doctor wrote it.
    pub findings: Vec<serde_json::Value>,
    /// Fields this type does not name, kept as the command wrote them (a newer writer's fields
    /// survive a read and write).
    #[serde(flatten)]
    pub extra: Extra,
}

/// `report`: what was drawn and written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReportBody {
    /// The results files (or the sweep directory) read.
    pub inputs: Vec<String>,
    /// The files written (the HTML page, SVG charts).
    pub written: Vec<String>,
}

/// `calibrate`: published vs simulated, per profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CalibrateBody {
    /// One entry per profile calibrated.
    pub profiles: Vec<CalibrationProfile>,
}

/// One profile's calibration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CalibrationProfile {
    /// The profile's name.
    pub profile: String,
    /// Where the published numbers come from (docs/reference.md section).
    pub source: String,
    /// How the published numbers were measured, as run here.
    pub procedure: String,
    /// Every compared number.
    pub cells: Vec<CalibrationCell>,
    /// The leave-one-out fits (absent with --no-loo).
    #[serde(default)]
    pub leave_one_out: Option<serde_json::Value>,
    /// Fields this type does not name, kept as the command wrote them (a newer writer's fields
    /// survive a read and write).
    #[serde(flatten)]
    pub extra: Extra,
}

/// One compared number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CalibrationCell {
    /// The published table's row (a device state or step).
    pub row: String,
    /// The published table's column (MB/s, IOPS, ms).
    pub metric: String,
    /// The published number.
    pub published: f64,
    /// The simulated number, this run.
    pub simulated: f64,
    /// (simulated - published) / published.
    pub error: f64,
    /// The leave-one-out prediction of this cell and its error, where fitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_out: Option<f64>,
    /// The leave-one-out prediction's relative error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_out_error: Option<f64>,
}

impl CalibrateBody {
    /// One table per profile.
    pub fn tables(&self) -> Vec<Table> {
        self.profiles
            .iter()
            .map(|p| {
                let mut t = Table::new(
                    &p.profile,
                    &[
                        ("row", ""),
                        ("metric", ""),
                        ("published", ""),
                        ("simulated", ""),
                        ("error", "%"),
                        ("left out", "predicted"),
                        ("LOO error", "%"),
                    ],
                )
                .format(4, Format::Fixed(1))
                .format(6, Format::Fixed(1));
                for c in &p.cells {
                    t.row(vec![
                        c.row.as_str().into(),
                        c.metric.as_str().into(),
                        c.published.into(),
                        c.simulated.into(),
                        (c.error * 100.0).into(),
                        c.left_out.into(),
                        c.left_out_error.map(|e| e * 100.0).into(),
                    ]);
                }
                t
            })
            .collect()
    }
}

/// `breakdown`: where a request's latency goes, per job (flashlab-breakdown's report).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BreakdownBody {
    /// `measured` or `model`.
    pub source: String,
    /// The phases a request's latency is split into, in order.
    pub phase_names: Vec<String>,
    /// Per job (direction, block size, queue depth): requests, phase percentiles and shares.
    pub jobs: Vec<serde_json::Value>,
    /// Fields this type does not name, kept as the command wrote them (a newer writer's fields
    /// survive a read and write).
    #[serde(flatten)]
    pub extra: Extra,
}

/// `sqlite`: per journal mode and synchronous setting (flashlab-sqlite's report).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SqliteBody {
    /// The SQLite library's version (bundled).
    pub sqlite_version: String,
    /// `directory`, `serve` or `simulated`.
    pub kind: String,
    /// Per journal mode and synchronous setting: rates, latency, VFS and device counts per
    /// transaction.
    pub configs: Vec<serde_json::Value>,
    /// Fields this type does not name, kept as the command wrote them (a newer writer's fields
    /// survive a read and write).
    #[serde(flatten)]
    pub extra: Extra,
}

/// `serve`: the server's final statistics when it stopped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServeBody {
    /// The signal that stopped it.
    pub signal: i32,
    /// Whether the mount and loop device were released cleanly.
    pub clean: bool,
    /// The server's counters, latency histograms and device state when it stopped.
    pub stats: serde_json::Value,
}

/// `sweep`: what ran and where the table is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SweepBody {
    /// Cases in the sweep.
    pub cases: u64,
    /// Cases run now.
    pub ran: u64,
    /// Cases found finished in the output directory and not run again.
    pub skipped: u64,
    /// Cases whose run failed (their row has an `error`).
    pub failed: u64,
    /// Worker threads used.
    pub threads: u64,
    /// Wall-clock time of the sweep, seconds.
    pub wall_s: f64,
    /// The table as CSV.
    pub csv: String,
    /// The table as Parquet.
    pub parquet: String,
}

/// `validate-fs`: the model against the kernel's ext4 (flashlab-validate's report).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ValidateFsBody {
    /// The workload compared (`randwrite-fsync`, `sqlite`, ...).
    pub workload: String,
    /// ext4's mount options on both sides.
    pub mount: String,
    /// Per request class: requests, bytes, flushes, FUA, placement, model beside kernel.
    pub classes: Vec<serde_json::Value>,
    /// Fields this type does not name, kept as the command wrote them (a newer writer's fields
    /// survive a read and write).
    #[serde(flatten)]
    pub extra: Extra,
}

/// `phone ...`: the phone and the document its run wrote (or, for `phone devices` and `phone
/// doctor`, what was found).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PhoneBody {
    /// `devices`, `bench`, `fill`, `age`, `run` or `doctor`.
    pub subcommand: String,
    /// serial, model, Android release, SDK, ABI, root (none for `devices`).
    #[serde(default)]
    pub phone: Option<serde_json::Value>,
    /// `phone devices`: the devices adb sees.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<serde_json::Value>,
    /// The results document of the run on the phone (or of `phone doctor`).
    #[serde(default)]
    pub results: Option<Box<Document>>,
}
