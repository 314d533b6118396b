//! What to validate: the workload (by name), the mount options, the image and workload sizes,
//! each checked with an error naming the flag.

use crate::error::Error;
use flashlab_sqlite::JournalMode;

/// The workloads `validate-fs` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// Sequential fill (files of 4 MiB, fsync each) to N % of the filesystem, then every third
    /// file deleted, then a sync.
    Fill,
    /// 4 KiB random overwrites of one 16 MiB file, fsync after every write, then a sync.
    RandwriteFsync,
    /// Real SQLite transactions (one insert each, synchronous=FULL) in one journal mode.
    Sqlite(JournalMode),
    /// The fill steps of the built-in `age` protocol, scaled to the image.
    AgeFill,
    /// Sequential files (4 MiB, fsync each) until less than 1/80 of the space is free (the Moto
    /// X review's "less than 200 MB" of 16 GB), then the four-corner writes on a file of 1/40 of
    /// the image (its 100 MB span, scaled): 256 KiB sequential writes, then 4 KiB random
    /// overwrites with an fsync each; a sync.
    NearlyFull,
    /// Files to `--fill` %, a sync, every file deleted, a sync, then a pause of 90 s (F2FS
    /// sends the discards of a large delete from a background thread).
    DeleteAll,
}

impl Workload {
    /// Every workload's `--workload` name.
    pub(crate) const NAMES: [&'static str; 9] = [
        "fill",
        "randwrite-fsync",
        "sqlite-delete",
        "sqlite-truncate",
        "sqlite-persist",
        "sqlite-wal",
        "age-fill",
        "nearly-full",
        "delete-all",
    ];

    /// Parse a `--workload` name; the error names `--workload` and lists the known ones.
    pub fn parse(s: &str) -> Result<Workload, Error> {
        Ok(match s {
            "fill" => Workload::Fill,
            "randwrite-fsync" => Workload::RandwriteFsync,
            "sqlite-delete" => Workload::Sqlite(JournalMode::Delete),
            "sqlite-truncate" => Workload::Sqlite(JournalMode::Truncate),
            "sqlite-persist" => Workload::Sqlite(JournalMode::Persist),
            "sqlite-wal" => Workload::Sqlite(JournalMode::Wal),
            "age-fill" => Workload::AgeFill,
            "nearly-full" => Workload::NearlyFull,
            "delete-all" => Workload::DeleteAll,
            other => {
                return Err(Error::Option {
                    option: "--workload",
                    msg: format!("unknown workload '{other}' (expected one of: {})", Workload::NAMES.join(", ")),
                })
            }
        })
    }

    /// The `--workload` name.
    pub fn name(self) -> &'static str {
        match self {
            Workload::Fill => "fill",
            Workload::RandwriteFsync => "randwrite-fsync",
            Workload::Sqlite(JournalMode::Delete) => "sqlite-delete",
            Workload::Sqlite(JournalMode::Truncate) => "sqlite-truncate",
            Workload::Sqlite(JournalMode::Persist) => "sqlite-persist",
            Workload::Sqlite(JournalMode::Wal) => "sqlite-wal",
            Workload::Sqlite(_) => "sqlite",
            Workload::AgeFill => "age-fill",
            Workload::NearlyFull => "nearly-full",
            Workload::DeleteAll => "delete-all",
        }
    }
}

/// The mount options compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mount {
    /// ext4's defaults (data=ordered, barriers, no discard).
    Default,
    /// `nobarrier`: no flushes or FUA from the filesystem.
    Nobarrier,
    /// `discard`: online discard of freed blocks.
    Discard,
}

impl Mount {
    /// Parse a `--mount` word (default, nobarrier, discard); the error names `--mount`.
    pub fn parse(s: &str) -> Result<Mount, Error> {
        match s {
            "default" | "defaults" | "" => Ok(Mount::Default),
            "nobarrier" => Ok(Mount::Nobarrier),
            "discard" => Ok(Mount::Discard),
            other => Err(Error::Option {
                option: "--mount",
                msg: format!("unknown mount option '{other}' (expected default, nobarrier or discard)"),
            }),
        }
    }

    /// The `--mount` word for these options.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Mount::Default => "default",
            Mount::Nobarrier => "nobarrier",
            Mount::Discard => "discard",
        }
    }

    /// The `-o` string for mount(8).
    pub fn mount_options(self) -> &'static str {
        match self {
            Mount::Default => "defaults",
            Mount::Nobarrier => "nobarrier",
            Mount::Discard => "discard",
        }
    }
}

/// Which kernel filesystem is compared with its model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FsChoice {
    /// This host's ext4, on a loop device.
    Ext4,
    /// The distribution kernel's F2FS, in a VM ([`flashlab_vm`]).
    F2fs,
}

impl FsChoice {
    /// Parse `--fs` (ext4 or f2fs).
    pub fn parse(s: &str) -> Result<FsChoice, Error> {
        match s {
            "ext4" => Ok(FsChoice::Ext4),
            "f2fs" => Ok(FsChoice::F2fs),
            other => Err(Error::Option {
                option: "--fs",
                msg: format!("unknown filesystem '{other}' (expected ext4 or f2fs)"),
            }),
        }
    }
}

/// F2FS mount presets: (name, `-o` options, where they come from).
pub const F2FS_MOUNTS: [(&str, &str, &str); 4] = [
    (
        "android",
        "noatime,nosuid,nodev,background_gc=on,discard,inline_xattr,inline_data",
        "the /data line of Android's F2FS fstabs of 2014-2016 (AOSP device trees): noatime, background cleaning, online discard, inline xattrs and data",
    ),
    ("kernel", "defaults", "the kernel's own defaults (6.1: background_gc=on, discard on a device that supports it, lazytime, inline data and dentries, flush and checkpoint merging)"),
    ("motox", "noatime,nosuid,nodev,background_gc=on,discard,inline_xattr", "the Moto X (2013) review's description: F2FS /data that trims on delete; no inline data, which came to F2FS in Linux 3.14, after the Moto X's kernel"),
    ("motoz", "noatime,nosuid,nodev,background_gc=on,discard,inline_data,nobarrier,active_logs=6", "the Moto Z (2016) /data options: background_gc=on,discard,inline_data,nobarrier,active_logs=6"),
];

/// The `-o` string of an F2FS `--mount` value: a preset name ([`F2FS_MOUNTS`]; `default` is
/// `android`) or a comma-separated list of mount options passed through.
pub fn f2fs_mount_options(s: &str) -> Result<String, Error> {
    let name = if s == "default" || s.is_empty() { "android" } else { s };
    if let Some((_, o, _)) = F2FS_MOUNTS.iter().find(|(n, _, _)| *n == name) {
        return Ok((*o).to_string());
    }
    if s.contains(',') || s.contains('=') || ["nobarrier", "discard", "nodiscard", "noatime", "lazytime"].contains(&s) {
        return Ok(s.to_string());
    }
    Err(Error::Option {
        option: "--mount",
        msg: format!(
            "unknown F2FS mount '{s}' (expected {} or a comma-separated list of mount options)",
            F2FS_MOUNTS.iter().map(|m| m.0).collect::<Vec<_>>().join(", ")
        ),
    })
}

/// One validation run's settings.
#[derive(Debug, Clone)]
pub struct Options {
    /// What runs on both sides.
    pub workload: Workload,
    /// Which filesystem: this host's ext4, or F2FS in a VM.
    pub fs: FsChoice,
    /// The ext4 mount options (kernel and model alike).
    pub mount: Mount,
    /// F2FS: the `-o` options (kernel and model alike; [`f2fs_mount_options`]).
    pub f2fs_mount: String,
    /// Size of the image (bytes, a multiple of 4 MiB).
    pub image_bytes: u64,
    /// Blocks per group given to mkfs.ext4 (`-g`): small groups so a small image has several.
    pub blocks_per_group: u64,
    /// `fill`: how full the filesystem gets (percent).
    pub fill_percent: u64,
    /// `randwrite-fsync`: overwrites.
    pub writes: u64,
    /// `randwrite-fsync`: sleep this long after each fsync (0: none). Sets the pace of the
    /// writes against the kernel's coarse clock: with a tick or more between writes every
    /// write moves the file's mtime and every fsync commits the journal.
    pub pause_ns: u64,
    /// SQLite: transactions.
    pub transactions: u64,
    /// Seed of the workload's random choices.
    pub seed: u64,
    /// Directory the image lives in (tmpfs).
    pub image_dir: std::path::PathBuf,
    /// The simulated device under the model (only its timing matters here).
    pub model_profile: String,
    /// The model's timestamp tick in its virtual time (None: the kernel's jiffy, 4 ms).
    pub tick_ns: Option<u64>,
}

impl Options {
    /// Defaults: a 128 MiB image in /dev/shm, 8192 blocks per group, fill to 80 %, 400 writes with no pause, 100 SQLite transactions, seed 1, model on `sim:toy`, the kernel's jiffy as tick.
    pub fn new(workload: Workload, mount: Mount) -> Options {
        Options {
            workload,
            fs: FsChoice::Ext4,
            mount,
            f2fs_mount: F2FS_MOUNTS[0].1.to_string(),
            image_bytes: 128 << 20,
            blocks_per_group: 8192,
            fill_percent: 80,
            writes: 400,
            pause_ns: 0,
            transactions: 100,
            seed: 1,
            image_dir: std::path::PathBuf::from("/dev/shm"),
            model_profile: "toy".into(),
            tick_ns: None,
        }
    }

    /// The `-o` string for the F2FS mount: `f2fs_mount`, or `defaults` when it is empty.
    pub fn mount_options_f2fs(&self) -> String {
        if self.f2fs_mount.is_empty() {
            "defaults".into()
        } else {
            self.f2fs_mount.clone()
        }
    }

    /// Check the numbers.
    pub fn check(&self) -> Result<(), Error> {
        let bad = |option, msg: String| Err(Error::Option { option, msg });
        if self.image_bytes < 32 << 20 || !self.image_bytes.is_multiple_of(4 << 20) || self.image_bytes > 16 << 30 {
            return bad("--size", format!("{}: give a multiple of 4 MiB from 32 MiB to 16 GiB", self.image_bytes));
        }
        if !(8..=32768).contains(&self.blocks_per_group) || !self.blocks_per_group.is_multiple_of(8) {
            return bad("--blocks-per-group", format!("{}: give a multiple of 8 up to 32768", self.blocks_per_group));
        }
        if !(1..=95).contains(&self.fill_percent) {
            return bad("--fill", format!("{}: give 1 to 95 (percent)", self.fill_percent));
        }
        if self.writes == 0 || self.writes > 1_000_000 {
            return bad("--writes", format!("{}: give 1 to 1000000", self.writes));
        }
        if self.pause_ns > 1_000_000_000 {
            return bad("pause", format!("{} ns: give at most 1 s between writes", self.pause_ns));
        }
        if self.transactions == 0 || self.transactions > 100_000 {
            return bad("--transactions", format!("{}: give 1 to 100000", self.transactions));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_bad_ones_are_named() {
        for n in Workload::NAMES {
            assert_eq!(Workload::parse(n).unwrap().name(), n);
        }
        let e = Workload::parse("sqlite-off").unwrap_err().to_string();
        assert!(e.contains("--workload") && e.contains("sqlite-off") && e.contains("age-fill"), "{e}");
        assert!(Mount::parse("data=journal").unwrap_err().to_string().contains("--mount"));
        let mut o = Options::new(Workload::Fill, Mount::Default);
        o.image_bytes = 5 << 20;
        assert!(o.check().unwrap_err().to_string().contains("--size"));
    }
}
