//! `flashlab calibrate`: run each profile's published procedure on the simulated device and
//! print published vs simulated, cell by cell, with the relative error.

use crate::cli::CalibrateArgs;
use crate::error::Error;
use crate::outln;
use crate::progress::Progress;
use flashlab_lab::calibrate::{calibrate as run, CalibrationSpec};
use flashlab_lab::calibrate_loo::leave_one_out;
use flashlab_lab::profiles;
use flashlab_results::body::{CalibrateBody, CalibrationCell, CalibrationProfile};
use flashlab_results::{Body, Document};
use std::time::Instant;

/// `flashlab calibrate`: published vs simulated for each named profile.
pub fn calibrate(a: &CalibrateArgs) -> Result<(), Error> {
    let names: Vec<String> = if a.all {
        profiles::BUILTIN.iter().map(|(n, _)| n.to_string()).collect()
    } else if a.profiles.is_empty() {
        return Err(Error::Usage("name a profile (flashlab calibrate nexus7-2012), or --all".into()));
    } else {
        a.profiles.clone()
    };
    let mut reports = Vec::new();
    for name in &names {
        let target = if name.starts_with("sim:") { name.clone() } else { format!("sim:{name}") };
        let profile = crate::target::sim_profile(&target)?;
        let spec = match CalibrationSpec::of(&profile, name) {
            Ok(s) => s,
            Err(e) if a.all => {
                eprintln!("skipped {name}: {e}");
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let bar = Progress::new(&format!("calibrate {name}"));
        let wall = Instant::now();
        let r = run(&profile, &spec, a.seed, |what, f| bar.set(f, what))?;
        bar.finish();
        let loo = if a.no_loo {
            None
        } else {
            let text = profile_text(&target)?;
            let bar = Progress::new(&format!("leave-one-out {name}"));
            let l = leave_one_out(&text, name, a.seed, |f| bar.set(f, "fits"))?;
            bar.finish();
            l
        };
        outln!(
            "{name}: {} (procedure '{}'{}, device {})",
            spec.source,
            spec.procedure,
            spec.protocol.as_deref().map(|p| format!(" {p}")).unwrap_or_default(),
            spec.precondition
        );
        let mut typed: CalibrationProfile = flashlab_results::typed("the calibration", &r)?;
        typed.cells = r
            .cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let l = loo.as_ref().and_then(|l| l.cells.get(i));
                CalibrationCell {
                    row: c.row.clone(),
                    metric: c.metric.clone(),
                    published: c.published,
                    simulated: c.simulated,
                    error: c.error,
                    left_out: l.map(|l| l.left_out),
                    left_out_error: l.map(|l| l.left_out_error),
                }
            })
            .collect();
        typed.leave_one_out = loo
            .as_ref()
            .map(serde_json::to_value)
            .transpose()
            .map_err(|source| Error::Json { what: "the leave-one-out fit", source })?;
        let one = CalibrateBody { profiles: vec![typed] };
        for t in one.tables() {
            crate::output_args::table(&t);
        }
        match &loo {
            Some(l) => crate::proseln!(
                "leave-one-out: each cell predicted by the best of {} design points (the profile, and each of {} moved alone by x0.8 and x1.25) on the other cells; largest LOO error {:.1} %",
                l.design_points,
                l.knobs.join(", "),
                l.worst_left_out() * 100.0
            ),
            None if a.no_loo => {}
            None => crate::proseln!("leave-one-out: the profile's [calibrate] table names no knobs"),
        }
        crate::proseln!(
            "largest error {:.1} %; simulated with seed {} in {:.1} s of wall time\n",
            r.worst() * 100.0,
            a.seed,
            wall.elapsed().as_secs_f64()
        );
        reports.extend(one.profiles);
    }
    let doc = Document::new(Body::Calibrate(CalibrateBody { profiles: reports }))
        .seed(a.seed)
        .param("profiles", &names)
        .param("no_loo", a.no_loo);
    a.out.write(&doc, "calibrate")
}

/// The TOML text of `sim:NAME` or `sim:FILE.toml` (the leave-one-out fit edits it).
fn profile_text(target: &str) -> Result<String, Error> {
    let spec = target.trim_start_matches("sim:");
    match profiles::builtin(spec) {
        Some(t) => Ok(t.to_string()),
        None => std::fs::read_to_string(spec).map_err(Error::io(spec)),
    }
}
