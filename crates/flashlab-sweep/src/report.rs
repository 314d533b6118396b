//! The charts of a finished sweep (`flashlab report DIR`): the table rebuilt from the sweep
//! directory (its `sweep.toml` and `cases/`) and drawn by `flashlab_report::sweep`.

use crate::error::SweepError;
use crate::spec::Spec;
use crate::table;
use flashlab_report::sweep::{render_sweep, SweepTable};
use flashlab_report::Report;
use std::path::Path;

/// The copy of the sweep file a sweep directory keeps.
pub const SPEC_FILE: &str = "sweep.toml";

/// Whether `dir` is a sweep's results directory.
pub fn is_sweep_dir(dir: &Path) -> bool {
    dir.join(SPEC_FILE).is_file() && dir.join("cases").is_dir()
}

/// The report of the sweep in `out`.
pub fn sweep_report(out: &Path) -> Result<Report, SweepError> {
    let path = out.join(SPEC_FILE);
    let text = std::fs::read_to_string(&path).map_err(SweepError::io(&path))?;
    let spec = Spec::parse(&path.display().to_string(), &text, out)?;
    let t = table::build(out, &spec)?;
    let title = text
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("name")
                .and_then(|r| r.trim().strip_prefix('='))
                .map(|v| v.trim().trim_matches('"').to_string())
        })
        .unwrap_or_else(|| out.display().to_string());
    let settings = t
        .settings
        .iter()
        .enumerate()
        .map(|(i, (name, _))| {
            (name.clone(), t.rows.iter().map(|r| r.settings[i].as_ref().map_or(String::new(), |p| p.text())).collect())
        })
        .collect();
    let metrics = t
        .metrics
        .iter()
        .enumerate()
        .map(|(i, name)| (name.clone(), t.rows.iter().map(|r| r.metrics[i]).collect()))
        .collect();
    Ok(render_sweep(&SweepTable { title, settings, metrics })?)
}
