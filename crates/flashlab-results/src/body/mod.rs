//! The per-command bodies of a [`crate::Document`]: `command` names the subcommand and
//! `results` holds its typed body. One file per command; a new command is a new variant, a new
//! field a new optional field of its body (both without a new schema version).

mod age;
mod device;
mod fill;
mod life;
mod misc;
mod placement;
mod run;
mod wsat;

pub use age::{AgeBody, AgeLog, AgeStep, DeviceClock};
pub use device::{Counters, DeviceState, DeviceSummary};
pub use fill::{FillBody, FillDecile, FillTestRun, WriteLatency};
pub use life::{LifeBody, LifeRun, LifeSample};
pub use misc::{
    BreakdownBody, CalibrateBody, CalibrationCell, CalibrationProfile, DoctorBody, PhoneBody, ProfileRow, ProfilesBody,
    ReportBody, ServeBody, SqliteBody, SweepBody, ValidateFsBody, WafBody,
};
pub use placement::{PlacementBody, PlacementRow};
pub use run::{RunBody, RunDirection, RunInterval, RunJob};
pub use wsat::{WsatBody, WsatInterval};

use crate::table::Table;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a command found: the subcommand's name in `command`, its body in `results`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "command", content = "results")]
pub enum Body {
    /// `flashlab age`: a protocol, four-corner runs between its steps.
    #[serde(rename = "age")]
    Age(AgeBody),
    /// `flashlab bench`: one four-corner run (the protocol `four-corner`).
    #[serde(rename = "bench")]
    Bench(AgeBody),
    /// `flashlab fill`: write latency per tenth of a fill.
    #[serde(rename = "fill")]
    Fill(FillBody),
    /// `flashlab wsat`: IOPS and WAF as the device is written over and over.
    #[serde(rename = "wsat")]
    Wsat(WsatBody),
    /// `flashlab run JOBFILE` (a summary per job; `--output-format json` writes fio's JSON).
    #[serde(rename = "run")]
    Run(RunBody),
    /// `flashlab profiles`: the built-in device profiles.
    #[serde(rename = "profiles")]
    Profiles(ProfilesBody),
    /// `flashlab sim waf`: GC write amplification under uniform random writes.
    #[serde(rename = "sim waf")]
    SimWaf(WafBody),
    /// `flashlab sim placement`: one workload under conventional, streams and zoned placement.
    #[serde(rename = "sim placement")]
    SimPlacement(PlacementBody),
    /// `flashlab doctor`: what slows this system's flash storage.
    #[serde(rename = "doctor")]
    Doctor(DoctorBody),
    /// `flashlab report`: the HTML report and charts written.
    #[serde(rename = "report")]
    Report(ReportBody),
    /// `flashlab calibrate`: published against simulated numbers.
    #[serde(rename = "calibrate")]
    Calibrate(CalibrateBody),
    /// `flashlab breakdown`: where a request's latency goes.
    #[serde(rename = "breakdown")]
    Breakdown(BreakdownBody),
    /// `flashlab sqlite`: what one SQLite transaction costs the storage.
    #[serde(rename = "sqlite")]
    Sqlite(SqliteBody),
    /// `flashlab serve`: the served device's statistics when it stopped.
    #[serde(rename = "serve")]
    Serve(ServeBody),
    /// `flashlab life`: months of use, wear and projected lifetime.
    #[serde(rename = "life")]
    Life(LifeBody),
    /// `flashlab sweep`: what ran and where the table is.
    #[serde(rename = "sweep")]
    Sweep(SweepBody),
    /// `flashlab validate-fs`: the filesystem model against the kernel's ext4.
    #[serde(rename = "validate-fs")]
    ValidateFs(ValidateFsBody),
    /// `flashlab phone ...`: the phone, and the document the run on it wrote.
    #[serde(rename = "phone")]
    Phone(PhoneBody),
}

impl Body {
    /// The value of `command`.
    pub fn command(&self) -> &'static str {
        match self {
            Body::Age(_) => "age",
            Body::Bench(_) => "bench",
            Body::Fill(_) => "fill",
            Body::Wsat(_) => "wsat",
            Body::Run(_) => "run",
            Body::Profiles(_) => "profiles",
            Body::SimWaf(_) => "sim waf",
            Body::SimPlacement(_) => "sim placement",
            Body::Doctor(_) => "doctor",
            Body::Report(_) => "report",
            Body::Calibrate(_) => "calibrate",
            Body::Breakdown(_) => "breakdown",
            Body::Sqlite(_) => "sqlite",
            Body::Serve(_) => "serve",
            Body::Life(_) => "life",
            Body::Sweep(_) => "sweep",
            Body::ValidateFs(_) => "validate-fs",
            Body::Phone(_) => "phone",
        }
    }

    /// The body's tables (the first is the main one, which `--csv` writes).
    pub fn tables(&self) -> Vec<Table> {
        match self {
            Body::Age(b) | Body::Bench(b) => std::iter::once(b.table()).chain(b.device_clock_table()).collect(),
            Body::Fill(b) => b.tables(),
            Body::Wsat(b) => vec![b.table()],
            Body::Run(b) => b.tables(),
            Body::Profiles(b) => vec![b.table()],
            Body::SimWaf(b) => vec![b.table()],
            Body::SimPlacement(b) => vec![b.table()],
            Body::Calibrate(b) => b.tables(),
            Body::Life(b) => vec![b.table()],
            Body::Phone(b) => b.results.as_ref().map(|d| d.tables()).unwrap_or_default(),
            Body::Doctor(_)
            | Body::Report(_)
            | Body::Breakdown(_)
            | Body::Sqlite(_)
            | Body::Serve(_)
            | Body::Sweep(_)
            | Body::ValidateFs(_) => Vec::new(),
        }
    }
}
