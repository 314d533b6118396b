//! One module per subcommand.

pub mod age;
pub mod breakdown;
pub mod calibrate;
pub mod doctor;
pub mod fill;
pub mod fill_args;
pub mod life;
pub mod profiles;
pub mod report;
pub mod run;
pub mod run_real;
pub mod run_verify;
pub mod serve;
pub mod sim_placement;
pub mod sim_waf;
pub mod sqlite;
pub mod sweep;
pub mod validate_fs;
pub mod wsat;

use crate::cli::{CommonArgs, SimFsArgs};
use crate::error::Error;
use flashlab_lab::precondition::PreconditionReport;
use flashlab_lab::system::SimSystem;
use flashlab_simfs::FsConfig;
use flashsim::Profile;

/// The simulated filesystem of a run: `--fs` if given, else the profile's `[system]` table;
/// `--discard` adds online discard to either.
pub fn fs_config(a: &SimFsArgs, profile: &Profile, source: &str) -> Result<FsConfig, Error> {
    let mut cfg = match &a.fs {
        Some(spec) => FsConfig::parse(spec).map_err(Error::at("--fs"))?,
        None => FsConfig::from_profile(profile, source).map_err(|e| flashlab_lab::Error::FsModel(e.to_string()))?,
    };
    cfg.discard |= a.discard;
    Ok(cfg)
}

/// The simulated system a command runs on: a device of `profile` brought into the state
/// `--precondition` names, with the filesystem `--fs` names made on it.
pub fn sim_system(
    a: &SimFsArgs,
    profile: &Profile,
    seed: u64,
    source: &str,
) -> Result<(SimSystem, PreconditionReport), Error> {
    let cfg = fs_config(a, profile, source)?;
    flashlab_lab::precondition::system(profile, seed, cfg, a.precondition).map_err(Error::at("--precondition"))
}

/// The header line every simulated run prints.
pub fn banner(what: &str, args: &CommonArgs, profile: &Profile, sys: &SimSystem) -> String {
    banner_fs(what, args, profile, sys.fs().config())
}

/// [`banner`] before the system is made.
pub fn banner_fs(what: &str, args: &CommonArgs, profile: &Profile, cfg: &FsConfig) -> String {
    let discard = if cfg.discard { "online discard" } else { "no online discard" };
    format!(
        "flashlab {what} on {} ({}), seed {}, filesystem {} ({discard}), device {}\n",
        args.target,
        profile.description,
        args.seed,
        cfg.label(),
        args.sim_fs.precondition.describe(),
    )
}
