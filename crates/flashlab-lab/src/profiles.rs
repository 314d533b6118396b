//! The device profiles built into flashlab (embedded by [`flashsim::builtin`] from
//! `crates/flashsim/profiles/`), the default, and loading a profile named on the command line.

pub use flashsim::builtin::{BUILTIN, DEFAULT};

/// The TOML text of the built-in profile `name`.
pub fn builtin(name: &str) -> Option<&'static str> {
    flashsim::builtin::text(name)
}

/// The names of the built-in profiles, comma-separated (for error messages).
pub fn names() -> String {
    BUILTIN.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

/// A profile's TOML text and the name errors should give it: `spec` is a built-in name or a
/// path to a `.toml` file (without the `sim:` of a target); a file that names a built-in
/// `base` comes back as the whole profile it stands for.
pub fn text(spec: &str) -> Result<(String, String), crate::Error> {
    if let Some(text) = builtin(spec) {
        return Ok((format!("built-in profile {spec}"), text.to_string()));
    }
    if spec.ends_with(".toml") || spec.contains('/') {
        let text = flashlab_jobs::limits::read_text(
            std::path::Path::new(spec),
            "profile",
            flashlab_jobs::limits::MAX_TEXT_INPUT,
        )?;
        // A file may name a built-in `base` and write only what it changes.
        let text = flashsim::profile_base::resolve(spec, &text)?;
        return Ok((spec.to_string(), text));
    }
    Err(crate::Error::UnknownProfile { name: spec.to_string(), builtin: names() })
}

/// Parse and validate the profile `spec` names (see [`text`]).
pub fn load(spec: &str) -> Result<flashsim::Profile, crate::Error> {
    let (source, text) = text(spec)?;
    Ok(flashsim::Profile::from_toml(&source, &text)?)
}

#[cfg(test)]
mod tests {
    #[test]
    fn builtins_parse() {
        for (name, text) in super::BUILTIN {
            let p = flashsim::Profile::from_toml(name, text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(&p.name, name);
            assert!(!p.calibration.is_empty(), "{name} must say what it was calibrated against");
        }
    }
}
