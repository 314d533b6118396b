//! What the shell and the packager need from the binary: the version with the git revision it
//! was built from, completion scripts (`flashlab completions bash|zsh|fish`) and the manual page
//! (`flashlab man`), all generated from the one clap definition of the command line.

use crate::cli::Cli;
use crate::error::Error;
use clap::{Args, CommandFactory};
use std::io::Write;

/// `0.1.0 (git 1a2b3c4d5e6f)`: the crate version and the revision build.rs found (`git
/// unknown` when built outside a git checkout without `FLASHLAB_GIT_REVISION`).
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (git ", env!("FLASHLAB_GIT_REVISION"), ")");

/// The options of `flashlab completions`.
#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    pub shell: clap_complete::Shell,
}

/// The options of `flashlab man`.
#[derive(Args, Debug)]
pub struct ManArgs {
    /// A subcommand whose page to print (e.g. `age`, `sim waf`); the main page when omitted.
    pub subcommand: Vec<String>,
}

/// `flashlab completions SHELL`: the completion script on standard output.
pub fn completions(a: &CompletionsArgs) -> Result<(), Error> {
    let mut out = std::io::stdout().lock();
    clap_complete::generate(a.shell, &mut Cli::command(), "flashlab", &mut out);
    out.flush().map_err(Error::Stdout)
}

/// `flashlab man [SUBCOMMAND...]`: the manual page (roff) on standard output.
pub fn man(a: &ManArgs) -> Result<(), Error> {
    let mut cmd = Cli::command();
    cmd.build();
    // After build(), every subcommand's display name is its page's title (`flashlab-sim-waf`).
    for sub in &a.subcommand {
        let found = cmd.find_subcommand(sub).cloned().ok_or_else(|| {
            let known: Vec<&str> = cmd.get_subcommands().map(|c| c.get_name()).collect();
            Error::Usage(format!("man: no subcommand '{sub}' of '{}' (one of: {})", cmd.get_name(), known.join(", ")))
        })?;
        cmd = found;
    }
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd).render(&mut out).map_err(Error::Stdout)?;
    std::io::stdout().write_all(&out).map_err(Error::Stdout)
}
