//! Options that do not apply to what a command was asked to do are an error, never silently
//! ignored (issue 19): checked here, before any work, from the command line alone. An option
//! with a default counts as given when its value differs from the default (the default changes
//! nothing). Where the answer needs more than the command line (the target kind, the fill's
//! procedure from the profile), the command checks it where it knows: real-target options on a
//! simulated device and simulated-system options on a real one (age, bench, run, sqlite), and
//! `fill`'s procedure options (cmd/fill_args.rs).

use crate::cli::{BreakdownArgs, Command, LifeArgs, ValidateFsArgs};
use crate::error::Error;

/// An error for the first option of `cmd` that does not apply to the rest of its command line.
pub fn check(cmd: &Command) -> Result<(), Error> {
    match cmd {
        Command::Run(a) if a.output.is_some() && a.output_format != "json" => Err(Error::not_applicable(
            "--output",
            "applies to --output-format json (fio's JSON); the results document goes to --json FILE",
        )),
        Command::Sweep(a) if a.python.is_some() && a.ray.is_none() => Err(Error::not_applicable(
            "--python",
            "applies to --ray (the Python driver); a local sweep runs in flashlab itself",
        )),
        Command::Calibrate(a) if a.all && !a.profiles.is_empty() => Err(Error::not_applicable(
            "--all",
            "calibrates every built-in profile with a [calibrate] table; give profile names or --all, not both",
        )),
        Command::Serve(a) if a.overwrite_backing && a.backing.is_none() => Err(Error::not_applicable(
            "--overwrite-backing",
            "applies to --backing FILE; without it the data is kept in memory",
        )),
        Command::Sqlite(a) if a.target.starts_with("sim:") && a.baseline != 1.0 => Err(Error::not_applicable(
            "--baseline",
            "applies to real targets (it measures the device's idle activity), not to a simulated device",
        )),
        Command::Breakdown(a) => breakdown(a),
        Command::Life(a) => life(a),
        Command::ValidateFs(a) => validate_fs(a),
        _ => Ok(()),
    }
}

fn breakdown(a: &BreakdownArgs) -> Result<(), Error> {
    let sim = a.target.starts_with("sim:");
    if sim && a.destroy_data {
        return Err(Error::not_applicable("--destroy-data", "applies to a real block device, not to sim:PROFILE"));
    }
    if sim && a.ioengine.is_some() {
        return Err(Error::not_applicable(
            "--ioengine",
            "applies to real targets; on sim:PROFILE the model's host costs stand for the engine",
        ));
    }
    if a.cpu_scale != 1.0 && a.host_cost.is_none() {
        return Err(Error::not_applicable("--cpu-scale", "applies to --host-cost FILE (it scales the measured costs)"));
    }
    Ok(())
}

/// life runs one of three things: the usage model, a block trace (`--trace`), or a block-level
/// endurance workload (`--usage jesd219-enterprise|uniform-4k`); each takes its own options.
fn life(a: &LifeArgs) -> Result<(), Error> {
    let na = |flag: &str, why: String| Error::not_applicable(flag, why);
    if a.trace.is_none() {
        if a.trace_format.is_some() {
            return Err(na("--trace-format", "applies to --trace FILE".into()));
        }
        if a.compress_time {
            return Err(na("--compress-time", "applies to --trace FILE".into()));
        }
    }
    // An unknown or refused --usage is the command's error, with its own message.
    let endurance = a.trace.is_none() && matches!(flashlab_life::jesd219::Endurance::parse(&a.usage), Ok(Some(_)));
    let model = a.trace.is_none() && !endurance;
    let against = if a.trace.is_some() {
        "not to a trace (--trace)"
    } else {
        "not to a block-level endurance workload (docs/jesd219.md)"
    };
    if !model {
        if a.trace.is_some() && a.usage != "light-phone" {
            return Err(na("--usage", "names the usage model; --trace replays a trace instead".into()));
        }
        for (given, flag) in [
            (a.scale != 1.0, "--scale"),
            (a.duration != "12months", "--duration"),
            (a.sample_days != 1, "--sample-days"),
        ] {
            if given {
                return Err(na(flag, format!("applies to the usage model, {against}")));
            }
        }
    }
    if endurance {
        if a.policy != "none" || a.compare_policies {
            return Err(na("--policy and --compare-policies", format!("apply to the usage model, {against}")));
        }
        if a.probe_every != 7 {
            return Err(na("--probe-every", format!("applies to the usage model and traces, {against}")));
        }
    }
    if !endurance && a.drive_writes != 3.0 {
        return Err(na(
            "--drive-writes",
            "applies to a block-level endurance workload (--usage jesd219-enterprise or uniform-4k)".into(),
        ));
    }
    Ok(())
}

fn validate_fs(a: &ValidateFsArgs) -> Result<(), Error> {
    let w = a.workload.as_str();
    if a.fill != 80 && w != "fill" {
        return Err(Error::not_applicable("--fill", "applies to --workload fill"));
    }
    if a.writes != 400 && w != "randwrite-fsync" {
        return Err(Error::not_applicable("--writes", "applies to --workload randwrite-fsync"));
    }
    if a.transactions != 100 && !w.starts_with("sqlite-") {
        return Err(Error::not_applicable("--transactions", "applies to the sqlite-* workloads"));
    }
    Ok(())
}
