//! Resolving `--target`: `sim:NAME` for a built-in profile, `sim:FILE.toml` for a profile file,
//! a directory on a mounted filesystem, or a block device; and the real-target I/O options.

use crate::cli::RealArgs;
use crate::error::Error;
use flashlab_lab::profiles;
use flashlab_lab::units::parse_duration_ns;
use flashlab_real::buffers::DataPattern;
use flashlab_real::dir_target::RealOptions;
use flashlab_real::engine::choose_engine;
use flashsim::Profile;
use std::os::unix::fs::FileTypeExt;
use std::path::PathBuf;
use std::time::Duration;

/// Where a command runs.
pub enum Target {
    /// A simulated device of this profile.
    Sim(Box<Profile>),
    /// A directory on a mounted filesystem.
    Dir(PathBuf),
    /// A block device.
    Block(PathBuf),
}

/// The target `--target` names.
pub fn resolve(target: &str) -> Result<Target, Error> {
    if target.starts_with("sim:") {
        return sim_profile(target).map(|p| Target::Sim(Box::new(p)));
    }
    let path = PathBuf::from(target);
    let meta = std::fs::metadata(&path).map_err(|e| Error::Target {
        target: target.to_string(),
        problem: format!(
            "{e} (a target is sim:PROFILE, a directory, or a block device; built-in profiles: {})",
            names()
        ),
    })?;
    if meta.is_dir() {
        Ok(Target::Dir(path))
    } else if meta.file_type().is_block_device() {
        Ok(Target::Block(path))
    } else {
        Err(Error::Target {
            target: target.to_string(),
            problem: "not a directory nor a block device (for a simulated device write sim:PROFILE)".into(),
        })
    }
}

/// The I/O options for real targets; prints the engine choice when it fell back.
pub fn real_options(a: &RealArgs) -> Result<(RealOptions, Option<Duration>), Error> {
    let (engine, note) = choose_engine(a.io.ioengine.as_deref())?;
    if let Some(note) = note {
        eprintln!("note: {note}");
    }
    let idle = match &a.idle {
        Some(d) => {
            let ns = parse_duration_ns(d).map_err(Error::at("--idle"))?;
            if ns > flashlab_lab::protocol::MAX_IDLE_NS {
                return Err(Error::flag("--idle", format!("{d} is longer than 100 years")));
            }
            Some(Duration::from_nanos(ns))
        }
        None => None,
    };
    let pattern = if a.io.zero_buffers { DataPattern::Zeros } else { DataPattern::Random };
    Ok((RealOptions { engine, direct: !a.io.buffered, pattern, ..RealOptions::default() }, idle))
}

/// The profile of a simulated target (`sim:NAME`, `sim:FILE.toml`); any other target is an
/// error.
pub fn sim_profile(target: &str) -> Result<Profile, Error> {
    let Some(spec) = target.strip_prefix("sim:") else {
        return Err(Error::Target {
            target: target.to_string(),
            problem: format!(
                "this command runs on simulated devices (sim:PROFILE) so far; built-in profiles: {}",
                names()
            ),
        });
    };
    profiles::load(spec).map_err(|e| match e {
        flashlab_lab::Error::UnknownProfile { name, builtin } => Error::Target {
            target: target.to_string(),
            problem: format!(
                "unknown profile '{name}'{}; built-in profiles: {builtin} (or give a path to a .toml file)",
                profile_hint(&name)
            ),
        },
        e => e.into(),
    })
}

/// ` (did you mean 'sim:NAME'?)` for the built-in profile closest to `name`, or nothing.
pub fn profile_hint(name: &str) -> String {
    crate::suggest::hint(name, profiles::BUILTIN.iter().map(|(n, _)| *n), "sim:")
}

/// The built-in profiles' names, for messages.
pub fn names() -> String {
    profiles::names()
}
