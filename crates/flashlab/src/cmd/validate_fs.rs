//! `flashlab validate-fs`: parse the options, run flashlab-validate, print the table, write the
//! JSON (its directory is checked before the run, so a bad path fails at once).

use crate::cli::ValidateFsArgs;
use crate::error::Error;
use flashlab_lab::units::parse_cli_size;
use flashlab_validate::options::{f2fs_mount_options, FsChoice, Mount, Options, Workload};

/// `flashlab validate-fs`: the filesystem model against the kernel's ext4 (here) or F2FS (in a
/// VM).
pub fn validate_fs(a: &ValidateFsArgs) -> Result<(), Error> {
    if let Some(request) = &a.guest {
        return Ok(flashlab_validate::guest::run_guest(request)?);
    }
    let name = a.workload.as_deref().unwrap_or_default();
    let workload = Workload::parse(name)?;
    let fs = FsChoice::parse(&a.fs)?;
    let mut o = match fs {
        FsChoice::Ext4 => Options::new(workload, Mount::parse(&a.mount)?),
        FsChoice::F2fs => {
            let mut o = Options::new(workload, Mount::Default);
            o.fs = FsChoice::F2fs;
            o.f2fs_mount = f2fs_mount_options(&a.mount)?;
            o.image_bytes = 256 << 20;
            // The F2FS phone of the comparisons (its timing only sets the model's clock).
            o.model_profile = "motox-2013".into();
            o
        }
    };
    if let Some(size) = &a.size {
        o.image_bytes = parse_cli_size(size).map_err(Error::at(format!("--size {size}")))?;
    }
    o.fill_percent = a.fill;
    o.writes = a.writes;
    o.transactions = a.transactions;
    o.seed = a.seed;
    o.check()?;
    let report = match &a.kernel_results {
        Some(file) if o.fs == FsChoice::F2fs => {
            flashlab_validate::f2fs_run::compare_saved(std::slice::from_ref(&o), file, 0.0)?.pop().expect("one job")?
        }
        Some(_) => return Err(Error::Usage("--kernel-results applies to --fs f2fs".into())),
        None => flashlab_validate::run(&o)?,
    };
    crate::out!("{}", report.render_text());
    let doc = flashlab_results::Document::new(flashlab_results::Body::ValidateFs(flashlab_results::typed(
        "the comparison",
        &report,
    )?))
    .seed(a.seed)
    .param("workload", name)
    .param("fs", &a.fs)
    .param("mount", &a.mount)
    .param("size", format!("{}", o.image_bytes));
    a.out.write(&doc, "validate-fs")
}
