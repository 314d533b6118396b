//! One module per subcommand.

pub mod age;
pub mod doctor;
pub mod fill;
pub mod life;
pub mod profiles;
pub mod report;
pub mod run;
pub mod run_real;
pub mod sim_waf;
pub mod wsat;

use crate::cli::CommonArgs;
use flashlab_lab::system::SimSystem;
use flashsim::Profile;

/// The simulated system a command runs on, from the common options.
pub fn system(args: &CommonArgs) -> Result<(Profile, SimSystem), String> {
    let profile = crate::target::sim_profile(&args.target)?;
    let sys = SimSystem::new(&profile, args.seed, args.discard);
    Ok((profile, sys))
}

/// The header line every simulated run prints.
pub fn banner(what: &str, args: &CommonArgs, profile: &Profile) -> String {
    format!(
        "flashlab {what} on {} ({}), seed {}, {}\n",
        args.target,
        profile.description,
        args.seed,
        if args.discard { "filesystem mounted with discard" } else { "no online discard" }
    )
}
