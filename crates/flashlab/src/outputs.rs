//! The output options of the command on the command line, by flag, so the files are checked
//! before the command starts its work, and an output the command cannot write (`--csv` where
//! the results have no table, `--report` where they have no charts, two outputs on standard
//! output) is refused at once.

use crate::cli::{Command, SimCommand};
use crate::error::Error;
use crate::output_args::OutputArgs;
use std::path::Path;

/// The output options of a command that writes no results (`completions`, `man`).
static NO_OUTPUT: OutputArgs = OutputArgs { json: None, csv: None, report: None, quiet: false };

/// The command's output options.
pub fn args(cmd: &Command) -> &OutputArgs {
    use crate::phone::cli::PhoneCommand as P;
    match cmd {
        Command::Completions(_) | Command::Man(_) => &NO_OUTPUT,
        Command::Age(a) => &a.bench.out,
        Command::Bench(a) => &a.out,
        Command::Fill(a) => &a.out,
        Command::Wsat(a) => &a.out,
        Command::Run(a) => &a.out,
        Command::Profiles(a) => &a.out,
        Command::Sim(SimCommand::Waf(a)) => &a.out,
        Command::Sim(SimCommand::Placement(a)) => &a.out,
        Command::Report(a) => &a.out,
        Command::Doctor(a) => &a.out,
        Command::Calibrate(a) => &a.out,
        Command::Breakdown(a) => &a.out,
        Command::Sqlite(a) => &a.out,
        Command::Serve(a) => &a.out,
        Command::Life(a) => &a.out,
        Command::Sweep(a) => &a.output,
        Command::ValidateFs(a) => &a.out,
        Command::Phone(p) => match p {
            P::Devices(a) => &a.out,
            P::Doctor(a) => &a.out,
            P::Bench(b) => &b.on.out,
            P::Fill(f) => &f.bench.on.out,
            P::Age(a) => &a.bench.on.out,
            P::Run(r) => &r.on.out,
        },
    }
}

/// Whether the command's results have a table (for `--csv`) and charts (for `--report`).
fn can(cmd: &Command) -> (bool, bool) {
    use crate::phone::cli::PhoneCommand as P;
    match cmd {
        Command::Age(_) | Command::Bench(_) | Command::Fill(_) | Command::Wsat(_) | Command::Run(_) => (true, true),
        Command::Life(_) => (true, true),
        Command::Profiles(_) | Command::Sim(_) | Command::Calibrate(_) => (true, false),
        Command::Phone(P::Bench(_) | P::Fill(_) | P::Age(_) | P::Run(_)) => (true, true),
        // The report command writes its HTML with --report (or -o).
        Command::Report(_) => (false, true),
        Command::Doctor(_)
        | Command::Breakdown(_)
        | Command::Sqlite(_)
        | Command::Serve(_)
        | Command::Sweep(_)
        | Command::ValidateFs(_)
        | Command::Completions(_)
        | Command::Man(_)
        | Command::Phone(P::Devices(_) | P::Doctor(_)) => (false, false),
    }
}

/// (flag, path) of every output file `cmd` was asked to write; an error for an output it
/// cannot write.
pub fn of(cmd: &Command) -> Result<Vec<(&'static str, Option<&Path>)>, Error> {
    let o = args(cmd);
    o.check_stdout()?;
    if let Command::Run(a) = cmd {
        // fio's JSON takes standard output unless --output names a file.
        let stdout = |p: &Option<std::path::PathBuf>| p.as_deref().is_some_and(|p| p.as_os_str() == "-");
        if a.output_format == "json" && a.output.is_none() {
            if let Some(flag) =
                [("--json -", &o.json), ("--csv -", &o.csv)].into_iter().find_map(|(f, p)| stdout(p).then_some(f))
            {
                return Err(Error::flag(
                    flag,
                    "--output-format json already writes fio's JSON to standard output (give --output FILE, or a file name)",
                ));
            }
        }
    }
    let (csv, report) = can(cmd);
    let name = command_name(cmd);
    if o.csv.is_some() && !csv {
        return Err(Error::flag(
            "--csv",
            format!("the results of flashlab {name} have no table (--json writes them all)"),
        ));
    }
    if o.report.is_some() && !report {
        return Err(Error::flag(
            "--report",
            format!(
                "the results of flashlab {name} have no charts (reports draw age, bench, fill, wsat, run and life)"
            ),
        ));
    }
    let mut v = o.files();
    match cmd {
        Command::Run(a) => v.push(("--output", a.output.as_deref())),
        Command::Report(a) => v.push(("--output", a.output.as_deref())),
        Command::Breakdown(a) => v.push(("--chart", a.chart.as_deref())),
        _ => {}
    }
    Ok(v)
}

/// The subcommand as typed (`sim waf`, `phone bench`).
pub fn command_name(cmd: &Command) -> String {
    use crate::phone::cli::PhoneCommand as P;
    let s = match cmd {
        Command::Age(_) => "age",
        Command::Bench(_) => "bench",
        Command::Fill(_) => "fill",
        Command::Wsat(_) => "wsat",
        Command::Run(_) => "run",
        Command::Profiles(_) => "profiles",
        Command::Sim(_) => "sim waf",
        Command::Report(_) => "report",
        Command::Doctor(_) => "doctor",
        Command::Calibrate(_) => "calibrate",
        Command::Breakdown(_) => "breakdown",
        Command::Sqlite(_) => "sqlite",
        Command::Serve(_) => "serve",
        Command::Life(_) => "life",
        Command::Sweep(_) => "sweep",
        Command::ValidateFs(_) => "validate-fs",
        Command::Completions(_) => "completions",
        Command::Man(_) => "man",
        Command::Phone(p) => match p {
            P::Devices(_) => "phone devices",
            P::Doctor(_) => "phone doctor",
            P::Bench(_) => "phone bench",
            P::Fill(_) => "phone fill",
            P::Age(_) => "phone age",
            P::Run(_) => "phone run",
        },
    };
    s.to_string()
}
