//! `flashlab fill`: write latency percentiles while filling a simulated system the way fio
//! fills it, or the published phone procedure (test /data, fill the shared storage, test /data).

use crate::cli::FillArgs;
use crate::cmd::fill_args::Procedure;
use crate::progress::Progress;
use crate::report::output::write_json;
use crate::report::table::{sig, Table};
use flashlab_lab::experiments::fill::{run_fill, run_phone_procedure, FillDecile, FillResult, Layout, TestRun};
use flashlab_lab::stack::{Stack, TrimPolicy};
use serde_json::json;

pub fn fill(a: &FillArgs) -> Result<(), String> {
    let profile = crate::target::sim_profile(&a.common.target)?;
    let stack = Stack::from_profile(&profile, &a.common.target)?;
    let r = a.fill.resolve(a.iodepth.max(1), a.common.seed, stack)?;
    let mut fs_args = a.common.sim_fs.clone();
    fs_args.discard |= r.stack.trim == TrimPolicy::Discard;
    // A lived-in device has had the system's periodic fstrim run since its deletions.
    let fstrim = matches!(r.stack.trim, TrimPolicy::Fstrim { .. } | TrimPolicy::Android);
    let cfg = super::fs_config(&fs_args, &profile, &a.common.target)?;
    let (mut sys, pre) =
        flashlab_lab::precondition::system_with_trim(&profile, a.common.seed, cfg, fs_args.precondition, fstrim)
            .map_err(|e| format!("--precondition: {e}"))?;
    print!("{}", super::banner("fill", &a.common, &profile, &sys));
    if pre.precondition != flashlab_lab::precondition::Precondition::Fresh {
        println!("{}", pre.summary());
    }
    println!("system stack: {}", r.stack.label());
    let bar = Progress::new("fill");
    let spec = &r.spec;
    let layout = match spec.layout {
        Layout::Allocate => "file fallocated, then",
        Layout::Write => "file written sequentially (fio overwrite=1), then",
    };
    let fsync = match spec.fsync_every {
        0 => String::new(),
        1 => ", fsync after every write".into(),
        n => format!(", fsync after every {n} writes"),
    };
    let map = if spec.random_map { "each block once (fio's random map)" } else { "offsets without a random map" };
    let doc = match r.procedure {
        Procedure::Fill => {
            let f = run_fill(&mut sys, spec, |x| bar.set(x, "")).map_err(|e| e.to_string())?;
            bar.finish();
            print!("{}", deciles_table(&f).render());
            println!(
                "{layout} 4 KiB random writes at QD{}, {map}{fsync}; {} bytes; percentiles per tenth of the fill; MB/s = 10^6 bytes/s over busy time",
                spec.iodepth, f.bytes
            );
            print_sessions(&f);
            json!({"command": "fill", "procedure": "fill", "target": a.common.target, "seed": a.common.seed,
                   "filesystem": sys.fs.config().label(), "stack": r.stack, "precondition": pre, "result": f})
        }
        Procedure::Phone => {
            let p = run_phone_procedure(&mut sys, spec, r.test_bytes, |what, x| bar.set(x, what))
                .map_err(|e| e.to_string())?;
            bar.finish();
            println!(
                "/data (no shared-storage layer): {} bytes test file, 4 KiB random writes, {map}{fsync}",
                p.test_bytes
            );
            print!("{}", test_table(&[&p.before, &p.after]).render());
            println!(
                "fill of /storage/emulated/0 through {} ({} bytes): {layout} 4 KiB random writes at QD{}, {map}{fsync}",
                r.stack.shared_storage, p.fill.bytes, spec.iodepth
            );
            print!("{}", deciles_table(&p.fill).render());
            print_sessions(&p.fill);
            println!("MB/s = 10^6 bytes/s over busy time; WAF = NAND writes / host writes within the row");
            json!({"command": "fill", "procedure": "phone", "target": a.common.target, "seed": a.common.seed,
                   "filesystem": sys.fs.config().label(), "stack": r.stack, "precondition": pre, "result": p.fill,
                   "data_before": p.before, "data_after": p.after, "test_bytes": p.test_bytes})
        }
    };
    if let Some(path) = &a.common.json {
        write_json(path, &doc)?;
    }
    if let Some(path) = &a.common.report {
        super::report::write_for(path, &format!("fill {}", a.common.target), doc)?;
    }
    Ok(())
}

fn print_sessions(f: &FillResult) {
    if f.spec.sessions > 1 || !f.fstrims.is_empty() {
        println!(
            "{} sessions, {:.1} h idle between them; {} fstrim(s) during the fill{}; virtual time {:.1} h",
            f.spec.sessions,
            f.spec.gap_ns as f64 / 3.6e12,
            f.fstrims.len(),
            f.fstrims
                .iter()
                .map(|t| format!(" at {:.0} % ({} bytes)", t.filled_pct, t.bytes))
                .collect::<Vec<_>>()
                .join(","),
            f.virtual_s / 3600.0
        );
    }
}

const HEAD: [(&str, &str); 9] = [
    ("p50", "us"),
    ("p90", "us"),
    ("p99", "us"),
    ("p99.9", "us"),
    ("max", "us"),
    ("mean", "us"),
    ("write", "MB/s"),
    ("WAF", ""),
    ("free blocks", "%"),
];

fn deciles_table(f: &FillResult) -> Table {
    let mut head = vec![("filled", "%")];
    head.extend(HEAD);
    let mut t = Table::new(&head);
    for d in &f.deciles {
        t.row(decile_row(d));
    }
    t
}

fn decile_row(d: &FillDecile) -> Vec<String> {
    let mut row = vec![d.filled_pct.to_string()];
    row.extend(measured_cells(
        [d.p50_us, d.p90_us, d.p99_us, d.p999_us, d.max_us, d.mean_us, d.mbs],
        d.write_amplification,
    ));
    row.push(format!("{:.1}", d.free_block_fraction * 100.0));
    row
}

/// The cells under [`HEAD`]'s latency, write and WAF columns, as both tables print them.
fn measured_cells(values: [f64; 7], write_amplification: f64) -> Vec<String> {
    let mut cells: Vec<String> = values.iter().map(|v| sig(*v, 3)).collect();
    cells.push(format!("{write_amplification:.2}"));
    cells
}

fn test_table(runs: &[&TestRun]) -> Table {
    // HEAD without its last column: a test run has no free-block figure of its own.
    let mut head = vec![("test", "")];
    head.extend(&HEAD[..HEAD.len() - 1]);
    let mut t = Table::new(&head);
    for r in runs {
        let mut row = vec![r.label.clone()];
        row.extend(measured_cells(
            [r.p50_us, r.p90_us, r.p99_us, r.p999_us, r.max_us, r.mean_us, r.mbs],
            r.write_amplification,
        ));
        t.row(row);
    }
    t
}
