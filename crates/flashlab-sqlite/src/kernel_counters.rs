//! The kernel's per-device I/O counters for the block device under a directory: which device
//! (from the directory's `st_dev` through `/sys/dev/block/MAJ:MIN`), and its `stat` file
//! (kernel `Documentation/block/stat.rst`: 17 fields on kernels since 5.5; field 5 is write
//! I/Os, 7 sectors written in 512-byte units, 12-14 discards (4.18+), 16 flush requests (5.5+)).
//!
//! The counters count everything that reaches the device, from any process: callers sample
//! them around a measured interval and measure an idle interval for comparison.

use crate::error::{CountersError, CountersProblem, Error};
use serde::Serialize;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The counters of one `stat` read that flashlab uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DiskStat {
    pub write_ios: u64,
    pub write_sectors: u64,
    /// `None` on kernels older than 4.18 (11 fields).
    pub discard_ios: Option<u64>,
    /// `None` on kernels older than 5.5 (fewer than 17 fields).
    pub flush_ios: Option<u64>,
}

/// Counter differences over an interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DiskDelta {
    pub write_ios: u64,
    pub write_bytes: u64,
    pub discard_ios: Option<u64>,
    pub flush_ios: Option<u64>,
}

impl DiskStat {
    /// Parse a `stat` line; `what` names the file for errors.
    pub fn parse(text: &str, what: &str) -> Result<DiskStat, CountersError> {
        let bad = |problem| CountersError { file: what.to_string(), problem };
        let fields: Vec<u64> = text
            .split_whitespace()
            .enumerate()
            .map(|(i, w)| {
                w.parse::<u64>().map_err(|_| bad(CountersProblem::NotANumber { field: i + 1, word: w.to_string() }))
            })
            .collect::<Result<_, _>>()?;
        if fields.len() < 11 {
            return Err(bad(CountersProblem::TooFewFields(fields.len())));
        }
        Ok(DiskStat {
            write_ios: fields[4],
            write_sectors: fields[6],
            discard_ios: fields.get(11).copied(),
            flush_ios: if fields.len() >= 17 { Some(fields[15]) } else { None },
        })
    }

    /// What happened between `earlier` and `self` (counters that went backwards, as after a
    /// device reset, count as zero).
    pub fn since(&self, earlier: &DiskStat) -> DiskDelta {
        let opt = |a: Option<u64>, b: Option<u64>| Some(a?.saturating_sub(b?));
        DiskDelta {
            write_ios: self.write_ios.saturating_sub(earlier.write_ios),
            write_bytes: self.write_sectors.saturating_sub(earlier.write_sectors) * 512,
            discard_ios: opt(self.discard_ios, earlier.discard_ios),
            flush_ios: opt(self.flush_ios, earlier.flush_ios),
        }
    }
}

/// A block device whose counters can be read.
#[derive(Debug, Clone, Serialize)]
pub struct BlockDevice {
    /// Kernel name (`vda`, `nvme0n1p2`, `dm-0`).
    pub name: String,
    /// The whole disk when `name` is a partition.
    pub disk: String,
    pub stat_path: PathBuf,
    /// `/sys/block/DISK/queue/write_cache`: "write back" (flushes are sent) or "write through"
    /// (the kernel sends none: flush counts stay 0).
    pub write_cache: Option<String>,
}

impl BlockDevice {
    pub fn read(&self) -> Result<DiskStat, Error> {
        let text = std::fs::read_to_string(&self.stat_path)
            .map_err(|source| Error::Io { path: self.stat_path.clone(), source })?;
        DiskStat::parse(&text, &self.stat_path.display().to_string())
            .map_err(|e| Error::Target { path: self.stat_path.clone(), msg: e.to_string() })
    }

    /// Whether the kernel sends cache flushes to this device.
    pub fn sends_flushes(&self) -> bool {
        self.write_cache.as_deref().map(|w| w.trim() == "write back").unwrap_or(true)
    }
}

/// Where a directory's I/O goes.
#[derive(Debug, Clone, Serialize)]
pub struct DirDevice {
    /// Filesystem type and source from /proc/self/mountinfo (e.g. "ext4 on /dev/vda").
    pub filesystem: String,
    /// `None` when the filesystem has no block device of its own (tmpfs, overlay, btrfs's
    /// anonymous device numbers, FUSE, NFS): then there are no kernel counters to read.
    pub device: Option<BlockDevice>,
}

/// Find the device and filesystem under `dir`.
pub fn dir_device(dir: &Path) -> Result<DirDevice, Error> {
    let meta = std::fs::metadata(dir).map_err(|source| Error::Io { path: dir.to_path_buf(), source })?;
    let dev = meta.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let filesystem = mount_of(major, minor).unwrap_or_else(|| format!("unknown filesystem (device {major}:{minor})"));
    let sys = PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
    let stat_path = sys.join("stat");
    if major == 0 || !stat_path.exists() {
        return Ok(DirDevice { filesystem, device: None });
    }
    let dev = flashlab_sysfacts::blockdev::by_devnum(major, minor).map_err(|e| match e {
        flashlab_sysfacts::SysError::Io { path, source } => Error::Io { path, source },
        other => Error::Target { path: sys.clone(), msg: other.to_string() },
    })?;
    let disk = dev.disk_name().to_string();
    let name = dev.name;
    let write_cache = flashlab_sysfacts::blockdev::attribute(&disk, "queue/write_cache");
    Ok(DirDevice { filesystem, device: Some(BlockDevice { name, disk, stat_path, write_cache }) })
}

/// "FSTYPE on SOURCE" for the mount whose device number is major:minor.
fn mount_of(major: u32, minor: u32) -> Option<String> {
    let mounts = flashlab_sysfacts::mounts::read_self().ok()?;
    let m = mounts.by_majmin(major, minor).next()?;
    Some(format!("{} on {}", m.fs_type, m.source))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_17_fields() {
        let s = DiskStat::parse(
            "18406504 28472 260880170 4467131 4077798 148053 268530296 2133873 0 566048 6705591 194526 81 783433672 79439 12863 25147\n",
            "stat",
        )
        .unwrap();
        assert_eq!(
            s,
            DiskStat {
                write_ios: 4077798,
                write_sectors: 268530296,
                discard_ios: Some(194526),
                flush_ios: Some(12863)
            }
        );
        let later = DiskStat {
            write_ios: 4077800,
            write_sectors: 268530304,
            discard_ios: Some(194526),
            flush_ios: Some(12866),
        };
        let d = later.since(&s);
        assert_eq!(d, DiskDelta { write_ios: 2, write_bytes: 4096, discard_ios: Some(0), flush_ios: Some(3) });
    }

    #[test]
    fn old_kernels_and_bad_text() {
        let s = DiskStat::parse("1 2 3 4 5 6 7 8 9 10 11", "old").unwrap();
        assert_eq!(s.flush_ios, None);
        assert_eq!(s.discard_ios, None);
        assert_eq!(s.write_ios, 5);
        let e = DiskStat::parse("1 2 x", "f").unwrap_err().to_string();
        assert!(e.contains("field 3"), "{e}");
        assert!(DiskStat::parse("1 2 3", "f").unwrap_err().to_string().contains("at least 11"));
    }

    #[test]
    fn finds_a_device_or_says_none() {
        // Whatever this machine has: the root directory either maps to a readable stat file or
        // to "no block device"; both are valid answers, a panic or an error is not.
        let d = dir_device(Path::new("/")).unwrap();
        assert!(!d.filesystem.is_empty());
        if let Some(dev) = d.device {
            dev.read().unwrap();
        }
        assert!(dir_device(Path::new("/proc")).unwrap().device.is_none(), "procfs has no block device");
    }
}
