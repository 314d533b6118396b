//! Resolving `--target`: `sim:NAME` for a built-in profile, `sim:FILE.toml` for a profile file,
//! a directory on a mounted filesystem, or a block device; and the real-target I/O options.

use crate::cli::RealArgs;
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
    Sim(Box<Profile>),
    Dir(PathBuf),
    Block(PathBuf),
}

pub fn resolve(target: &str) -> Result<Target, String> {
    if target.starts_with("sim:") {
        return sim_profile(target).map(|p| Target::Sim(Box::new(p)));
    }
    let path = PathBuf::from(target);
    let meta = std::fs::metadata(&path).map_err(|e| {
        format!(
            "target '{target}': {e} (a target is sim:PROFILE, a directory, or a block device; built-in profiles: {})",
            names()
        )
    })?;
    if meta.is_dir() {
        Ok(Target::Dir(path))
    } else if meta.file_type().is_block_device() {
        Ok(Target::Block(path))
    } else {
        Err(format!("target '{target}': not a directory nor a block device (for a simulated device write sim:PROFILE)"))
    }
}

/// The I/O options for real targets; prints the engine choice when it fell back.
pub fn real_options(a: &RealArgs) -> Result<(RealOptions, Option<Duration>), String> {
    let (engine, note) = choose_engine(a.io.ioengine.as_deref()).map_err(|e| e.to_string())?;
    if let Some(note) = note {
        eprintln!("note: {note}");
    }
    let idle = match &a.idle {
        Some(d) => {
            let ns = parse_duration_ns(d).map_err(|e| format!("--idle: {e}"))?;
            if ns > flashlab_lab::protocol::MAX_IDLE_NS {
                return Err(format!("--idle: {d} is longer than 100 years"));
            }
            Some(Duration::from_nanos(ns))
        }
        None => None,
    };
    let pattern = if a.io.zero_buffers { DataPattern::Zeros } else { DataPattern::Random };
    Ok((RealOptions { engine, direct: !a.io.buffered, pattern, ..RealOptions::default() }, idle))
}

pub fn sim_profile(target: &str) -> Result<Profile, String> {
    let Some(spec) = target.strip_prefix("sim:") else {
        return Err(format!(
            "target '{target}': this command runs on simulated devices (sim:PROFILE) so far; built-in profiles: {}",
            names()
        ));
    };
    Ok(profiles::load(spec)?)
}

pub fn names() -> String {
    profiles::names()
}
