//! A profile's `[system]` table: the filesystem and mount options the device ships with (a
//! Nexus 7 runs ext4 without discard, a Moto X F2FS with discard). Simulated runs use it unless
//! the command line names another filesystem.
//!
//! ```toml
//! [system]
//! filesystem = "f2fs"      # plain, ext4 or f2fs
//! discard = true           # online discard (default false)
//! nobarrier = false        # flushes dropped (default false)
//! options = "cp_interval=60"   # further mount options, comma-separated
//! mkfs = "make_ext4fs"     # ext4 only: who made it, `mke2fs` (default) or Android's make_ext4fs
//! cpu_scale = 4            # the host CPU of filesystem calls, this machine's times this (default: none)
//! idle_exit_us = 40        # the CPU's exit from idle after a request it waited for alone (default 0)
//! ```

use crate::error::ConfigError;
use crate::ext4_layout::Layout;
use crate::{FsConfig, FsKind, FS_BLOCK};
use flashsim::Profile;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SystemTable {
    filesystem: String,
    #[serde(default)]
    discard: bool,
    #[serde(default)]
    nobarrier: bool,
    #[serde(default)]
    options: Option<String>,
    #[serde(default)]
    mkfs: Option<String>,
    // Read by `FsCpu::from_profile` (a number; checked there).
    #[serde(default, rename = "cpu_scale")]
    _cpu_scale: Option<toml::Value>,
    // The rest of the stack, read by `crate::stack::Stack::from_profile`.
    #[serde(default, rename = "shared_storage")]
    _shared_storage: Option<toml::Value>,
    #[serde(default, rename = "shared_storage_submit_us")]
    _shared_storage_submit_us: Option<toml::Value>,
    #[serde(default, rename = "shared_storage_complete_us")]
    _shared_storage_complete_us: Option<toml::Value>,
    #[serde(default, rename = "trim")]
    _trim: Option<toml::Value>,
    #[serde(default, rename = "idle_exit_us")]
    _idle_exit_us: Option<toml::Value>,
}

impl crate::disk::FsCpu {
    /// The host CPU of filesystem calls on `profile`'s system: this machine's measured costs
    /// times its `[system] cpu_scale` ([`crate::disk::FsCpu::scaled`]); zero without one. An
    /// error names `source` (the profile) and the field.
    pub fn from_profile(profile: &Profile, source: &str) -> Result<crate::disk::FsCpu, ConfigError> {
        let Some(v) = profile.system.as_ref().and_then(|t| t.get("cpu_scale")) else {
            return Ok(crate::disk::FsCpu::ZERO);
        };
        match v.as_float().or_else(|| v.as_integer().map(|i| i as f64)) {
            Some(x) if x.is_finite() && (0.0..=1000.0).contains(&x) => Ok(crate::disk::FsCpu::scaled(x)),
            _ => Err(ConfigError::SystemTable {
                profile: source.to_string(),
                message: format!("cpu_scale: must be a number in [0, 1000], got {v}"),
            }),
        }
    }
}

impl FsConfig {
    /// The filesystem of `profile`'s `[system]` table; `plain` without discard when it has
    /// none. Errors name `source` (the profile) and the field; `mkfs = "make_ext4fs"` on a
    /// device too small for make_ext4fs's metadata and journal is one (make_ext4fs fails there).
    pub fn from_profile(profile: &Profile, source: &str) -> Result<FsConfig, ConfigError> {
        let Some(table) = &profile.system else {
            return Ok(FsConfig::plain(false));
        };
        let t: SystemTable = toml::Value::Table(table.clone()).try_into().map_err(|e: toml::de::Error| {
            ConfigError::SystemTable { profile: source.to_string(), message: e.message().trim().to_string() }
        })?;
        let field = |field: &'static str| {
            move |e: ConfigError| ConfigError::SystemField { profile: source.to_string(), field, source: Box::new(e) }
        };
        let kind = FsKind::parse(&t.filesystem).map_err(field("filesystem"))?;
        let mut cfg = FsConfig::new(kind);
        cfg.discard = t.discard;
        cfg.nobarrier = t.nobarrier;
        match t.mkfs.as_deref() {
            None | Some("mke2fs") => {}
            Some("make_ext4fs") if kind == FsKind::Ext4 => {
                // make_ext4fs fails on a device too small for its metadata and journal.
                Layout::make_ext4fs(profile.logical_bytes() / FS_BLOCK)
                    .map_err(|e| field("mkfs")(ConfigError::Mkfs(e)))?;
                cfg.make_ext4fs = true
            }
            Some(other) => {
                return Err(ConfigError::SystemTable {
                    profile: source.to_string(),
                    message: format!("mkfs: '{other}' is not 'mke2fs' or 'make_ext4fs' (ext4 only)"),
                })
            }
        }
        for opt in t.options.iter().flat_map(|o| o.split(',')).map(str::trim).filter(|o| !o.is_empty()) {
            cfg.set_option(opt).map_err(field("options"))?;
        }
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(system: &str) -> Result<Profile, String> {
        let text = flashsim::builtin::TOY.to_string() + "\n[system]\n" + system;
        Profile::from_toml("toy.toml", &text).map_err(|e| e.to_string())
    }

    #[test]
    fn reads_the_filesystem_and_its_options() {
        let p = profile("filesystem = \"f2fs\"\ndiscard = true\noptions = \"mode=lfs\"\n").unwrap();
        let cfg = FsConfig::from_profile(&p, "toy.toml").unwrap();
        assert_eq!(cfg.label(), "f2fs,discard,mode=lfs");
    }

    #[test]
    fn bad_values_name_the_field() {
        let p = profile("filesystem = \"zfs\"\n").unwrap();
        let e = FsConfig::from_profile(&p, "toy.toml").unwrap_err().to_string();
        assert!(e.contains("toy.toml") && e.contains("filesystem"), "{e}");
        let p = profile("filesystem = \"ext4\"\noptions = \"mode=lfs\"\n").unwrap();
        let e = FsConfig::from_profile(&p, "toy.toml").unwrap_err().to_string();
        assert!(e.contains("options"), "{e}");
        let p = profile("filesystem = \"ext4\"\nbogus = 1\n").unwrap();
        let e = FsConfig::from_profile(&p, "toy.toml").unwrap_err().to_string();
        assert!(e.contains("bogus"), "{e}");
    }

    /// A device too small for make_ext4fs's journal (1024 blocks at least) is refused when
    /// the profile is read, naming the field and the size: make_ext4fs fails on it.
    #[test]
    fn make_ext4fs_on_a_device_too_small_is_refused() {
        let p = profile("filesystem = \"ext4\"\nmkfs = \"make_ext4fs\"\n").unwrap();
        assert!(FsConfig::from_profile(&p, "toy.toml").unwrap().make_ext4fs);
        // 96 blocks of 64 KiB less 35 % spare: 998 blocks of 4 KiB, fewer than the 1053
        // make_ext4fs needs (a header of 28 and the journal with its extent block).
        let tiny = flashsim::builtin::TOY
            .replace("blocks_per_plane = 128", "blocks_per_plane = 24")
            .replace("pages_per_block = 64", "pages_per_block = 16")
            .replace("page_kib = 8", "page_kib = 4")
            .replace("spare_factor = 0.10", "spare_factor = 0.35")
            .replace("bg_gc_target_free_blocks = 8", "bg_gc_target_free_blocks = 4")
            + "\n[system]\nfilesystem = \"ext4\"\nmkfs = \"make_ext4fs\"\n";
        let p = Profile::from_toml("tiny.toml", &tiny).unwrap();
        let blocks = p.logical_bytes() / FS_BLOCK;
        let e = FsConfig::from_profile(&p, "tiny.toml").unwrap_err().to_string();
        assert!(e.contains("tiny.toml") && e.contains("mkfs") && e.contains(&format!("{blocks} blocks")), "{e}");
        assert!(e.contains("journal of 1024 blocks"), "{e}");
    }
}
