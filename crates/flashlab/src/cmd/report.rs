//! `flashlab report`: results files to one self-contained HTML report; and `--report FILE` on
//! the other commands, which draws their own results directly.

use crate::cli::ReportArgs;
use flashlab_report::{render_report, render_report_values, write_outputs};
use std::path::Path;

pub fn report(a: &ReportArgs) -> Result<(), String> {
    if let [dir] = a.files.as_slice() {
        if dir.is_dir() {
            // A `flashlab sweep` directory: charts per setting and heatmaps.
            let r = flashlab_sweep::report::sweep_report(dir)?;
            for p in write_outputs(&r, Some(&a.output), a.svg.as_deref()).map_err(|e| e.to_string())? {
                println!("wrote {}", p.display());
            }
            return Ok(());
        }
    }
    let mut inputs = Vec::new();
    for f in &a.files {
        let text = flashlab_jobs::limits::read_text(f, "results file", flashlab_jobs::limits::MAX_RESULTS_INPUT)?;
        inputs.push((f.display().to_string(), text));
    }
    let r = render_report(&inputs).map_err(|e| e.to_string())?;
    let written = write_outputs(&r, Some(&a.output), a.svg.as_deref()).map_err(|e| e.to_string())?;
    for p in written {
        println!("wrote {}", p.display());
    }
    Ok(())
}

/// Write the HTML report of one command's results document (`name` labels it in the charts).
pub fn write_for(path: &Path, name: &str, doc: serde_json::Value) -> Result<(), String> {
    let r = render_report_values(&[(name.to_string(), doc)]).map_err(|e| e.to_string())?;
    write_outputs(&r, Some(path), None).map_err(|e| e.to_string())?;
    eprintln!("report written to {}", path.display());
    Ok(())
}
