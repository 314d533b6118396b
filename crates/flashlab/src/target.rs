//! Resolving `--target`: `sim:NAME` for a built-in profile, `sim:FILE.toml` for a profile file.
//! (Real devices and filesystems come with the real-target engines.)

use flashlab_lab::profiles;
use flashsim::Profile;

pub fn sim_profile(target: &str) -> Result<Profile, String> {
    let Some(spec) = target.strip_prefix("sim:") else {
        return Err(format!(
            "target '{target}': only simulated targets (sim:PROFILE) are supported so far; built-in profiles: {}",
            names()
        ));
    };
    if let Some(text) = profiles::builtin(spec) {
        return Profile::from_toml(&format!("built-in profile {spec}"), text).map_err(|e| e.to_string());
    }
    if spec.ends_with(".toml") || spec.contains('/') {
        let text = std::fs::read_to_string(spec).map_err(|e| format!("{spec}: {e}"))?;
        return Profile::from_toml(spec, &text).map_err(|e| e.to_string());
    }
    Err(format!("unknown profile '{spec}'; built-in profiles: {} (or give a path to a .toml file)", names()))
}

pub fn names() -> String {
    profiles::BUILTIN.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}
