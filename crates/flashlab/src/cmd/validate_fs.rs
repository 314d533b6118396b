//! `flashlab validate-fs`: parse the options, run flashlab-validate, print the table, write the
//! JSON (its directory is checked before the run, so a bad path fails at once).

use crate::cli::ValidateFsArgs;
use crate::error::Error;
use flashlab_lab::units::parse_cli_size;
use flashlab_validate::options::{Mount, Options, Workload};

/// `flashlab validate-fs`: the filesystem model against the kernel's ext4.
pub fn validate_fs(a: &ValidateFsArgs) -> Result<(), Error> {
    let workload = Workload::parse(&a.workload)?;
    let mount = Mount::parse(&a.mount)?;
    let mut o = Options::new(workload, mount);
    o.image_bytes = parse_cli_size(&a.size).map_err(Error::at(format!("--size {}", a.size)))?;
    o.fill_percent = a.fill;
    o.writes = a.writes;
    o.transactions = a.transactions;
    o.seed = a.seed;
    o.check()?;
    let report = flashlab_validate::run(&o)?;
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
