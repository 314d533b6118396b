//! `flashlab doctor`: inspect the live system or a captured tree and report what slows its
//! flash storage (the work is in flashlab-doctor).

use crate::cli::DoctorArgs;
use crate::error::Error;
use crate::output_args::{text_mode, OutputArgs, TextMode};
use flashlab_results::{Body, Document};
use std::io::IsTerminal;

/// `flashlab doctor`: inspect the live system or a captured tree.
pub fn doctor(a: &DoctorArgs) -> Result<(), Error> {
    let report = match &a.root {
        Some(root) => {
            if !root.is_dir() {
                return Err(Error::flag(
                    format!("--root {}", root.display()),
                    "not a directory (give the top of a captured tree, see docs/doctor.md)",
                ));
            }
            flashlab_doctor::inspect(root)
        }
        None => flashlab_doctor::inspect_live(),
    };
    let mut doc = document(&report)?;
    if let Some(r) = &a.root {
        doc = doc.param("root", r.display().to_string());
    }
    print_report(&report, &doc, &a.out)
}

/// The results document of a doctor report.
pub fn document(report: &flashlab_doctor::Report) -> Result<Document, Error> {
    Ok(Document::new(Body::Doctor(flashlab_results::typed("the doctor's report", report)?)))
}

/// Print a doctor report (in colour on a terminal unless NO_COLOR is set) and write its
/// document where the output options say. `flashlab phone doctor` prints the same way.
pub fn print_report(report: &flashlab_doctor::Report, doc: &Document, out: &OutputArgs) -> Result<(), Error> {
    let stream_is_terminal = match text_mode() {
        TextMode::Stdout => std::io::stdout().is_terminal(),
        _ => std::io::stderr().is_terminal(),
    };
    let color = stream_is_terminal && std::env::var_os("NO_COLOR").map(|v| v.is_empty()).unwrap_or(true);
    crate::out!("{}", flashlab_doctor::render_text(report, color));
    out.write(doc, "doctor")
}
