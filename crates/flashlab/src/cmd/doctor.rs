//! `flashlab doctor`: inspect the live system or a captured tree and report what slows its
//! flash storage (the work is in flashlab-doctor).

use crate::cli::DoctorArgs;
use std::io::{IsTerminal, Write};

pub fn doctor(a: &DoctorArgs) -> Result<(), String> {
    let report = match &a.root {
        Some(root) => {
            if !root.is_dir() {
                return Err(format!(
                    "--root {}: not a directory (give the top of a captured tree, see docs/doctor.md)",
                    root.display()
                ));
            }
            flashlab_doctor::inspect(root)
        }
        None => flashlab_doctor::inspect_live(),
    };
    print_report(&report, a.json)
}

/// Print a doctor report on stdout: JSON, or the text rendering (in colour on a terminal
/// unless NO_COLOR is set). `flashlab phone doctor` prints the same way.
pub fn print_report(report: &flashlab_doctor::Report, json: bool) -> Result<(), String> {
    let text = if json {
        let mut s =
            serde_json::to_string_pretty(report).map_err(|e| format!("cannot write the report as JSON: {e}"))?;
        s.push('\n');
        s
    } else {
        let color =
            std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").map(|v| v.is_empty()).unwrap_or(true);
        flashlab_doctor::render_text(report, color)
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|_| out.flush()).map_err(|e| format!("cannot write the report: {e}"))
}
