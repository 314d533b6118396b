//! flashlab: simulate, measure and explain flash storage. This binary only parses the command
//! line and prints; the work is in flashlab-lab (workloads, protocols) and flashsim (the device).

mod applies;
mod cli;
mod cmd;
mod error;
mod phone;
mod progress;
mod report;
mod shell;
mod step_progress;
mod suggest;
mod target;

mod output_args;
mod outputs;

use clap::{CommandFactory, FromArgMatches};
use cli::{Cli, Command, SimCommand};

/// The command line, with usage errors on one line naming the flag (`flashlab: error:
/// invalid value '-5' for '--ios <IOS>': ...`), exit status 2; negative numbers are read as
/// values (and refused by the flag's parser) rather than as unknown options. The matches say
/// which options were typed (see [`applies`]).
fn parse_command_line() -> (Cli, clap::ArgMatches) {
    fn negatives(c: clap::Command) -> clap::Command {
        c.allow_negative_numbers(true).mut_subcommands(negatives)
    }
    let usage = |e: clap::Error| -> ! {
        use clap::error::ErrorKind;
        if matches!(
            e.kind(),
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
        ) {
            e.exit()
        }
        let text = e.render().to_string();
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("bad command line");
        eprintln!("flashlab: error: {}{} (see flashlab --help)", first.trim_start_matches("error: "), did_you_mean(&e));
        std::process::exit(2)
    };
    let matches = negatives(Cli::command()).try_get_matches().unwrap_or_else(|e| usage(e));
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| usage(e));
    (cli, matches)
}

/// `; did you mean '--target'?` from clap's suggestion for a mistyped flag, subcommand or
/// value (clap finds it with strsim; its rendered error has it on a later line), or nothing.
fn did_you_mean(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue};
    [ContextKind::SuggestedArg, ContextKind::SuggestedSubcommand, ContextKind::SuggestedValue]
        .into_iter()
        .find_map(|k| match e.get(k)? {
            ContextValue::String(s) => Some(s.clone()),
            ContextValue::Strings(v) => v.first().cloned(),
            _ => None,
        })
        .map(|s| format!("; did you mean '{s}'?"))
        .unwrap_or_default()
}

fn main() {
    // Die quietly when the reader of our output goes away (`flashlab age | head`), as Unix
    // tools do, instead of panicking on a failed print.
    // SAFETY: restoring the default disposition of SIGPIPE before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let (cli, matches) = parse_command_line();
    if !matches!(cli.command, Command::Serve(_) | Command::Phone(_)) {
        // One signal policy (serve and phone have their own ordered teardown with the same
        // signals: a served device is unmounted and detached first, a phone run stops
        // flashlab on the phone and removes its directory first).
        if let Err(e) = flashlab_real::cleanup::install_signal_handlers() {
            eprintln!("flashlab: error: installing the signal handlers: {e}");
            std::process::exit(1);
        }
    }
    output_args::set_text_mode(outputs::args(&cli.command).text_mode());
    if let Err(e) = applies::check(&cli.command, &matches)
        .and(outputs::of(&cli.command))
        .and_then(|o| report::output::check_outputs(&o))
    {
        eprintln!("flashlab: error: {e}");
        std::process::exit(1);
    }
    // Each command's error, typed or still a message, becomes the one `Error` here.
    let run = || -> Result<(), error::Error> {
        match &cli.command {
            Command::Age(a) => cmd::age::age(a)?,
            Command::Bench(a) => cmd::age::bench(a)?,
            Command::Fill(a) => cmd::fill::fill(a)?,
            Command::Wsat(a) => cmd::wsat::wsat(a)?,
            Command::Run(a) => cmd::run::run(a)?,
            Command::Profiles(a) => cmd::profiles::profiles(a)?,
            Command::Sim(SimCommand::Waf(a)) => cmd::sim_waf::waf(a)?,
            Command::Sim(SimCommand::Placement(a)) => cmd::sim_placement::placement(a)?,
            Command::Doctor(a) => cmd::doctor::doctor(a)?,
            Command::Report(a) => cmd::report::report(a)?,
            Command::Calibrate(a) => cmd::calibrate::calibrate(a)?,
            Command::Breakdown(a) => cmd::breakdown::breakdown(a)?,
            Command::Sqlite(a) => cmd::sqlite::sqlite(a)?,
            Command::Serve(a) => cmd::serve::serve(a)?,
            Command::Life(a) => cmd::life::life(a)?,
            Command::Sweep(a) => cmd::sweep::sweep(a)?,
            Command::Phone(c) => phone::run(c)?,
            Command::ValidateFs(a) => cmd::validate_fs::validate_fs(a)?,
            Command::Completions(a) => shell::completions(a)?,
            Command::Man(a) => shell::man(a)?,
        }
        Ok(())
    };
    let result = run();
    if let Err(e) = result {
        eprintln!("flashlab: error: {e}");
        // An interrupted phone run has cleaned up; it ends as the signal policy says (128 + SIGINT).
        let interrupted = matches!(cli.command, Command::Phone(_)) && e.is_interrupted();
        std::process::exit(if interrupted { 128 + libc::SIGINT } else { 1 });
    }
}
