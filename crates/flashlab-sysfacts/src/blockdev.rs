//! Block devices as sysfs lists them: the kernel name of a device number, its partitions and
//! holders, and whether a device is a partition of a disk (and where on the disk it starts).
//! `/sys/dev/block/MAJ:MIN` links to the device's directory; a partition's directory sits
//! inside its disk's and has a `partition` file.

use crate::SysError;
use std::path::{Path, PathBuf};

/// The sysfs directory of block devices by kernel name.
const CLASS_BLOCK: &str = "/sys/class/block";

/// A block device found by its device number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockDev {
    /// Kernel name (`sda`, `mmcblk0p9`, `nvme0n1`, `loop3`).
    pub name: String,
    /// Major device number.
    pub major: u32,
    /// Minor device number.
    pub minor: u32,
    /// Its directory under /sys/devices.
    pub sys_dir: PathBuf,
    /// The disk it is a partition of, or `None` for a whole disk.
    pub partition_of: Option<PartitionOf>,
}

/// The disk a partition belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionOf {
    /// The disk's kernel name.
    pub disk: String,
    /// The disk's major device number.
    pub major: u32,
    /// The disk's minor device number.
    pub minor: u32,
    /// Where the partition starts on the disk, bytes.
    pub start: u64,
}

impl BlockDev {
    /// The kernel name of the whole disk: the device's own, or its disk's for a partition.
    pub fn disk_name(&self) -> &str {
        self.partition_of.as_ref().map_or(&self.name, |p| &p.disk)
    }
}

/// `MAJ:MIN` as sysfs `dev` files hold it.
pub fn parse_dev_numbers(s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.trim().split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// The device numbers in a sysfs `dev` file.
fn read_dev_numbers(dev_file: &Path) -> Option<(u32, u32)> {
    parse_dev_numbers(&std::fs::read_to_string(dev_file).ok()?)
}

/// The block device `major:minor`; an error when the kernel lists no block device by that number
/// (tmpfs, overlay, btrfs subvolumes and FUSE have anonymous device numbers).
pub fn by_devnum(major: u32, minor: u32) -> Result<BlockDev, SysError> {
    let link = PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
    let sys_dir = std::fs::canonicalize(&link).map_err(|e| SysError::io(&link, e))?;
    let name = file_name(&sys_dir);
    let partition_of = if sys_dir.join("partition").exists() {
        let start_file = sys_dir.join("start");
        let sectors: u64 = std::fs::read_to_string(&start_file)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .ok_or_else(|| SysError::Unreadable { path: start_file, what: "no partition start".into() })?;
        let parent = sys_dir
            .parent()
            .ok_or_else(|| SysError::Unreadable { path: sys_dir.clone(), what: "no parent disk".into() })?;
        let (a, b) = read_dev_numbers(&parent.join("dev"))
            .ok_or_else(|| SysError::Unreadable { path: parent.join("dev"), what: "unreadable".into() })?;
        Some(PartitionOf { disk: file_name(parent), major: a, minor: b, start: sectors * 512 })
    } else {
        None
    };
    Ok(BlockDev { name, major, minor, sys_dir, partition_of })
}

fn file_name(p: &Path) -> String {
    p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The kernel name of device `major:minor`, if the kernel lists it.
pub fn kernel_name(major: u32, minor: u32) -> Option<String> {
    let link = std::fs::read_link(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    Some(link.file_name()?.to_string_lossy().into_owned())
}

/// The partitions of disk `name`: (name, major, minor), sorted.
pub fn partitions_of(name: &str) -> Vec<(String, u32, u32)> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(Path::new(CLASS_BLOCK).join(name)) {
        for e in rd.flatten() {
            let p = e.path();
            if p.join("partition").exists() {
                if let Some((a, b)) = read_dev_numbers(&p.join("dev")) {
                    out.push((e.file_name().to_string_lossy().into_owned(), a, b));
                }
            }
        }
    }
    out.sort();
    out
}

/// The block devices stacked on `name` (device-mapper, md): the names in its `holders/`.
pub fn holders_of(name: &str) -> Vec<String> {
    std::fs::read_dir(Path::new(CLASS_BLOCK).join(name).join("holders"))
        .map(|rd| rd.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default()
}

/// A sysfs attribute of block device `name`, trimmed (`attribute("sda", "queue/write_cache")`);
/// `None` when the kernel does not have it.
pub fn attribute(name: &str, rel: &str) -> Option<String> {
    std::fs::read_to_string(Path::new(CLASS_BLOCK).join(name).join(rel)).ok().map(|s| s.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_numbers() {
        assert_eq!(parse_dev_numbers("179:2\n"), Some((179, 2)));
        assert_eq!(parse_dev_numbers("179"), None);
    }

    #[test]
    fn the_root_filesystem_device_agrees_with_sysfs() {
        use std::os::unix::fs::MetadataExt;
        let dev = std::fs::metadata("/").unwrap().dev();
        let (major, minor) = (libc::major(dev), libc::minor(dev));
        match by_devnum(major, minor) {
            Ok(b) => {
                assert_eq!((b.major, b.minor), (major, minor));
                assert_eq!(kernel_name(major, minor).as_deref(), Some(b.name.as_str()));
                let dev_file = b.sys_dir.join("dev");
                assert_eq!(read_dev_numbers(&dev_file), Some((major, minor)));
            }
            // An overlay or btrfs root has an anonymous device number, which sysfs does not list.
            Err(e) => assert!(kernel_name(major, minor).is_none(), "{e}"),
        }
    }
}
