//! Options that do not apply to what a command was asked to do are an error, never silently
//! ignored (issue 19): checked here, before any work, from the command line alone. An option
//! with a default counts as given when it was typed on the command line (clap's
//! [`ValueSource::CommandLine`]), whatever its value: `--fill 80` with `--workload
//! randwrite-fsync` is as wrong as `--fill 50`. Where the answer needs more than the command
//! line (the target kind, the fill's procedure from the profile), the command checks it where
//! it knows: real-target options on a simulated device and simulated-system options on a real
//! one (age, bench, run, sqlite), and `fill`'s procedure options (cmd/fill_args.rs).

use crate::cli::{BreakdownArgs, Command, LifeArgs, ValidateFsArgs};
use crate::error::Error;
use clap::parser::ValueSource;
use clap::ArgMatches;

/// Which options the user typed: the subcommand's matches (a nested subcommand's, for `sim
/// waf`), asked by the option's id (its field name: `cpu_scale`).
struct Given<'a>(Option<&'a ArgMatches>);

impl Given<'_> {
    /// Whether option `id` was given on the command line (not left at its default).
    fn has(&self, id: &str) -> bool {
        self.0.is_some_and(|m| m.value_source(id) == Some(ValueSource::CommandLine))
    }
}

/// The matches of the innermost subcommand of `matches`.
fn innermost(matches: &ArgMatches) -> &ArgMatches {
    match matches.subcommand() {
        Some((_, sub)) => innermost(sub),
        None => matches,
    }
}

/// An error for the first option of `cmd` that does not apply to the rest of its command line;
/// `matches` is the whole command line as clap read it (it says which options were typed).
pub fn check(cmd: &Command, matches: &ArgMatches) -> Result<(), Error> {
    let given = Given(matches.subcommand().map(|(_, m)| innermost(m)));
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
        Command::Sqlite(a) if a.target.starts_with("sim:") && given.has("baseline") => Err(Error::not_applicable(
            "--baseline",
            "applies to real targets (it measures the device's idle activity), not to a simulated device",
        )),
        Command::Breakdown(a) => breakdown(a, &given),
        Command::Life(a) => life(a, &given),
        Command::ValidateFs(a) => validate_fs(a, &given),
        _ => Ok(()),
    }
}

fn breakdown(a: &BreakdownArgs, given: &Given) -> Result<(), Error> {
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
    if given.has("cpu_scale") && a.host_cost.is_none() {
        return Err(Error::not_applicable("--cpu-scale", "applies to --host-cost FILE (it scales the measured costs)"));
    }
    Ok(())
}

/// life runs one of three things: the usage model, a block trace (`--trace`), or a block-level
/// endurance workload (`--usage jesd219-enterprise|uniform-4k`); each takes its own options.
fn life(a: &LifeArgs, given: &Given) -> Result<(), Error> {
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
        if a.trace.is_some() && given.has("usage") {
            return Err(na("--usage", "names the usage model; --trace replays a trace instead".into()));
        }
        for (id, flag) in [("scale", "--scale"), ("duration", "--duration"), ("sample_days", "--sample-days")] {
            if given.has(id) {
                return Err(na(flag, format!("applies to the usage model, {against}")));
            }
        }
    }
    if endurance {
        if given.has("policy") || a.compare_policies {
            return Err(na("--policy and --compare-policies", format!("apply to the usage model, {against}")));
        }
        if given.has("probe_every") {
            return Err(na("--probe-every", format!("applies to the usage model and traces, {against}")));
        }
    }
    if !endurance && given.has("drive_writes") {
        return Err(na(
            "--drive-writes",
            "applies to a block-level endurance workload (--usage jesd219-enterprise or uniform-4k)".into(),
        ));
    }
    Ok(())
}

fn validate_fs(a: &ValidateFsArgs, given: &Given) -> Result<(), Error> {
    let w = a.workload.as_deref().unwrap_or_default();
    if given.has("fill") && !matches!(w, "fill" | "delete-all") {
        return Err(Error::not_applicable("--fill", "applies to --workload fill and delete-all"));
    }
    if given.has("writes") && !matches!(w, "randwrite-fsync" | "nearly-full") {
        return Err(Error::not_applicable("--writes", "applies to --workload randwrite-fsync and nearly-full"));
    }
    if given.has("transactions") && !w.starts_with("sqlite-") {
        return Err(Error::not_applicable("--transactions", "applies to the sqlite-* workloads"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every option id asked for above names an option of its command (clap answers `None` for
    /// an unknown id in release builds, which would make the check silently pass).
    #[test]
    fn the_ids_name_options_of_their_commands() {
        let cli = crate::cli::Cli::command();
        for (sub, ids) in [
            ("sqlite", &["baseline"][..]),
            ("breakdown", &["cpu_scale"]),
            ("life", &["usage", "scale", "duration", "sample_days", "policy", "probe_every", "drive_writes"]),
            ("validate-fs", &["fill", "writes", "transactions"]),
        ] {
            let c = cli.find_subcommand(sub).unwrap_or_else(|| panic!("no subcommand {sub}"));
            for id in ids {
                assert!(c.get_arguments().any(|a| a.get_id() == id), "{sub} has no option {id}");
            }
        }
    }

    /// An option typed with its default value is still given.
    #[test]
    fn a_typed_default_counts_as_given() {
        use clap::{CommandFactory, FromArgMatches};
        let m = crate::cli::Cli::command()
            .try_get_matches_from(["flashlab", "validate-fs", "--workload", "randwrite-fsync", "--fill", "80"])
            .unwrap();
        let cli = crate::cli::Cli::from_arg_matches(&m).unwrap();
        let e = check(&cli.command, &m).unwrap_err().to_string();
        assert!(e.starts_with("--fill applies to --workload fill"), "{e}");
        let m = crate::cli::Cli::command()
            .try_get_matches_from(["flashlab", "validate-fs", "--workload", "randwrite-fsync"])
            .unwrap();
        let cli = crate::cli::Cli::from_arg_matches(&m).unwrap();
        check(&cli.command, &m).unwrap();
    }
}
