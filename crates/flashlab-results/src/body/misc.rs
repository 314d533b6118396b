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
    pub profiles: Vec<ProfileRow>,
    /// The profile a command uses when `--target` is not given.
    pub default: String,
}

/// One built-in profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProfileRow {
    pub name: String,
    pub interface: String,
    pub logical_bytes: u64,
    pub nand: String,
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
    pub policy: String,
    pub spare_factor: f64,
    pub write_amplification: f64,
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
    pub findings: Vec<serde_json::Value>,
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
    pub profiles: Vec<CalibrationProfile>,
}

/// One profile's calibration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CalibrationProfile {
    pub profile: String,
    pub source: String,
    pub procedure: String,
    pub cells: Vec<CalibrationCell>,
    /// The leave-one-out fits (absent with --no-loo).
    #[serde(default)]
    pub leave_one_out: Option<serde_json::Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// One compared number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CalibrationCell {
    pub row: String,
    pub metric: String,
    pub published: f64,
    pub simulated: f64,
    /// (simulated - published) / published.
    pub error: f64,
    /// The leave-one-out prediction of this cell and its error, where fitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_out: Option<f64>,
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
    pub phase_names: Vec<String>,
    pub jobs: Vec<serde_json::Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `sqlite`: per journal mode and synchronous setting (flashlab-sqlite's report).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SqliteBody {
    pub sqlite_version: String,
    /// `directory`, `serve` or `simulated`.
    pub kind: String,
    pub configs: Vec<serde_json::Value>,
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
    pub stats: serde_json::Value,
}

/// `sweep`: what ran and where the table is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SweepBody {
    pub cases: u64,
    pub ran: u64,
    pub skipped: u64,
    pub failed: u64,
    pub threads: u64,
    pub wall_s: f64,
    pub csv: String,
    pub parquet: String,
}

/// `validate-fs`: the model against the kernel's ext4 (flashlab-validate's report).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ValidateFsBody {
    pub workload: String,
    pub mount: String,
    pub classes: Vec<serde_json::Value>,
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
