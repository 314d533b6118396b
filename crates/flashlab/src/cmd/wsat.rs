//! `flashlab wsat`: SNIA write saturation on a new device.

use crate::cli::WsatArgs;
use crate::progress::Progress;
use crate::{out, outln};
use flashlab_lab::experiments::wsat::run_wsat;
use flashlab_results::body::WsatBody;
use flashlab_results::{Body, Document};

pub fn wsat(a: &WsatArgs) -> Result<(), String> {
    if !(a.times > 0.0 && a.times <= 1000.0) {
        return Err(format!("--times must be in (0, 1000] capacities, got {}", a.times));
    }
    if a.intervals == 0 || a.intervals > 100_000 {
        return Err(format!("--intervals {}: must be 1..=100000", a.intervals));
    }
    let (profile, mut sys, pre) = super::system(&a.common)?;
    out!("{}", super::banner("wsat", &a.common, &profile, &sys));
    if pre.precondition != flashlab_lab::precondition::Precondition::Fresh {
        outln!("{}", pre.summary());
    }
    let bar = Progress::new("wsat");
    let r = run_wsat(&mut sys, a.times, a.iodepth.max(1), a.intervals.max(1), a.common.seed, |f| bar.set(f, ""))
        .map_err(|e| e.to_string())?;
    bar.finish();
    let mut body: WsatBody = flashlab_results::typed("wsat's results", &r)?;
    body.precondition = Some(serde_json::to_value(&pre).map_err(|e| e.to_string())?);
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
    outln!(
        "4 KiB random writes at QD{} over the whole device; every {}th interval shown (--csv for all)",
        a.iodepth,
        step
    );
    a.out.write(&doc, &format!("wsat {}", a.common.target))
}
