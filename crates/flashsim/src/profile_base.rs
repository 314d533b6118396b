//! Profiles written as a change to a built-in one: a profile file whose first key is
//! `base = "motox-2013"` takes every table and value of that built-in profile and replaces
//! only what it writes itself (table by table, key by key). A scaled-down copy of a phone for a
//! test, or one knob moved for an experiment, is then a few lines that cannot drift from the
//! profile they copy.
//!
//! ```toml
//! base = "motox-2013"
//! name = "motox-2013-2g"
//! [nand]
//! blocks_per_plane = 256
//! ```

use crate::builtin;
use crate::profile::ProfileError;

/// The profile text `text` stands for: `text` itself when it names no `base`, else the built-in
/// base's text with `text`'s tables and values laid over it. `source` names the file in errors.
pub fn resolve(source: &str, text: &str) -> Result<String, ProfileError> {
    // Every error here is the `base` key's.
    let err = |message: String| ProfileError {
        source: source.to_string(),
        line: None,
        field: Some("base".to_string()),
        message,
    };
    let overlay: toml::Table = match toml::from_str(text) {
        Ok(t) => t,
        // Syntax errors are reported by the profile parser, with their line.
        Err(_) => return Ok(text.to_string()),
    };
    let Some(base) = overlay.get("base") else { return Ok(text.to_string()) };
    let name = base.as_str().ok_or_else(|| err("must be a built-in profile's name".into()))?;
    let base_text = builtin::text(name).ok_or_else(|| {
        let names: Vec<&str> = builtin::BUILTIN.iter().map(|(n, _)| *n).collect();
        err(format!("'{name}' is not a built-in profile (built-in: {})", names.join(", ")))
    })?;
    let mut merged: toml::Table = toml::from_str(base_text).expect("built-in profiles parse");
    let mut overlay = overlay;
    overlay.remove("base");
    lay_over(&mut merged, overlay);
    Ok(toml::to_string(&merged).expect("a TOML table serialises"))
}

/// `top`'s values replace `bottom`'s; tables merge key by key.
fn lay_over(bottom: &mut toml::Table, top: toml::Table) {
    for (key, value) in top {
        match (bottom.get_mut(&key), value) {
            (Some(toml::Value::Table(b)), toml::Value::Table(t)) => lay_over(b, t),
            (_, v) => {
                bottom.insert(key, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::resolve;
    use crate::Profile;

    #[test]
    fn a_based_profile_changes_only_what_it_writes() {
        let text = "base = \"motox-2013\"\nname = \"motox-small\"\n[nand]\nblocks_per_plane = 256\n";
        let p = Profile::from_toml("small.toml", &resolve("small.toml", text).unwrap()).unwrap();
        let full = Profile::from_toml("motox-2013", crate::builtin::text("motox-2013").unwrap()).unwrap();
        assert_eq!(p.name, "motox-small");
        assert_eq!(p.nand.blocks_per_plane, 256);
        assert_eq!(p.nand.t_prog_us, full.nand.t_prog_us);
        assert_eq!(p.ftl.map_cache_kib, full.ftl.map_cache_kib);
        assert_eq!(p.system, full.system);
        assert_eq!(p.description, full.description);
    }

    #[test]
    fn text_without_base_is_unchanged_and_a_bad_base_is_named() {
        let toy = crate::builtin::TOY;
        assert_eq!(resolve("toy", toy).unwrap(), toy);
        let e = resolve("x.toml", "base = \"nexus8\"\n").unwrap_err().to_string();
        assert!(
            e.contains("x.toml") && e.contains("'base'") && e.contains("nexus8") && e.contains("motox-2013"),
            "{e}"
        );
        let e = resolve("x.toml", "base = 3\n").unwrap_err().to_string();
        assert!(e.contains("'base'"), "{e}");
    }
}
