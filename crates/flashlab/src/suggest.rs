//! "Did you mean": the closest valid name to a mistyped one (a profile, a protocol), by
//! Jaro-Winkler similarity (strsim; clap suggests flags and subcommands the same way).

/// Below this similarity a name is not suggested (clap's threshold for flags).
const MIN_SIMILARITY: f64 = 0.7;

/// The candidate closest to `typed`, if any is close enough; ties go to the first candidate.
pub fn closest<'a>(typed: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let typed = typed.to_ascii_lowercase();
    let mut best: Option<(f64, &str)> = None;
    for c in candidates {
        let s = strsim::jaro_winkler(&typed, &c.to_ascii_lowercase());
        if s >= MIN_SIMILARITY && best.is_none_or(|(b, _)| s > b) {
            best = Some((s, c));
        }
    }
    best.map(|(_, c)| c)
}

/// ` (did you mean 'NAME'?)` for the closest of `candidates` (`prefix` before it, e.g. `sim:`),
/// or nothing.
pub fn hint<'a>(typed: &str, candidates: impl IntoIterator<Item = &'a str>, prefix: &str) -> String {
    closest(typed, candidates).map(|c| format!(" (did you mean '{prefix}{c}'?)")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROFILES: &[&str] = &["nexus7-2012", "emmc-4.5", "ufs-2.1", "ufs-3.1", "nvme-gen3", "ufs-64g", "toy"];

    #[test]
    fn mistyped_profiles_get_the_closest_name() {
        assert_eq!(closest("ufs3.1", PROFILES.iter().copied()), Some("ufs-3.1"));
        assert_eq!(closest("UFS-3.1", PROFILES.iter().copied()), Some("ufs-3.1"));
        assert_eq!(closest("nexus-7", PROFILES.iter().copied()), Some("nexus7-2012"));
        assert!(closest("ufs-9", PROFILES.iter().copied()).is_some_and(|c| c.starts_with("ufs-")));
    }

    #[test]
    fn nothing_close_gets_no_suggestion() {
        assert_eq!(closest("zzzzzz", PROFILES.iter().copied()), None);
        assert_eq!(hint("qqq", PROFILES.iter().copied(), "sim:"), "");
        assert_eq!(hint("toyy", PROFILES.iter().copied(), "sim:"), " (did you mean 'sim:toy'?)");
    }
}
