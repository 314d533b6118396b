//! Safety checks before flashlab writes to a raw block device, which destroys its data:
//! refused unless the user said `destroy_data` (`--destroy-data`), and refused while the
//! device or any of its partitions is mounted, used as swap, or held by another block device
//! (device-mapper, md). Mounts are read from /proc/self/mountinfo (by device number, and by
//! source path for filesystems such as btrfs that report an anonymous device number);
//! partitions and holders from /sys/class/block/<dev>/ (both through flashlab-sysfacts). The device is then opened with
//! O_EXCL, which the kernel refuses (EBUSY) while anything has it claimed.

use crate::RealError;
use flashlab_sysfacts::blockdev::{holders_of, kernel_name, partitions_of};
use std::fs::File;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// A block device that passed the checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockDevice {
    /// The device node, e.g. `/dev/sdb`.
    pub path: PathBuf,
    /// Kernel name (`sda`, `mmcblk0p9`, `nvme0n1`).
    pub name: String,
    /// The device's major number.
    pub major: u32,
    /// The device's minor number.
    pub minor: u32,
    /// Names of its partitions.
    pub partitions: Vec<String>,
}

/// Check that `path` is a block device flashlab may overwrite; see the module docs.
pub fn check_block_device(path: &Path, destroy_data: bool) -> Result<BlockDevice, RealError> {
    let md = std::fs::metadata(path).map_err(|e| RealError::io(format!("{}", path.display()), e))?;
    if !md.file_type().is_block_device() {
        return Err(RealError::BadJob(format!("{}: not a block device", path.display())));
    }
    if !destroy_data {
        return Err(RealError::Refused(format!(
            "{}: is a raw block device; running on it overwrites and destroys its data. Pass --destroy-data if that is what you want",
            path.display()
        )));
    }
    let rdev = md.rdev();
    let (major, minor) = (libc::major(rdev), libc::minor(rdev));
    let name = kernel_name(major, minor)
        .unwrap_or_else(|| path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
    let parts = partitions_of(&name);
    let mut devs: Vec<(String, u32, u32)> = vec![(name.clone(), major, minor)];
    devs.extend(parts.iter().cloned());

    let mounts = flashlab_sysfacts::mounts::read_self()?.entries;
    for (dname, a, b) in &devs {
        let dev_path = format!("/dev/{dname}");
        let canon = |s: &str| std::fs::canonicalize(s).unwrap_or_else(|_| PathBuf::from(s));
        let dev_canon = canon(&dev_path);
        let hit = mounts
            .iter()
            .find(|m| m.majmin == Some((*a, *b)) || (m.source.starts_with('/') && canon(&m.source) == dev_canon));
        if let Some(m) = hit {
            let what = if dname == &name { "it".to_string() } else { format!("its partition {dname}") };
            return Err(RealError::Refused(format!(
                "{}: refused: {what} is mounted on {} ({}); unmount it first",
                path.display(),
                m.mount_point,
                m.fs_type
            )));
        }
    }
    if let Ok(swaps) = std::fs::read_to_string("/proc/swaps") {
        for l in swaps.lines().skip(1) {
            let src = l.split_whitespace().next().unwrap_or("");
            for (dname, _, _) in &devs {
                if src == format!("/dev/{dname}") {
                    return Err(RealError::Refused(format!(
                        "{}: refused: /dev/{dname} is in use as swap; swapoff it first",
                        path.display()
                    )));
                }
            }
        }
    }
    for (dname, _, _) in &devs {
        let h = holders_of(dname);
        if !h.is_empty() {
            return Err(RealError::Refused(format!(
                "{}: refused: /dev/{dname} is held by {} (device-mapper, md or similar)",
                path.display(),
                h.join(", ")
            )));
        }
    }
    Ok(BlockDevice {
        path: path.to_path_buf(),
        name,
        major,
        minor,
        partitions: parts.into_iter().map(|p| p.0).collect(),
    })
}

/// [`check_block_device`], then open it read-write and exclusively (O_EXCL; O_DIRECT when
/// `direct`); returns the file and the device's size in bytes.
pub fn open_block_device(path: &Path, destroy_data: bool, direct: bool) -> Result<(File, BlockDevice, u64), RealError> {
    let dev = check_block_device(path, destroy_data)?;
    let mut o = std::fs::OpenOptions::new();
    o.read(true).write(true);
    o.custom_flags(libc::O_EXCL | if direct { libc::O_DIRECT } else { 0 });
    let f = o.open(path).map_err(|e| match e.raw_os_error() {
        Some(libc::EBUSY) => {
            RealError::Refused(format!("{}: refused: the device is in use (EBUSY on exclusive open)", path.display()))
        }
        _ => RealError::io(format!("{}: open", path.display()), e),
    })?;
    use std::io::Seek;
    let size =
        (&f).seek(std::io::SeekFrom::End(0)).map_err(|e| RealError::io(format!("{}: size", path.display()), e))?;
    Ok((f, dev, size))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_file_is_not_a_block_device() {
        let p = std::env::temp_dir().join(format!("flashlab-bd-{}", std::process::id()));
        std::fs::write(&p, b"x").unwrap();
        let e = check_block_device(&p, true).unwrap_err().to_string();
        std::fs::remove_file(&p).unwrap();
        assert!(e.contains("not a block device"), "{e}");
    }
}
