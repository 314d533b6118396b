//! The output files each command writes (`--json`, `--csv`, `--report`, `--chart`,
//! `--output`), by flag, so they are checked before the command starts its work.

use crate::cli::{Command, SimCommand};
use std::path::Path;

/// (flag, path) of every output file `cmd` was asked to write.
pub fn of(cmd: &Command) -> Vec<(&'static str, Option<&Path>)> {
    fn common(c: &crate::cli::CommonArgs) -> Vec<(&'static str, Option<&Path>)> {
        vec![("--json", c.json.as_deref()), ("--report", c.report.as_deref())]
    }
    match cmd {
        Command::Age(a) => common(&a.common),
        Command::Bench(c) => common(c),
        Command::Fill(a) => common(&a.common),
        Command::Wsat(a) => {
            let mut v = common(&a.common);
            v.push(("--csv", a.csv.as_deref()));
            v
        }
        Command::Run(a) => {
            vec![("--output", a.output.as_deref()), ("--csv", a.csv.as_deref()), ("--report", a.report.as_deref())]
        }
        Command::Report(a) => vec![("--output", Some(a.output.as_path()))],
        Command::Calibrate(a) => vec![("--json", a.json.as_deref())],
        Command::Breakdown(a) => vec![("--json", a.json.as_deref()), ("--chart", a.chart.as_deref())],
        Command::Sqlite(a) => vec![("--json", a.json.as_deref())],
        Command::Life(a) => vec![("--json", a.json.as_deref()), ("--report", a.report.as_deref())],
        Command::Phone(p) => {
            use crate::phone::cli::PhoneCommand as P;
            let on = match p {
                P::Bench(b) => Some(&b.on),
                P::Fill(f) => Some(&f.bench.on),
                P::Age(a) => Some(&a.bench.on),
                P::Run(r) => Some(&r.on),
                P::Devices(_) | P::Doctor(_) => None,
            };
            on.map_or_else(Vec::new, |o| vec![("--json", o.json.as_deref()), ("--report", o.report.as_deref())])
        }
        Command::ValidateFs(a) => vec![("--json", a.json.as_deref())],
        // A sweep writes a directory (`--out`), which it creates and checks before any case runs.
        Command::Sweep(_) => Vec::new(),
        Command::Completions(_) | Command::Man(_) => Vec::new(),
        Command::Profiles(_) | Command::Doctor(_) | Command::Serve(_) | Command::Sim(SimCommand::Waf(_)) => Vec::new(),
    }
}
