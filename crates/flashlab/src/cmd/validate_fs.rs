//! `flashlab validate-fs`: parse the options, run flashlab-validate, print the table, write the
//! JSON (its directory is checked before the run, so a bad path fails at once).

use crate::cli::ValidateFsArgs;
use crate::report::output::write_atomic;
use flashlab_lab::units::parse_cli_size;
use flashlab_validate::options::{Mount, Options, Workload};

pub fn validate_fs(a: &ValidateFsArgs) -> Result<(), String> {
    let workload = Workload::parse(&a.workload).map_err(|e| e.to_string())?;
    let mount = Mount::parse(&a.mount).map_err(|e| e.to_string())?;
    let mut o = Options::new(workload, mount);
    o.image_bytes = parse_cli_size(&a.size).map_err(|e| format!("--size {}: {e}", a.size))?;
    o.fill_percent = a.fill;
    o.writes = a.writes;
    o.transactions = a.transactions;
    o.seed = a.seed;
    o.check().map_err(|e| e.to_string())?;
    if let Some(p) = &a.json {
        // Fail before the run, not after it, when the JSON cannot be written there.
        let dir = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
        if !dir.is_dir() {
            return Err(format!("--json {}: {} is not a directory", p.display(), dir.display()));
        }
    }
    let report = flashlab_validate::run(&o).map_err(|e| e.to_string())?;
    print!("{}", report.render_text());
    if let Some(p) = &a.json {
        write_atomic(p, report.to_json().as_bytes())?;
    }
    Ok(())
}
