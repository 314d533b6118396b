//! `flashlab wsat`: SNIA write saturation on a new device.

use crate::cli::WsatArgs;
use crate::error::Error;
use crate::progress::Progress;
use crate::{out, outln};
use flashlab_lab::experiments::wsat::run_wsat;
use flashlab_results::body::WsatBody;
use flashlab_results::{Body, Document};

/// `flashlab wsat`: SNIA write saturation on a simulated device.
pub fn wsat(a: &WsatArgs) -> Result<(), Error> {
    if !(a.times > 0.0 && a.times <= 1000.0) {
        return Err(Error::flag("--times", format!("must be in (0, 1000] capacities, got {}", a.times)));
    }
    if a.intervals == 0 || a.intervals > 100_000 {
        return Err(Error::flag(format!("--intervals {}", a.intervals), "must be 1..=100000"));
    }
    let (profile, mut sys, pre) = super::system(&a.common)?;
    out!("{}", super::banner("wsat", &a.common, &profile, &sys));
    if pre.precondition != flashlab_lab::precondition::Precondition::Fresh {
        outln!("{}", pre.summary());
    }
    let bar = Progress::new("wsat");
    let r = run_wsat(&mut sys, a.times, a.iodepth.max(1), a.intervals.max(1), a.common.seed, |f| bar.set(f, ""))?;
    bar.finish();
    let mut body: WsatBody = flashlab_results::typed("wsat's results", &r)?;
    body.precondition =
        Some(serde_json::to_value(&pre).map_err(|source| Error::Json { what: "the device's history", source })?);
    let doc = Document::new(Body::Wsat(body))
        .target(&a.common.target)
        .seed(a.common.seed)
        .profile(&profile.name, &profile.description)
        .param("iodepth", a.iodepth)
        .param("times", a.times)
        .param("intervals", a.intervals);
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
    a.out.write(&doc, &format!("wsat {}", a.common.target))
}
