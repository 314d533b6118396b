//! Out-of-sample calibration error: leave-one-out over the published cells of a profile's
//! `[calibrate]` table.
//!
//! The profile names its free knobs (`knobs = ["nand.t_prog_us", ...]`, dotted paths into its
//! TOML). The fit searches a star design around the profile's own values: the profile as it
//! is, and each knob alone scaled by each factor of [`FACTORS`] (integer knobs rounded, at
//! least 1). Every design point is simulated once with the profile's calibration procedure;
//! then, for each published cell, the fit picks the design point with the smallest mean
//! squared log error over all the *other* cells, and the left-out cell's value at that point
//! is its prediction. The in-sample error is the profile's own point's error (the knobs were
//! fitted on all cells). A cell whose prediction is far off the in-sample error depends on
//! that cell for its own fit.

use crate::calibrate::{calibrate, CalibrationReport, CalibrationSpec};
use crate::Error;
use flashsim::Profile;
use serde::Serialize;

/// Factors each knob is moved by, one knob at a time.
pub const FACTORS: [f64; 2] = [0.8, 1.25];

/// One cell with both errors.
#[derive(Debug, Clone, Serialize)]
pub struct LooCell {
    /// The published row (a protocol step's label).
    pub(crate) row: String,
    /// What is compared (`seq write MB/s`).
    pub metric: String,
    /// The published number.
    pub published: f64,
    /// Simulated with the profile as it is, and its relative error.
    pub in_sample: f64,
    /// Relative error of `in_sample`.
    pub(crate) in_sample_error: f64,
    /// Predicted by the fit that did not see this cell, and its relative error.
    pub left_out: f64,
    /// Relative error of `left_out`.
    pub left_out_error: f64,
    /// The design point that fit chose ("profile" or "KNOB x FACTOR").
    pub chosen: String,
}

/// A profile's leave-one-out check: every cell predicted by the fit that did not see it.
#[derive(Debug, Clone, Serialize)]
pub struct LooReport {
    /// The profile's name.
    pub(crate) profile: String,
    /// The knobs varied (dotted paths into the profile).
    pub knobs: Vec<String>,
    /// Profiles simulated: the profile itself and each knob moved by each factor.
    pub design_points: usize,
    /// The cells, in the calibration's order.
    pub cells: Vec<LooCell>,
}

impl LooReport {
    /// Largest left-out relative error, in absolute value.
    pub fn worst_left_out(&self) -> f64 {
        self.cells.iter().map(|c| c.left_out_error.abs()).fold(0.0, f64::max)
    }
}

/// The profile's TOML with the value at dotted `path` multiplied by `factor`.
fn scaled(text: &str, source: &str, path: &str, factor: f64) -> Result<String, Error> {
    let bad_profile = |table: Option<&str>, field: Option<&str>, message: String| Error::ProfileTable {
        file: source.to_string(),
        table: table.map(str::to_string),
        field: field.map(str::to_string),
        message,
    };
    let mut v: toml::Table = text.parse().map_err(|e: toml::de::Error| bad_profile(None, None, e.to_string()))?;
    let mut parts = path.split('.').peekable();
    let mut table = &mut v;
    while let Some(key) = parts.next() {
        let bad =
            || bad_profile(Some("[calibrate]"), Some("knobs"), format!("'{path}' names no number in the profile"));
        if parts.peek().is_none() {
            let slot = table.get_mut(key).ok_or_else(bad)?;
            *slot = match slot {
                toml::Value::Integer(i) => toml::Value::Integer(((*i as f64 * factor).round() as i64).max(1)),
                toml::Value::Float(f) => toml::Value::Float(*f * factor),
                _ => return Err(bad()),
            };
        } else {
            table = table.get_mut(key).and_then(toml::Value::as_table_mut).ok_or_else(bad)?;
        }
    }
    toml::to_string(&v).map_err(|e| bad_profile(None, None, e.to_string()))
}

fn msle(r: &CalibrationReport, skip: Option<usize>) -> f64 {
    let (mut s, mut n) = (0.0, 0);
    for (i, c) in r.cells.iter().enumerate() {
        if Some(i) != skip && c.published > 0.0 && c.simulated > 0.0 {
            s += (c.simulated / c.published).ln().powi(2);
            n += 1;
        }
    }
    if n == 0 {
        f64::INFINITY
    } else {
        s / f64::from(n)
    }
}

/// Leave-one-out over the cells of the profile whose TOML is `text`; `progress` gets the
/// fraction of design points done.
pub fn leave_one_out(
    text: &str,
    source: &str,
    seed: u64,
    mut progress: impl FnMut(f64),
) -> Result<Option<LooReport>, Error> {
    let profile = Profile::from_toml(source, text)?;
    let spec = CalibrationSpec::of(&profile, source)?;
    if spec.knobs.is_empty() {
        return Ok(None);
    }
    let mut points = vec![("profile".to_string(), profile.clone())];
    for k in &spec.knobs {
        for f in FACTORS {
            let t = scaled(text, source, k, f)?;
            let p = Profile::from_toml(source, &t).map_err(Error::within(format!("{k} x {f}")))?;
            points.push((format!("{k} x {f}"), p));
        }
    }
    let n = points.len();
    let mut runs = Vec::with_capacity(n);
    for (i, (label, p)) in points.iter().enumerate() {
        let r = calibrate(p, &spec, seed, |_, f| progress((i as f64 + f) / n as f64))
            .map_err(Error::within(label.as_str()))?;
        runs.push(r);
    }
    let own = &runs[0];
    let cells = own
        .cells
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let best = (0..n).min_by(|&a, &b| msle(&runs[a], Some(i)).total_cmp(&msle(&runs[b], Some(i)))).unwrap_or(0);
            let pred = runs[best].cells[i].simulated;
            LooCell {
                row: c.row.clone(),
                metric: c.metric.clone(),
                published: c.published,
                in_sample: c.simulated,
                in_sample_error: c.error,
                left_out: pred,
                left_out_error: (pred - c.published) / c.published,
                chosen: points[best].0.clone(),
            }
        })
        .collect();
    Ok(Some(LooReport { profile: profile.name.clone(), knobs: spec.knobs.clone(), design_points: n, cells }))
}
