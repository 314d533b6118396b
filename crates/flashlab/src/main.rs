//! flashlab: simulate, measure and explain flash storage. This binary only parses the command
//! line and prints; the work is in flashlab-lab (workloads, protocols) and flashsim (the device).

mod cli;
mod cmd;
mod progress;
mod report;
mod target;

use clap::Parser;
use cli::{Cli, Command, SimCommand};

fn main() {
    // Die quietly when the reader of our output goes away (`flashlab age | head`), as Unix
    // tools do, instead of panicking on a failed print.
    // SAFETY: restoring the default disposition of SIGPIPE before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Age(a) => cmd::age::age(a),
        Command::Bench(a) => cmd::age::bench(a),
        Command::Fill(a) => cmd::fill::fill(a),
        Command::Wsat(a) => cmd::wsat::wsat(a),
        Command::Run(a) => cmd::run::run(a),
        Command::Profiles(a) => cmd::profiles::profiles(a.name.as_deref()),
        Command::Sim(SimCommand::Waf(a)) => cmd::sim_waf::waf(a),
        Command::Doctor(a) => cmd::doctor::doctor(a),
        Command::Report(a) => cmd::report::report(a),
        Command::Calibrate(a) => cmd::calibrate::calibrate(a),
        Command::Breakdown(a) => cmd::breakdown::breakdown(a),
        Command::Sqlite(a) => cmd::sqlite::sqlite(a),
        Command::Serve(a) => cmd::serve::serve(a),
        Command::Life(a) => cmd::life::life(a),
        Command::ValidateFs(a) => cmd::validate_fs::validate_fs(a),
    };
    if let Err(e) = result {
        eprintln!("flashlab: error: {e}");
        std::process::exit(1);
    }
}
