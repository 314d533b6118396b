//! Which simulated filesystem a simulated system runs, with its mount options and
//! model knobs, and how to read that choice from a string such as `"f2fs,discard"`.

use crate::error::ConfigError;
use flashsim::Ns;
use std::fmt;

const SEC: Ns = 1_000_000_000;

/// The filesystem model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsKind {
    /// Data extents only: no metadata, no journal (the model before filesystem models existed).
    Plain,
    /// In-place data, jbd2-style journal of metadata blocks (ordered mode).
    Ext4,
    /// Log-structured: data and node logs in 2 MiB segments, checkpoints, segment cleaning.
    F2fs,
}

impl FsKind {
    /// The names [`FsKind::parse`] accepts, in the order of the variants.
    pub const NAMES: [&'static str; 3] = ["plain", "ext4", "f2fs"];

    /// `plain`, `ext4` or `f2fs` (any case, blanks around ignored).
    pub fn parse(s: &str) -> Result<FsKind, ConfigError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "plain" => Ok(FsKind::Plain),
            "ext4" => Ok(FsKind::Ext4),
            "f2fs" => Ok(FsKind::F2fs),
            other => Err(ConfigError::UnknownFilesystem(other.to_string())),
        }
    }

    /// The name as [`FsKind::parse`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            FsKind::Plain => "plain",
            FsKind::Ext4 => "ext4",
            FsKind::F2fs => "f2fs",
        }
    }
}

impl fmt::Display for FsKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A filesystem choice with its mount options and model knobs. Defaults (see
/// `docs/filesystems.md` for where each comes from) are those of `FsConfig::new(kind)`.
#[derive(Debug, Clone, PartialEq)]
pub struct FsConfig {
    /// The model.
    pub kind: FsKind,
    /// Online discard (`-o discard`): ext4 trims freed extents at journal commit, F2FS trims
    /// freed segments at checkpoint; `plain` trims at delete.
    pub discard: bool,
    /// `-o nobarrier`: cache flushes are not sent (counted as dropped).
    pub nobarrier: bool,
    /// ext4: jbd2 commit interval (`commit=`, 5 s).
    pub commit_interval_ns: Ns,
    /// ext4: the clock file timestamps are taken from ticks this often (the kernel's coarse
    /// clock, one jiffy, 1/CONFIG_HZ). A write dirties the inode for its mtime only when the
    /// tick moved since the last one, so an fsync after an overwrite in the same tick has no
    /// metadata to commit: it writes the data and flushes the cache, with no journal commit.
    /// Default 4 ms, HZ=250: kernel/Kconfig.hz's default, which Android's GKI arm64 kernels
    /// keep (their gki_defconfig sets no CONFIG_HZ); some vendor kernels set 100 (10 ms) or
    /// 300. `validate-fs` measures the tick of the kernel it compares with (clock_getres of
    /// CLOCK_REALTIME_COARSE) and feeds the model that kernel's clock readings.
    pub timestamp_granularity_ns: Ns,
    /// ext4: journal size in bytes; `None` = mke2fs's default for the filesystem size.
    pub journal_bytes: Option<u64>,
    /// ext4: checkpoint the journal when this fraction of it is in use (jbd2 starts when less
    /// than a quarter is free).
    pub journal_checkpoint_fraction: f64,
    /// ext4: journaled metadata is written to its home location (and the journal tail moves)
    /// this long after it was committed (the kernel's `dirty_expire_centisecs`, 30 s).
    pub writeback_interval_ns: Ns,
    /// F2FS: checkpoint interval (`DEF_CP_INTERVAL`, 60 s).
    pub cp_interval_ns: Ns,
    /// F2FS: checkpoint when this many node blocks are dirty.
    pub dirty_node_limit: u32,
    /// F2FS: fraction of the main area's segments kept out of the user's reach for cleaning
    /// (mkfs.f2fs's overprovision, ~5 %).
    pub overprovision: f64,
    /// F2FS: the background cleaner wakes this often while the system idles (30 s).
    pub gc_sleep_ns: Ns,
    /// F2FS with `discard`: discards are queued at checkpoints and sent by a discard thread
    /// once the device has been idle `discard_idle_ns`, eight at a time, as Linux 4.10 and
    /// later do (`discard_async`, a model option); `false`: sent by the checkpoint itself, as
    /// the F2FS of earlier kernels (the 2013-2016 phones) did.
    pub discard_async: bool,
    /// F2FS: how long the device must be idle before the discard thread sends
    /// (`discard_idle_interval`, 5 s).
    pub discard_idle_ns: Ns,
    /// F2FS: a write of at most this many blocks goes to the hot data log (the kernel's
    /// `min_hot_blocks`, 16: a writeback batch of an inode with that few dirty pages is hot).
    pub min_hot_blocks: u32,
    /// F2FS: which overwrites of allocated blocks are written in place, as the kernel's
    /// `ipu_policy` bits (`F2FS_IPU_FORCE` 1, `_SSR` 2, `_UTIL` 4, `_SSR_UTIL` 8, `_FSYNC` 16;
    /// 128, `_HONOR_OPU_WRITE`, changes nothing here). `None`: the default of Linux 6.1,
    /// `FORCE | HONOR_OPU_WRITE` (0x81) on a volume of at most 8192 main segments (16 GiB,
    /// `f2fs_tuning_parameters`), `FSYNC` (0x10) on a larger one.
    pub ipu_policy: Option<u32>,
    /// F2FS: utilization (percent of the user blocks valid) above which the `UTIL` policies
    /// update in place (`min_ipu_util`, 70).
    pub min_ipu_util: u32,
    /// F2FS: the `FSYNC` policy updates in place the overwrites an fsync writes back when the
    /// file has at most this many dirty blocks (`min_fsync_blocks`, 8); the model counts the
    /// blocks of the write.
    pub min_fsync_blocks: u32,
    /// F2FS `mode=lfs`: never write into the holes of used segments (slack-space recycling);
    /// the default `mode=adaptive` does once free segments run short.
    pub lfs_only: bool,
    /// ext4 made by Android's `make_ext4fs` (recovery's format of /data up to Android 4.x)
    /// rather than mke2fs: no `flex_bg`, so each group's bitmaps sit beside its inode table
    /// (after the backup superblock and reserved GDT blocks where the group has them), blocks
    /// / 4 inodes, and a journal of 1/64 of the blocks (1024 to 32768 blocks) from group 0 on.
    /// See
    /// [`crate::ext4_layout::Layout::make_ext4fs`].
    pub make_ext4fs: bool,
}

impl FsConfig {
    /// `kind` with default knobs, no discard, barriers on.
    pub fn new(kind: FsKind) -> FsConfig {
        FsConfig {
            kind,
            discard: false,
            nobarrier: false,
            commit_interval_ns: 5 * SEC,
            timestamp_granularity_ns: 4_000_000,
            journal_bytes: None,
            journal_checkpoint_fraction: 0.75,
            writeback_interval_ns: 30 * SEC,
            cp_interval_ns: 60 * SEC,
            dirty_node_limit: 4096,
            overprovision: 0.05,
            gc_sleep_ns: 30 * SEC,
            discard_async: false,
            discard_idle_ns: 5 * SEC,
            min_hot_blocks: 16,
            ipu_policy: None,
            min_ipu_util: 70,
            min_fsync_blocks: 8,
            lfs_only: false,
            make_ext4fs: false,
        }
    }

    /// The `plain` model with or without discard (what `SimSystem::new` runs).
    pub fn plain(discard: bool) -> FsConfig {
        FsConfig { discard, ..FsConfig::new(FsKind::Plain) }
    }

    /// Parse `NAME[,OPTION...]`: NAME is `plain`, `ext4` or `f2fs`; options are mount
    /// options: `discard`, `nodiscard`, `nobarrier`, `barrier`, `commit=SECONDS` (ext4),
    /// `cp_interval=SECONDS` and `mode=adaptive|lfs` (f2fs).
    pub fn parse(spec: &str) -> Result<FsConfig, ConfigError> {
        let mut parts = spec.split(',');
        let kind = FsKind::parse(parts.next().unwrap_or(""))?;
        let mut cfg = FsConfig::new(kind);
        for opt in parts {
            cfg.set_option(opt.trim())
                .map_err(|e| ConfigError::InSpec { spec: spec.to_string(), source: Box::new(e) })?;
        }
        Ok(cfg)
    }

    /// Apply one mount option (see [`FsConfig::parse`]).
    pub fn set_option(&mut self, opt: &str) -> Result<(), ConfigError> {
        let secs = |v: &str, name: &'static str| -> Result<Ns, ConfigError> {
            match v.parse::<u64>() {
                Ok(s) if (1..=86_400).contains(&s) => Ok(s * SEC),
                _ => Err(ConfigError::Value {
                    option: name,
                    value: v.to_string(),
                    why: "expected whole seconds from 1 to 86400",
                }),
            }
        };
        match opt.split_once('=') {
            None => match opt {
                "discard" => self.discard = true,
                "nodiscard" => self.discard = false,
                "nobarrier" | "barrier=0" => self.nobarrier = true,
                "barrier" => self.nobarrier = false,
                // `ipu`: every overwrite of an allocated block in place (`ipu_policy=1`), as the
                // direct-I/O write path of the F2FS of 2013-era kernels is assumed to have done.
                "ipu" if self.kind == FsKind::F2fs => self.ipu_policy = Some(1),
                // Accepted, without effect on the model (docs/filesystems.md): inline data keeps
                // a file of at most 3488 bytes in its inode; converting one that grows writes
                // its first block once more (the kernel's SQLite DELETE journal: one block a
                // transaction, docs/validate-fs.md), which the model does not do.
                "inline_data" | "noinline_data" if self.kind == FsKind::F2fs => {}
                "noipu" if self.kind == FsKind::F2fs => self.ipu_policy = Some(0),
                "discard_async" if self.kind == FsKind::F2fs => self.discard_async = true,
                other => return Err(ConfigError::UnknownOption(other.to_string())),
            },
            Some(("commit", v)) if self.kind == FsKind::Ext4 => self.commit_interval_ns = secs(v, "commit")?,
            Some(("cp_interval", v)) if self.kind == FsKind::F2fs => self.cp_interval_ns = secs(v, "cp_interval")?,
            // The kernel's sysfs tunables (/sys/fs/f2fs/DEV/...), set as options here.
            Some((k @ ("ipu_policy" | "min_ipu_util" | "min_fsync_blocks" | "min_hot_blocks"), v))
                if self.kind == FsKind::F2fs =>
            {
                let n = v.parse::<u32>().map_err(|_| ConfigError::Value {
                    option: match k {
                        "ipu_policy" => "ipu_policy",
                        "min_ipu_util" => "min_ipu_util",
                        "min_fsync_blocks" => "min_fsync_blocks",
                        _ => "min_hot_blocks",
                    },
                    value: v.to_string(),
                    why: "expected a whole number",
                })?;
                match k {
                    "ipu_policy" => self.ipu_policy = Some(n),
                    "min_ipu_util" => self.min_ipu_util = n,
                    "min_fsync_blocks" => self.min_fsync_blocks = n,
                    _ => self.min_hot_blocks = n,
                }
            }
            Some(("mode", m)) if self.kind == FsKind::F2fs => {
                self.lfs_only = match m {
                    "lfs" => true,
                    "adaptive" => false,
                    _ => {
                        return Err(ConfigError::Value {
                            option: "mode",
                            value: m.to_string(),
                            why: "expected mode=adaptive or mode=lfs",
                        })
                    }
                }
            }
            // The model's idle-time cleaner is F2FS's background GC: `on` is what it does.
            Some(("background_gc", "on")) if self.kind == FsKind::F2fs => {}
            Some(("background_gc", v)) if self.kind == FsKind::F2fs => {
                return Err(ConfigError::Value {
                    option: "background_gc",
                    value: v.to_string(),
                    why: "only background_gc=on is modelled",
                })
            }
            // The model keeps six logs (hot, warm, cold data and nodes), F2FS's default; with 2
            // or 4 the kernel folds some together, which the model does not.
            Some(("active_logs", "2" | "4" | "6")) if self.kind == FsKind::F2fs => {}
            Some(("active_logs", v)) if self.kind == FsKind::F2fs => {
                return Err(ConfigError::Value {
                    option: "active_logs",
                    value: v.to_string(),
                    why: "expected 2, 4 or 6",
                })
            }
            Some(("barrier", "1")) => self.nobarrier = false,
            Some(("barrier", "0")) => self.nobarrier = true,
            Some((k, _)) => return Err(ConfigError::NotApplicable { option: k.to_string(), kind: self.kind }),
        }
        Ok(())
    }

    /// `ext4,discard,nobarrier`-style label of this configuration.
    pub fn label(&self) -> String {
        let mut s = self.kind.name().to_string();
        if self.discard {
            s.push_str(",discard");
        }
        if self.nobarrier {
            s.push_str(",nobarrier");
        }
        if self.lfs_only && self.kind == FsKind::F2fs {
            s.push_str(",mode=lfs");
        }
        if self.discard_async && self.kind == FsKind::F2fs {
            s.push_str(",discard_async");
        }
        if let (Some(p), FsKind::F2fs) = (self.ipu_policy, self.kind) {
            if p == 1 {
                s.push_str(",ipu");
            } else {
                s.push_str(&format!(",ipu_policy={p}"));
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_options() {
        assert_eq!(FsConfig::parse("ext4").unwrap().kind, FsKind::Ext4);
        let c = FsConfig::parse("F2FS,discard,nobarrier,cp_interval=30").unwrap();
        assert!(c.discard && c.nobarrier && c.kind == FsKind::F2fs);
        assert_eq!(c.cp_interval_ns, 30 * SEC);
        assert_eq!(c.label(), "f2fs,discard,nobarrier");
        assert_eq!(FsConfig::parse("ext4,commit=1").unwrap().commit_interval_ns, SEC);
        assert!(FsConfig::parse("f2fs,mode=lfs").unwrap().lfs_only);
        assert!(FsConfig::parse("f2fs,mode=fast").unwrap_err().to_string().contains("mode=fast"));
    }

    #[test]
    fn bad_values_say_what_is_wrong() {
        assert!(FsConfig::parse("xfs").unwrap_err().to_string().contains("unknown filesystem 'xfs'"));
        assert!(FsConfig::parse("ext4,dicard").unwrap_err().to_string().contains("unknown option 'dicard'"));
        assert!(FsConfig::parse("ext4,commit=0").unwrap_err().to_string().contains("commit=0"));
        assert!(FsConfig::parse("plain,commit=5").unwrap_err().to_string().contains("does not apply to plain"));
    }
}
