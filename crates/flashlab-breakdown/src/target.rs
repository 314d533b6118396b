//! What a traced breakdown runs on, and where its bytes are on the device: a block device
//! (`--destroy-data`, through flashlab-real's safety checks) or a file flashlab creates in a
//! directory, written once and mapped with FIEMAP. Either way the target knows the whole
//! disk's dev_t (block events of a partition are reported on the disk, at disk sectors) and
//! maps a byte range of the target to disk sector ranges.

use crate::events::kernel_dev;
use crate::BreakdownError;
use flashlab_real::blockdev::open_block_device;
use flashlab_real::cleanup::Cleanup;
use flashlab_real::runner::open_file;
use std::fs::File;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// The disk whose events are traced.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Disk {
    /// Kernel name of the disk (`loop0`, `vda`).
    pub name: String,
    /// The disk's major number.
    pub major: u32,
    /// The disk's minor number.
    pub minor: u32,
    /// The target's device if it is a partition (its name), else `None`.
    pub partition: Option<String>,
}

impl Disk {
    /// dev_t as trace events print it.
    pub fn kernel_dev(&self) -> u32 {
        kernel_dev(self.major, self.minor)
    }
}

/// A run of the target: `len` bytes at target offset `off` are at disk byte `disk_off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extent {
    /// Target offset, bytes.
    pub off: u64,
    /// Disk offset, bytes.
    pub disk_off: u64,
    /// Length, bytes.
    pub len: u64,
}

/// An open target.
#[derive(Debug)]
pub struct RealTarget {
    /// The block device or the file flashlab created.
    pub path: PathBuf,
    /// Open read-write with O_DIRECT.
    pub file: File,
    /// Bytes the jobs use, from offset 0.
    pub span: u64,
    /// The disk whose events are traced.
    pub disk: Disk,
    /// Sorted, covering [0, span).
    pub extents: Vec<Extent>,
    /// The file flashlab created (removed on drop), if any.
    created: Option<PathBuf>,
}

impl RealTarget {
    /// Disk sector ranges (start, count) of target bytes [off, off + len).
    pub fn sectors(&self, off: u64, len: u64) -> Vec<(u64, u64)> {
        let end = off + len;
        let i = self.extents.partition_point(|e| e.off + e.len <= off);
        let mut out = Vec::with_capacity(1);
        let mut pos = off;
        for e in &self.extents[i..] {
            if pos >= end {
                break;
            }
            let take = (e.off + e.len).min(end) - pos;
            let s = (e.disk_off + (pos - e.off)) / 512;
            match out.last_mut() {
                Some((ls, ln)) if *ls + *ln == s => *ln += take / 512,
                _ => out.push((s, take / 512)),
            }
            pos += take;
        }
        out
    }

    /// What to call the target in reports.
    pub fn describe(&self) -> String {
        let part = self.disk.partition.as_ref().map(|p| format!(", partition {p}")).unwrap_or_default();
        let what = if self.created.is_some() { "file on" } else { "block device" };
        format!(
            "{} ({what} {} {}:{}{part}, {} MiB used)",
            self.path.display(),
            self.disk.name,
            self.disk.major,
            self.disk.minor,
            self.span >> 20
        )
    }
}

impl Drop for RealTarget {
    fn drop(&mut self) {
        if let Some(p) = self.created.take() {
            if let Err(e) = Cleanup::global().remove(&p) {
                eprintln!("flashlab: could not remove {}: {e}", p.display());
            }
        }
    }
}

/// The disk holding device `major:minor` and the device's first sector on it.
pub fn disk_of(major: u32, minor: u32) -> Result<(Disk, u64), BreakdownError> {
    let dev = flashlab_sysfacts::blockdev::by_devnum(major, minor).map_err(|e| match e {
        flashlab_sysfacts::SysError::Io { path, source } => BreakdownError::Bad(format!(
            "{}: {source}: device {major}:{minor} is not a block device the kernel lists (a filesystem without one, such as tmpfs, overlay or btrfs, cannot be traced)",
            path.display()
        )),
        other => BreakdownError::Bad(other.to_string()),
    })?;
    Ok(match dev.partition_of {
        None => (Disk { name: dev.name, major, minor, partition: None }, 0),
        Some(p) => (Disk { name: p.disk, major: p.major, minor: p.minor, partition: Some(dev.name) }, p.start),
    })
}

/// Open a block device (needs `destroy_data`; the safety checks of flashlab-real apply) and
/// use its first `span` bytes (all of it if smaller).
pub fn open_block(path: &Path, destroy_data: bool, span: u64) -> Result<RealTarget, BreakdownError> {
    let (file, _bd, size) = open_block_device(path, destroy_data, true)?;
    let md = std::fs::metadata(path).map_err(|e| BreakdownError::Bad(format!("{}: {e}", path.display())))?;
    let (disk, start) = disk_of(libc::major(md.rdev()), libc::minor(md.rdev()))?;
    let span = span.min(size) / 4096 * 4096;
    if span == 0 {
        return Err(BreakdownError::Bad(format!("{}: device too small ({size} bytes)", path.display())));
    }
    Ok(RealTarget {
        path: path.to_path_buf(),
        file,
        span,
        disk,
        extents: vec![Extent { off: 0, disk_off: start, len: span }],
        created: None,
    })
}

/// Create a file of `span` bytes in directory `dir`, write it once (so reads reach the device
/// and writes overwrite allocated blocks), flush it, drop it from the page cache, and map its
/// extents with FIEMAP. The file is removed on drop, on error and on SIGINT/SIGTERM.
pub fn create_file(dir: &Path, span: u64) -> Result<RealTarget, BreakdownError> {
    let span = span / 4096 * 4096;
    if span == 0 {
        return Err(BreakdownError::Bad("--size: must be at least 4 KiB".into()));
    }
    // The directory's filesystem must sit on a block device the kernel lists.
    let dmd = std::fs::metadata(dir).map_err(|e| BreakdownError::Bad(format!("{}: {e}", dir.display())))?;
    disk_of(libc::major(dmd.dev()), libc::minor(dmd.dev()))?;
    let path = dir.join(format!("flashlab-breakdown-{}.dat", std::process::id()));
    Cleanup::global().register(&path);
    let mut t = RealTarget {
        path: path.clone(),
        file: open_file(&path, false, true)?,
        span,
        disk: Disk { name: String::new(), major: 0, minor: 0, partition: None },
        extents: Vec::new(),
        created: Some(path.clone()),
    };
    let chunk: Vec<u8> = (0..1u32 << 20).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let mut left = span;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        t.file.write_all(&chunk[..n]).map_err(|e| BreakdownError::Bad(format!("{}: write: {e}", path.display())))?;
        left -= n as u64;
    }
    t.file.sync_all().map_err(|e| BreakdownError::Bad(format!("{}: fsync: {e}", path.display())))?;
    // SAFETY: plain advice on an open fd.
    unsafe { libc::posix_fadvise(t.file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    let md = t.file.metadata().map_err(|e| BreakdownError::Bad(format!("{}: stat: {e}", path.display())))?;
    let (disk, start) = disk_of(libc::major(md.dev()), libc::minor(md.dev()))?;
    t.disk = disk;
    t.extents = fiemap(&t.file, &path, span)?
        .into_iter()
        .map(|e| Extent { off: e.off, disk_off: e.disk_off + start, len: e.len })
        .collect();
    let covered: u64 = t.extents.iter().map(|e| e.len).sum();
    if covered < span {
        return Err(BreakdownError::Bad(format!(
            "{}: FIEMAP maps {covered} of {span} bytes; cannot place its I/O on the disk",
            path.display()
        )));
    }
    t.file = open_file(&path, true, false)?;
    Ok(t)
}

/// The file's extents over [0, span) (target offset → byte on the filesystem's device).
fn fiemap(file: &File, path: &Path, span: u64) -> Result<Vec<Extent>, BreakdownError> {
    use flashlab_sysfacts::fiemap::{extents, FIEMAP_EXTENT_NOT_PLAIN};
    let raw = extents(file, 0, span).map_err(|e| {
        BreakdownError::Bad(format!("{}: FIEMAP (mapping the file to disk sectors): {e}", path.display()))
    })?;
    let mut out: Vec<Extent> = Vec::new();
    // The end of the previous extent: an extent that overlaps it is clipped.
    let mut start = 0u64;
    for e in raw {
        if e.flags & FIEMAP_EXTENT_NOT_PLAIN != 0 {
            return Err(BreakdownError::Bad(format!(
                "{}: extent at file offset {} has flags {:#x} (not a plain on-disk extent); cannot trace it by sector",
                path.display(),
                e.logical,
                e.flags
            )));
        }
        let off = e.logical.max(start);
        let skip = off - e.logical;
        let len = e.length.saturating_sub(skip).min(span.saturating_sub(off));
        if len > 0 {
            out.push(Extent { off, disk_off: e.physical + skip, len });
        }
        start = e.logical + e.length;
    }
    out.sort_by_key(|e| e.off);
    Ok(out)
}

/// Whether `path` is a block device (else it must be a directory).
pub fn is_block_device(path: &Path) -> Result<bool, BreakdownError> {
    let md = std::fs::metadata(path).map_err(|e| BreakdownError::Bad(format!("target '{}': {e}", path.display())))?;
    if md.file_type().is_block_device() {
        Ok(true)
    } else if md.is_dir() {
        Ok(false)
    } else {
        Err(BreakdownError::Bad(format!(
            "target '{}': not a block device nor a directory (flashlab creates its file in a directory; for a model write sim:PROFILE)",
            path.display()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(extents: Vec<Extent>) -> RealTarget {
        RealTarget {
            path: PathBuf::from("/dev/null"),
            file: File::open("/dev/null").unwrap(),
            span: extents.iter().map(|e| e.len).sum(),
            disk: Disk { name: "x".into(), major: 7, minor: 0, partition: None },
            extents,
            created: None,
        }
    }

    #[test]
    fn sectors_follow_extents() {
        let t = target(vec![
            Extent { off: 0, disk_off: 1 << 20, len: 8192 },
            Extent { off: 8192, disk_off: 1 << 30, len: 8192 },
        ]);
        assert_eq!(t.sectors(0, 4096), vec![((1 << 20) / 512, 8)]);
        assert_eq!(t.sectors(4096, 8192), vec![((1 << 20) / 512 + 8, 8), ((1 << 30) / 512, 8)]);
        assert_eq!(t.sectors(12288, 4096), vec![((1 << 30) / 512 + 8, 8)]);
    }

    #[test]
    fn adjacent_extents_merge() {
        let t =
            target(vec![Extent { off: 0, disk_off: 0, len: 4096 }, Extent { off: 4096, disk_off: 4096, len: 4096 }]);
        assert_eq!(t.sectors(0, 8192), vec![(0, 16)]);
    }

    #[test]
    fn regular_file_is_refused() {
        let p = std::env::temp_dir().join(format!("flashlab-bd-reg-{}", std::process::id()));
        std::fs::write(&p, b"x").unwrap();
        let e = is_block_device(&p).unwrap_err().to_string();
        std::fs::remove_file(&p).unwrap();
        assert!(e.contains("not a block device nor a directory"), "{e}");
    }
}
