//! The device profiles built into flashlab: the TOML files in this crate's `profiles/`
//! directory, embedded at compile time so that an installed binary needs no data files.
//! Every other crate (and every test) reaches them through this module, never by path.

/// Name and TOML text of every built-in profile, in the order `flashlab profiles` lists them.
pub const BUILTIN: &[(&str, &str)] = &[
    ("nexus7-2012", include_str!("../profiles/nexus7-2012.toml")),
    ("motox-2013", include_str!("../profiles/motox-2013.toml")),
    ("emmc-16g", include_str!("../profiles/emmc-16g.toml")),
    ("ufs-64g", include_str!("../profiles/ufs-64g.toml")),
    ("nvme-256g", include_str!("../profiles/nvme-256g.toml")),
    ("emmc-4.5", include_str!("../profiles/emmc-4.5.toml")),
    ("emmc-5.1", include_str!("../profiles/emmc-5.1.toml")),
    ("ufs-2.1", include_str!("../profiles/ufs-2.1.toml")),
    ("ufs-3.1", include_str!("../profiles/ufs-3.1.toml")),
    ("ufs-4.0", include_str!("../profiles/ufs-4.0.toml")),
    ("zoned-ufs-4.0", include_str!("../profiles/zoned-ufs-4.0.toml")),
    ("nvme-gen3", include_str!("../profiles/nvme-gen3.toml")),
    ("nvme-gen3-zns", include_str!("../profiles/nvme-gen3-zns.toml")),
    ("nvme-gen3-fdp", include_str!("../profiles/nvme-gen3-fdp.toml")),
    ("sd-card", include_str!("../profiles/sd-card.toml")),
    ("pixel-2016", include_str!("../profiles/pixel-2016.toml")),
    ("motoz-2016", include_str!("../profiles/motoz-2016.toml")),
    ("toy", include_str!("../profiles/toy.toml")),
];

/// The device flashlab simulates when no target is named: the calibrated Nexus 7 (2012).
pub const DEFAULT: &str = "nexus7-2012";

/// The TOML text of the built-in profile `name`.
pub fn text(name: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The small test device (`toy`): 256 MiB, round numbers, used by tests across the workspace.
pub const TOY: &str = include_str!("../profiles/toy.toml");

#[cfg(test)]
mod tests {
    /// Every file in `profiles/` is listed, so a profile added there cannot be forgotten.
    #[test]
    fn every_file_is_listed() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("profiles");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".toml"))
            .collect();
        files.sort();
        let mut listed: Vec<String> = super::BUILTIN.iter().map(|(n, _)| format!("{n}.toml")).collect();
        listed.sort();
        assert_eq!(files, listed);
        assert_eq!(super::text("toy"), Some(super::TOY));
        assert!(super::text(super::DEFAULT).is_some());
    }
}
