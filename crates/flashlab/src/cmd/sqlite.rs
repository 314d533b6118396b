//! `flashlab sqlite`: parse the options, run the SQLite workload (flashlab-sqlite), print the
//! table and write the JSON.

use crate::cli::SqliteArgs;
use crate::error::Error;
use flashlab_sqlite::config::{parse_modes, parse_shape, parse_syncs};
use flashlab_sqlite::{RunOptions, Target, Workload};
use std::time::Duration;

/// `flashlab sqlite`: the SQLite workload on the target.
pub fn sqlite(a: &SqliteArgs) -> Result<(), Error> {
    let wl = Workload::new(
        parse_modes(&a.modes)?,
        parse_syncs(&a.sync)?,
        a.transactions,
        a.batch,
        parse_shape(&a.shape)?,
        a.row_bytes,
        a.seed,
    )?;
    if !a.baseline.is_finite() || !(0.0..=3600.0).contains(&a.baseline) {
        return Err(Error::flag("--baseline", format!("{} is not 0 to 3600 seconds", a.baseline)));
    }
    let target = if a.target.starts_with("sim:") {
        let profile = crate::target::sim_profile(&a.target).map_err(Error::at("--target"))?;
        let fs = super::fs_config(&a.sim_fs, &profile, &a.target)?;
        Target::Sim {
            spec: a.target.clone(),
            profile: Box::new(profile),
            seed: a.seed,
            fs,
            precondition: a.sim_fs.precondition,
        }
    } else {
        let serve = a.target == "serve" || a.target.starts_with("serve:");
        if serve && !std::path::Path::new(&a.target).is_dir() {
            return Err(Error::flag(
                format!("--target {}", a.target),
                "serve devices are not supported as a target name: run flashlab serve --attach, make a filesystem on its loop device, mount it and give that directory (its device counts then come from the simulator's counters); or give sim:PROFILE",
            ));
        }
        if let Some(flag) = a.sim_fs.given() {
            return Err(Error::not_applicable(
                flag,
                format!("applies to simulated targets (sim:PROFILE), not to {}", a.target),
            ));
        }
        Target::Dir(a.target.clone().into())
    };
    let opts = RunOptions { baseline: Duration::from_secs_f64(a.baseline) };
    let quiet = crate::output_args::text_mode() == crate::output_args::TextMode::Silent;
    let report = flashlab_sqlite::run(&target, &wl, &opts, &mut |line| {
        if !quiet {
            eprintln!("  {line}")
        }
    })?;
    crate::out!("{}", flashlab_sqlite::render_table(&report));
    let doc = flashlab_results::Document::new(flashlab_results::Body::Sqlite(flashlab_results::typed(
        "the SQLite results",
        &report,
    )?))
    .target(&a.target)
    .seed(a.seed)
    .param("modes", &a.modes)
    .param("sync", &a.sync)
    .param("transactions", a.transactions)
    .param("batch", a.batch)
    .param("shape", &a.shape)
    .param("row_bytes", a.row_bytes);
    a.out.write(&doc, "sqlite")
}
