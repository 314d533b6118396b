//! `flashlab report`: results files to one self-contained HTML report; and `--report FILE` on
//! the other commands, which draws their own results directly.

use crate::cli::ReportArgs;
use crate::error::Error;
use crate::outln;
use flashlab_report::{render_report, render_report_values, write_outputs};
use flashlab_results::body::ReportBody;
use flashlab_results::{Body, Document};
use std::path::{Path, PathBuf};

/// `flashlab report FILES...`: results files (or a sweep directory) to one HTML report.
pub fn report(a: &ReportArgs) -> Result<(), Error> {
    let html: PathBuf = match (&a.output, &a.out.report) {
        (Some(_), Some(_)) => return Err(Error::Usage("--report and -o/--output name the same file; give one".into())),
        (Some(p), None) | (None, Some(p)) => p.clone(),
        (None, None) => PathBuf::from("report.html"),
    };
    let written = match a.files.as_slice() {
        [dir] if dir.is_dir() => {
            // A `flashlab sweep` directory: charts per setting and heatmaps.
            let r = flashlab_sweep::report::sweep_report(dir)?;
            write_outputs(&r, Some(&html), a.svg.as_deref())?
        }
        _ => {
            let mut inputs = Vec::new();
            for f in &a.files {
                let text =
                    flashlab_jobs::limits::read_text(f, "results file", flashlab_jobs::limits::MAX_RESULTS_INPUT)?;
                inputs.push((f.display().to_string(), text));
            }
            let r = render_report(&inputs)?;
            write_outputs(&r, Some(&html), a.svg.as_deref())?
        }
    };
    for p in &written {
        outln!("wrote {}", p.display());
    }
    let doc = Document::new(Body::Report(ReportBody {
        inputs: a.files.iter().map(|f| f.display().to_string()).collect(),
        written: written.iter().map(|p| p.display().to_string()).collect(),
    }));
    let mut out = a.out.clone();
    out.report = None;
    out.write(&doc, "report")
}

/// Write the HTML report of one command's results document (`name` labels it in the charts).
pub fn write_for(path: &Path, name: &str, doc: serde_json::Value) -> Result<(), Error> {
    let r = render_report_values(&[(name.to_string(), doc)])?;
    write_outputs(&r, Some(path), None)?;
    outln!("report written to {}", path.display());
    Ok(())
}
