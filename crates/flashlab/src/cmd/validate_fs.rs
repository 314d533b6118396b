//! `flashlab validate-fs`: parse the options, run flashlab-validate, print the table, write the
//! JSON (its directory is checked before the run, so a bad path fails at once).

use crate::cli::ValidateFsArgs;
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
    let report = flashlab_validate::run(&o).map_err(|e| e.to_string())?;
    crate::out!("{}", report.render_text());
    let doc = flashlab_results::Document::new(flashlab_results::Body::ValidateFs(flashlab_results::typed(
        "the comparison",
        &report,
    )?))
    .seed(a.seed)
    .param("workload", &a.workload)
    .param("mount", &a.mount)
    .param("size", &a.size);
    a.out.write(&doc, "validate-fs")
}
