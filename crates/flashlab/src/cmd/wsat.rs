//! `flashlab wsat`: SNIA write saturation on a new device.

use crate::cli::WsatArgs;
use crate::progress::Progress;
use crate::report::output::{write_atomic, write_json};
use crate::report::table::{sig, Table};
use flashlab_lab::experiments::wsat::run_wsat;
use serde_json::json;

pub fn wsat(a: &WsatArgs) -> Result<(), String> {
    if !(a.times > 0.0 && a.times <= 1000.0) {
        return Err(format!("--times must be in (0, 1000] capacities, got {}", a.times));
    }
    if a.intervals == 0 || a.intervals > 100_000 {
        return Err(format!("--intervals {}: must be 1..=100000", a.intervals));
    }
    let (profile, mut sys, pre) = super::system(&a.common)?;
    print!("{}", super::banner("wsat", &a.common, &profile, &sys));
    if pre.precondition != flashlab_lab::precondition::Precondition::Fresh {
        println!("{}", pre.summary());
    }
    let bar = Progress::new("wsat");
    let r = run_wsat(&mut sys, a.times, a.iodepth.max(1), a.intervals.max(1), a.common.seed, |f| bar.set(f, ""))
        .map_err(|e| e.to_string())?;
    bar.finish();
    let mut t = Table::new(&[("capacity written", "x"), ("at", "s"), ("IOPS", ""), ("WAF", ""), ("free blocks", "")]);
    let step = (r.intervals.len() / 20).max(1);
    for (i, iv) in r.intervals.iter().enumerate() {
        if i % step == step - 1 || i + 1 == r.intervals.len() {
            t.row(vec![
                format!("{:.2}", iv.capacity_written),
                sig(iv.at_s, 4),
                sig(iv.iops, 4),
                format!("{:.2}", iv.write_amplification),
                iv.free_blocks.to_string(),
            ]);
        }
    }
    print!("{}", t.render());
    println!(
        "4 KiB random writes at QD{} over the whole device; every {}th interval shown (--csv for all)",
        a.iodepth, step
    );
    if let Some(p) = &a.csv {
        let mut csv = String::from("capacity_written,at_s,iops,write_amplification,free_blocks\n");
        for iv in &r.intervals {
            csv.push_str(&format!(
                "{:.4},{:.6},{:.3},{:.4},{}\n",
                iv.capacity_written, iv.at_s, iv.iops, iv.write_amplification, iv.free_blocks
            ));
        }
        write_atomic(p, csv.as_bytes())?;
    }
    let doc =
        json!({"command": "wsat", "target": a.common.target, "seed": a.common.seed, "precondition": pre, "result": r});
    if let Some(p) = &a.common.json {
        write_json(p, &doc)?;
    }
    if let Some(p) = &a.common.report {
        super::report::write_for(p, &format!("wsat {}", a.common.target), doc)?;
    }
    Ok(())
}
