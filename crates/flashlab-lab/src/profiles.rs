//! The device profiles built into flashlab (the TOML files under `profiles/`), and the default.

/// Name and TOML text of every built-in profile.
pub const BUILTIN: &[(&str, &str)] = &[
    ("nexus7-2012", include_str!("../../../profiles/nexus7-2012.toml")),
    ("motox-2013", include_str!("../../../profiles/motox-2013.toml")),
    ("emmc-16g", include_str!("../../../profiles/emmc-16g.toml")),
    ("ufs-64g", include_str!("../../../profiles/ufs-64g.toml")),
    ("nvme-256g", include_str!("../../../profiles/nvme-256g.toml")),
    ("emmc-4.5", include_str!("../../../profiles/emmc-4.5.toml")),
    ("emmc-5.1", include_str!("../../../profiles/emmc-5.1.toml")),
    ("ufs-2.1", include_str!("../../../profiles/ufs-2.1.toml")),
    ("ufs-3.1", include_str!("../../../profiles/ufs-3.1.toml")),
    ("nvme-gen3", include_str!("../../../profiles/nvme-gen3.toml")),
    ("sd-card", include_str!("../../../profiles/sd-card.toml")),
    ("pixel-2016", include_str!("../../../profiles/pixel-2016.toml")),
    ("motoz-2016", include_str!("../../../profiles/motoz-2016.toml")),
    ("toy", include_str!("../../../profiles/toy.toml")),
];

/// The device flashlab simulates when no target is named: the calibrated Nexus 7 (2012).
pub const DEFAULT: &str = "nexus7-2012";

/// The TOML text of built-in profile `name`.
pub fn builtin(name: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The names of the built-in profiles, comma-separated (for error messages).
pub fn names() -> String {
    BUILTIN.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

/// A profile's TOML text and the name errors should give it: `spec` is a built-in name or a
/// path to a `.toml` file (without the `sim:` of a target).
pub fn text(spec: &str) -> Result<(String, String), crate::LabError> {
    if let Some(text) = builtin(spec) {
        return Ok((format!("built-in profile {spec}"), text.to_string()));
    }
    if spec.ends_with(".toml") || spec.contains('/') {
        let text = flashlab_jobs::limits::read_text(
            std::path::Path::new(spec),
            "profile",
            flashlab_jobs::limits::MAX_TEXT_INPUT,
        )?;
        return Ok((spec.to_string(), text));
    }
    Err(crate::LabError::UnknownProfile { name: spec.to_string(), builtin: names() })
}

/// Parse and validate the profile `spec` names (see [`text`]).
pub fn load(spec: &str) -> Result<flashsim::Profile, crate::LabError> {
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
