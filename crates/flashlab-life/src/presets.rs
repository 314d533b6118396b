//! The built-in usage presets (TOML files under `presets/`, each commented with what it models)
//! and looking a usage up by preset name or file.

use crate::usage::Usage;
use crate::usage_toml::parse_usage;
use crate::LifeError;

/// Name and TOML text of every preset.
pub const PRESETS: &[(&str, &str)] = &[
    ("light-phone", include_str!("../presets/light-phone.toml")),
    ("heavy-phone", include_str!("../presets/heavy-phone.toml")),
    ("sbc-desktop", include_str!("../presets/sbc-desktop.toml")),
    ("logger", include_str!("../presets/logger.toml")),
    ("anandtech-10g", include_str!("../presets/anandtech-10g.toml")),
];

/// The built-in usage model called `name` (`light-phone`, ...), if there is one.
pub fn preset(name: &str) -> Option<Usage> {
    PRESETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, t)| parse_usage(&format!("preset {n}"), t).expect("built-in presets parse (tested)"))
}

/// A preset by name, else a usage TOML file.
pub fn resolve(what: &str) -> Result<Usage, LifeError> {
    if let Some(u) = preset(what) {
        return Ok(u);
    }
    let path = std::path::Path::new(what);
    if !path.exists() {
        let names: Vec<&str> = PRESETS.iter().map(|(n, _)| *n).collect();
        return Err(LifeError::NoUsage { what: what.to_string(), presets: names.join(", ") });
    }
    let text = flashlab_jobs::limits::read_text(path, "usage file", flashlab_jobs::limits::MAX_TEXT_INPUT)?;
    Ok(parse_usage(what, &text)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_parse_and_are_named() {
        for (name, text) in PRESETS {
            let u = parse_usage(name, text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(&u.name, name);
            assert!(!u.description.is_empty());
        }
        assert!(resolve("no-such-preset").unwrap_err().to_string().contains("light-phone"));
    }
}
