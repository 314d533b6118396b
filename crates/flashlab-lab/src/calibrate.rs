//! Calibration: run the procedure a profile's `[calibrate]` table names on the simulated device,
//! and set what came out beside the published numbers the table quotes, cell by cell, with the
//! relative error.
//!
//! Two procedures:
//! - `protocol`: a protocol (by default `age`, AnandTech's procedure) runs on a new device and
//!   each `[[calibrate.row]]` is matched, by label, with a four-corner row of the run;
//! - `vendor`: a vendor datasheet's fresh-device figures: sequential read and write MB/s and
//!   4 KiB random read and write IOPS at the queue depth the vendor quotes (QD32 by default),
//!   over a span of the new device.
//!
//! The published numbers are data of the profile: they are printed as the reference column,
//! never used to make a simulated one.

use crate::engine::{run_jobs, JobSpec};
use crate::fourcorner::FourCornerConfig;
use crate::precondition::Precondition;
use crate::protocol::{run_protocol, Protocol};
use crate::units::parse_cli_size;
use crate::Error;
use flashlab_jobs::Rw;
use flashlab_simfs::FsConfig;
use flashsim::Profile;
use serde::{Deserialize, Serialize};

/// A profile's `[calibrate]` table: the published numbers and how to reproduce them.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CalibrationSpec {
    /// Where the published numbers come from.
    pub source: String,
    /// `protocol` or `vendor`.
    pub procedure: String,
    /// The protocol a `protocol` procedure runs (a built-in name); default `age`.
    #[serde(default)]
    pub protocol: Option<String>,
    /// The device's history before the procedure (`fresh`, `used`, `steady`); default fresh.
    /// The profile's comments say why the published numbers imply it.
    #[serde(default)]
    pub precondition: Precondition,
    /// The free knobs fitted to the published cells, as dotted paths into the profile
    /// (`nand.t_prog_us`): `calibrate` varies them for its leave-one-out error
    /// ([`crate::calibrate_loo`]).
    #[serde(default)]
    pub(crate) knobs: Vec<String>,
    /// The published rows of a `protocol` procedure.
    #[serde(default)]
    pub(crate) row: Vec<RowSpec>,
    /// The datasheet figures of a `vendor` procedure.
    #[serde(default)]
    pub(crate) vendor: Option<VendorSpec>,
}

/// Published four-corner numbers after a protocol step (MB/s = 10^6 bytes/s).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowSpec {
    /// The protocol's four-corner step the row was measured after.
    pub(crate) label: String,
    /// Sequential read, MB/s.
    pub(crate) seq_read_mbs: Option<f64>,
    /// Sequential write, MB/s.
    pub(crate) seq_write_mbs: Option<f64>,
    /// Random read, MB/s.
    pub(crate) rand_read_mbs: Option<f64>,
    /// Random write, MB/s.
    pub(crate) rand_write_mbs: Option<f64>,
}

/// A datasheet's fresh-device figures.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VendorSpec {
    /// Sequential read, MB/s.
    pub(crate) seq_read_mbs: Option<f64>,
    /// Sequential write, MB/s.
    pub(crate) seq_write_mbs: Option<f64>,
    /// 4 KiB random read IOPS.
    pub(crate) rand_read_iops: Option<f64>,
    /// 4 KiB random write IOPS.
    pub(crate) rand_write_iops: Option<f64>,
    /// Queue depth of every test (default 32; a device without a command queue runs QD1 anyway).
    #[serde(default)]
    pub(crate) iodepth: Option<u32>,
    /// Sequential request size (default 512 KiB).
    #[serde(default)]
    pub(crate) seq_bs: Option<String>,
    /// Span of the tests (default 1 GiB).
    #[serde(default)]
    pub(crate) span: Option<String>,
}

/// One compared number.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    /// The published row.
    pub row: String,
    /// What is compared (`seq write MB/s`, `rand read IOPS`).
    pub metric: String,
    /// The published number.
    pub published: f64,
    /// The simulated number.
    pub simulated: f64,
    /// (simulated - published) / published.
    pub error: f64,
}

/// The outcome of a calibration: every published number beside the simulated one.
#[derive(Debug, Clone, Serialize)]
pub struct CalibrationReport {
    /// The profile's name.
    pub profile: String,
    /// Where the published numbers come from.
    pub(crate) source: String,
    /// `protocol` or `vendor`.
    pub procedure: String,
    /// The simulated filesystem the procedure ran on (the profile's `[system]`).
    pub(crate) filesystem: String,
    /// The device's history before the procedure.
    pub precondition: Precondition,
    /// The compared numbers.
    pub cells: Vec<Cell>,
}

impl CalibrationReport {
    /// Largest relative error, in absolute value.
    pub fn worst(&self) -> f64 {
        self.cells.iter().map(|c| c.error.abs()).fold(0.0, f64::max)
    }
    /// The cell of `row` and `metric`, if published.
    pub fn cell(&self, row: &str, metric: &str) -> Option<&Cell> {
        self.cells.iter().find(|c| c.row == row && c.metric == metric)
    }
}

/// An error about `table`'s `field` in profile `source`.
fn table_error(source: &str, table: Option<&str>, field: Option<&str>, message: String) -> Error {
    Error::ProfileTable {
        file: source.to_string(),
        table: table.map(str::to_string),
        field: field.map(str::to_string),
        message,
    }
}

/// A published number is a positive, finite measurement: NaN, infinity, zero or a negative
/// value would make every relative error meaningless (and a NaN error compares as "fine").
fn published_numbers(source: &str, table: &str, fields: &[(&str, Option<f64>)]) -> Result<(), Error> {
    for (field, v) in fields {
        if let Some(v) = v {
            if !(v.is_finite() && *v > 0.0 && *v <= 1e12) {
                return Err(table_error(
                    source,
                    Some(table),
                    Some(field),
                    format!("{v} is not a published measurement (a number > 0 and <= 1e12)"),
                ));
            }
        }
    }
    Ok(())
}

impl CalibrationSpec {
    /// The `[calibrate]` table of `profile`; errors name the profile (`source`) and the field.
    pub fn of(profile: &Profile, source: &str) -> Result<CalibrationSpec, Error> {
        let bad = |table: &str, field: Option<&str>, message: String| table_error(source, Some(table), field, message);
        let table = profile.calibrate.clone().ok_or_else(|| {
            table_error(
                source,
                None,
                None,
                format!("profile '{}' has no [calibrate] table to compare with", profile.name),
            )
        })?;
        let spec: CalibrationSpec = toml::Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| bad("[calibrate]", None, e.to_string()))?;
        match spec.procedure.as_str() {
            "protocol" => {
                if spec.row.is_empty() {
                    return Err(bad("[calibrate]", None, "procedure 'protocol' needs [[calibrate.row]] tables".into()));
                }
                let name = spec.protocol.as_deref().unwrap_or("age");
                if Protocol::builtin(name).is_none() {
                    return Err(bad("[calibrate]", Some("protocol"), format!("no built-in protocol '{name}'")));
                }
                for r in &spec.row {
                    let fields = [
                        ("seq_read_mbs", r.seq_read_mbs),
                        ("seq_write_mbs", r.seq_write_mbs),
                        ("rand_read_mbs", r.rand_read_mbs),
                        ("rand_write_mbs", r.rand_write_mbs),
                    ];
                    published_numbers(source, &format!("[[calibrate.row]] '{}'", r.label), &fields)?;
                }
            }
            "vendor" => {
                let v = spec.vendor.as_ref().ok_or_else(|| {
                    bad("[calibrate]", None, "procedure 'vendor' needs a [calibrate.vendor] table".into())
                })?;
                for (field, s) in [("seq_bs", &v.seq_bs), ("span", &v.span)] {
                    if let Some(s) = s {
                        parse_cli_size(s).map_err(|e| bad("[calibrate.vendor]", Some(field), e.to_string()))?;
                    }
                }
                published_numbers(
                    source,
                    "[calibrate.vendor]",
                    &[
                        ("seq_read_mbs", v.seq_read_mbs),
                        ("seq_write_mbs", v.seq_write_mbs),
                        ("rand_read_iops", v.rand_read_iops),
                        ("rand_write_iops", v.rand_write_iops),
                    ],
                )?;
                if v.iodepth == Some(0) {
                    return Err(bad("[calibrate.vendor]", Some("iodepth"), "must be at least 1".into()));
                }
            }
            other => {
                return Err(bad("[calibrate]", Some("procedure"), format!("'{other}' is not 'protocol' or 'vendor'")))
            }
        }
        Ok(spec)
    }
}

fn cell(row: &str, metric: &str, published: Option<f64>, simulated: f64, out: &mut Vec<Cell>) {
    if let Some(p) = published {
        out.push(Cell { row: row.into(), metric: metric.into(), published: p, simulated, error: (simulated - p) / p });
    }
}

/// Run the calibration procedure of `profile` on a new simulated device (seed `seed`);
/// `progress` gets (what, fraction).
pub fn calibrate(
    profile: &Profile,
    spec: &CalibrationSpec,
    seed: u64,
    mut progress: impl FnMut(&str, f64),
) -> Result<CalibrationReport, Error> {
    let fs = FsConfig::from_profile(profile, &profile.name).map_err(|e| Error::FsModel(e.to_string()))?;
    let (mut sys, _) = crate::precondition::system(profile, seed, fs, spec.precondition)?;
    let mut cells = Vec::new();
    match spec.procedure.as_str() {
        "protocol" => {
            let name = spec.protocol.as_deref().unwrap_or("age");
            let mut proto = Protocol::builtin(name).ok_or_else(|| Error::UnknownProtocol {
                name: name.to_string(),
                builtin: crate::protocol::BUILTIN.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "),
            })?;
            // Steps after the last compared row cannot change it: stop there.
            let last = proto.steps.iter().rposition(|s| {
                matches!(s, crate::protocol::Step::FourCorner { label } if spec.row.iter().any(|r| &r.label == label))
            });
            if let Some(last) = last {
                proto.steps.truncate(last + 1);
            }
            let fc = FourCornerConfig { seed, ..FourCornerConfig::default() };
            let r =
                run_protocol(&mut sys, &proto, &fc, |i, n, what, f| progress(what, ((i - 1) as f64 + f) / n as f64))?;
            for row in &spec.row {
                let got = r
                    .steps
                    .iter()
                    .find(|s| s.label == row.label)
                    .ok_or_else(|| Error::CalibrateRow { label: row.label.clone(), protocol: name.to_string() })?;
                cell(&row.label, "seq read MB/s", row.seq_read_mbs, got.seq_read_mbs, &mut cells);
                cell(&row.label, "seq write MB/s", row.seq_write_mbs, got.seq_write_mbs, &mut cells);
                cell(&row.label, "rand read MB/s", row.rand_read_mbs, got.rand_read_mbs, &mut cells);
                cell(&row.label, "rand write MB/s", row.rand_write_mbs, got.rand_write_mbs, &mut cells);
            }
        }
        _ => {
            let v = spec.vendor.as_ref().expect("validated");
            let qd = v.iodepth.unwrap_or(32);
            let seq_bs = v.seq_bs.as_deref().map_or(512 << 10, |s| parse_cli_size(s).expect("validated"));
            let span = v.span.as_deref().map_or(1 << 30, |s| parse_cli_size(s).expect("validated"));
            let span = span.min(sys.fs().free_bytes() / 2) / seq_bs * seq_bs;
            let file = sys.create("calibrate", span)?;
            let tests = [
                ("seq write", Rw::Write, seq_bs, span),
                ("seq read", Rw::Read, seq_bs, span),
                ("rand read", Rw::RandRead, 4096, span.min(256 << 20)),
                ("rand write", Rw::RandWrite, 4096, span.min(256 << 20)),
            ];
            let mut got = [0.0f64; 4];
            for (i, (what, rw, bs, io)) in tests.into_iter().enumerate() {
                let mut job = JobSpec::on_file(what, rw, bs, file, span);
                job.settings.iodepth = qd;
                job.settings.io_limit = Some(io);
                job.settings.seed = seed + i as u64;
                let r = run_jobs(&mut sys, &[job], |f| progress(what, f))?;
                let d = if matches!(rw, Rw::Write | Rw::RandWrite) { &r[0].write } else { &r[0].read };
                got[i] = if bs == 4096 { d.iops() } else { d.bw_bytes_per_sec() / 1e6 };
            }
            let row = format!("new, QD{qd}");
            cell(&row, "seq read MB/s", v.seq_read_mbs, got[1], &mut cells);
            cell(&row, "seq write MB/s", v.seq_write_mbs, got[0], &mut cells);
            cell(&row, "rand read IOPS", v.rand_read_iops, got[2], &mut cells);
            cell(&row, "rand write IOPS", v.rand_write_iops, got[3], &mut cells);
        }
    }
    Ok(CalibrationReport {
        filesystem: sys.fs().config().label(),
        precondition: spec.precondition,
        profile: profile.name.clone(),
        source: spec.source.clone(),
        procedure: spec.procedure.clone(),
        cells,
    })
}
