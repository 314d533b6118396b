//! `flashlab fill`: write latency percentiles while filling a new device with random writes.

use crate::cli::FillArgs;
use crate::progress::Progress;
use crate::report::output::write_json;
use crate::report::table::{sig, Table};
use flashlab_lab::experiments::fill::run_fill;
use serde_json::json;

pub fn fill(a: &FillArgs) -> Result<(), String> {
    let (profile, mut sys, pre) = super::system(&a.common)?;
    print!("{}", super::banner("fill", &a.common, &profile, &sys));
    if pre.precondition != flashlab_lab::precondition::Precondition::Fresh {
        println!("{}", pre.summary());
    }
    let bar = Progress::new("fill");
    let r = run_fill(&mut sys, a.iodepth.max(1), a.common.seed, |f| bar.set(f, "")).map_err(|e| e.to_string())?;
    bar.finish();
    let mut t = Table::new(&[
        ("filled", "%"),
        ("p50", "us"),
        ("p90", "us"),
        ("p99", "us"),
        ("p99.9", "us"),
        ("max", "us"),
        ("mean", "us"),
        ("write", "MB/s"),
        ("WAF", ""),
    ]);
    for d in &r.deciles {
        t.row(vec![
            d.filled_pct.to_string(),
            sig(d.p50_us, 3),
            sig(d.p90_us, 3),
            sig(d.p99_us, 3),
            sig(d.p999_us, 3),
            sig(d.max_us, 3),
            sig(d.mean_us, 3),
            sig(d.mbs, 3),
            format!("{:.2}", d.write_amplification),
        ]);
    }
    print!("{}", t.render());
    println!("4 KiB random writes at QD{}, each block of {} bytes once; percentiles per tenth of the fill; MB/s = 10^6 bytes/s", a.iodepth, r.bytes);
    let doc =
        json!({"command": "fill", "target": a.common.target, "seed": a.common.seed, "precondition": pre, "result": r});
    if let Some(p) = &a.common.json {
        write_json(p, &doc)?;
    }
    if let Some(p) = &a.common.report {
        super::report::write_for(p, &format!("fill {}", a.common.target), doc)?;
    }
    Ok(())
}
