//! `flashlab calibrate`: run each profile's published procedure on the simulated device and
//! print published vs simulated, cell by cell, with the relative error.

use crate::cli::CalibrateArgs;
use crate::progress::Progress;
use crate::report::table::{sig, Table};
use flashlab_lab::calibrate::{calibrate as run, CalibrationSpec};
use flashlab_lab::profiles;
use std::time::Instant;

pub fn calibrate(a: &CalibrateArgs) -> Result<(), String> {
    let names: Vec<String> = if a.all {
        profiles::BUILTIN.iter().map(|(n, _)| n.to_string()).collect()
    } else if a.profiles.is_empty() {
        return Err("name a profile (flashlab calibrate nexus7-2012), or --all".into());
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
            Err(e) => return Err(e),
        };
        let bar = Progress::new(&format!("calibrate {name}"));
        let wall = Instant::now();
        let r = run(&profile, &spec, a.seed, |what, f| bar.set(f, what))?;
        bar.finish();
        println!(
            "{name}: {} (procedure '{}'{}, device {})",
            spec.source,
            spec.procedure,
            spec.protocol.as_deref().map(|p| format!(" {p}")).unwrap_or_default(),
            spec.precondition
        );
        let mut t = Table::new(&[("row", ""), ("metric", ""), ("published", ""), ("simulated", ""), ("error", "%")]);
        for c in &r.cells {
            t.row(vec![
                c.row.clone(),
                c.metric.clone(),
                sig(c.published, 3),
                sig(c.simulated, 3),
                format!("{:+.1}", c.error * 100.0),
            ]);
        }
        print!("{}", t.render());
        println!(
            "largest error {:.1} %; simulated with seed {} in {:.1} s of wall time\n",
            r.worst() * 100.0,
            a.seed,
            wall.elapsed().as_secs_f64()
        );
        reports.push(r);
    }
    if let Some(path) = &a.json {
        let text = serde_json::to_string_pretty(&reports).map_err(|e| e.to_string())?;
        flashlab_report::write_atomic(path, text.as_bytes()).map_err(|e| e.to_string())?;
    }
    Ok(())
}
