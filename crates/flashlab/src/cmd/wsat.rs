//! `flashlab wsat`: SNIA write saturation on a new device (the work, from settings to the
//! results document, is `flashlab_lab::experiments::wsat::run`; this parses the options,
//! calls it, prints the table and writes the files).

use crate::cli::WsatArgs;
use crate::error::Error;
use crate::progress::Progress;
use crate::{out, outln};
use flashlab_lab::experiments::wsat::{self, WsatRun};

/// `flashlab wsat`: SNIA write saturation on a simulated device.
pub fn wsat(a: &WsatArgs) -> Result<(), Error> {
    if !(a.times > 0.0 && a.times <= 1000.0) {
        return Err(Error::flag("--times", format!("must be in (0, 1000] capacities, got {}", a.times)));
    }
    if a.intervals == 0 || a.intervals > 100_000 {
        return Err(Error::flag(format!("--intervals {}", a.intervals), "must be 1..=100000"));
    }
    let c = &a.common;
    let profile = crate::target::sim_profile(&c.target)?;
    let fs = super::fs_config(&c.sim_fs, &profile, &c.target)?;
    out!("{}", super::banner_fs("wsat", c, &profile, &fs));
    let bar = Progress::new("wsat");
    let r = WsatRun {
        target: &c.target,
        profile: &profile,
        fs,
        precondition: c.sim_fs.precondition,
        seed: c.seed,
        times: a.times,
        iodepth: a.iodepth,
        intervals: a.intervals,
    };
    let out = wsat::run(&r, |f| bar.set(f, ""))?;
    bar.finish();
    if out.precondition.precondition != flashlab_lab::precondition::Precondition::Fresh {
        outln!("{}", out.precondition.summary());
    }
    let doc = out.document;
    // The terminal shows every step-th interval (and the last); --csv and --json have them all.
    let mut t = doc.tables().remove(0);
    let step = (t.rows.len() / 20).max(1);
    let n = t.rows.len();
    t.rows =
        t.rows.into_iter().enumerate().filter(|(i, _)| i % step == step - 1 || i + 1 == n).map(|(_, r)| r).collect();
    crate::output_args::table(&t);
    crate::proseln!(
        "4 KiB random writes at QD{} over the whole device; every {}th interval shown (--csv for all)",
        a.iodepth,
        step
    );
    a.out.write(&doc, &format!("wsat {}", c.target))
}
