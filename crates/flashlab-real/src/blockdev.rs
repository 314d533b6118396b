//! Safety checks before flashlab writes to a raw block device, which destroys its data:
//! refused unless the user said `destroy_data` (`--destroy-data`), and refused while the
//! device or any of its partitions is mounted, used as swap, or held by another block device
//! (device-mapper, md). Mounts are read from /proc/self/mountinfo (by device number, and by
//! source path for filesystems such as btrfs that report an anonymous device number);
//! partitions and holders from /sys/class/block/<dev>/. The device is then opened with
//! O_EXCL, which the kernel refuses (EBUSY) while anything has it claimed.

use crate::RealError;
use std::fs::File;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// A block device that passed the checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockDevice {
    pub path: PathBuf,
    /// Kernel name (`sda`, `mmcblk0p9`, `nvme0n1`).
    pub name: String,
    pub major: u32,
    pub minor: u32,
    /// Names of its partitions.
    pub partitions: Vec<String>,
}

/// One line of /proc/self/mountinfo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    pub major: u32,
    pub minor: u32,
    pub mount_point: String,
    pub fstype: String,
    pub source: String,
}

/// Parse /proc/self/mountinfo text (`ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] -
/// FSTYPE SOURCE SUPEROPTS`); malformed lines are skipped.
pub fn parse_mountinfo(text: &str) -> Vec<Mount> {
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            let (maj, min) = f.get(2)?.split_once(':')?;
            let dash = f.iter().position(|x| *x == "-")?;
            Some(Mount {
                major: maj.parse().ok()?,
                minor: min.parse().ok()?,
                mount_point: unescape(f.get(4)?),
                fstype: f.get(dash + 1)?.to_string(),
                source: unescape(f.get(dash + 2)?),
            })
        })
        .collect()
}

/// mountinfo's octal escapes (`\040` for a space).
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c)) {
            out.push((b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0'));
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn read_dev_numbers(sys_dev_file: &Path) -> Option<(u32, u32)> {
    let s = std::fs::read_to_string(sys_dev_file).ok()?;
    let (a, b) = s.trim().split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// The kernel name of device `major:minor` (from /sys/dev/block).
fn kernel_name(major: u32, minor: u32) -> Option<String> {
    let link = std::fs::read_link(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    Some(link.file_name()?.to_string_lossy().into_owned())
}

/// Partitions of block device `name`: (name, major, minor).
fn partitions_of(name: &str) -> Vec<(String, u32, u32)> {
    let dir = Path::new("/sys/class/block").join(name);
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(&dir) {
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

fn holders_of(name: &str) -> Vec<String> {
    std::fs::read_dir(Path::new("/sys/class/block").join(name).join("holders"))
        .map(|rd| rd.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default()
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

    let mountinfo =
        std::fs::read_to_string("/proc/self/mountinfo").map_err(|e| RealError::io("/proc/self/mountinfo", e))?;
    let mounts = parse_mountinfo(&mountinfo);
    for (dname, a, b) in &devs {
        let dev_path = format!("/dev/{dname}");
        let canon = |s: &str| std::fs::canonicalize(s).unwrap_or_else(|_| PathBuf::from(s));
        let dev_canon = canon(&dev_path);
        let hit = mounts
            .iter()
            .find(|m| (m.major == *a && m.minor == *b) || (m.source.starts_with('/') && canon(&m.source) == dev_canon));
        if let Some(m) = hit {
            let what = if dname == &name { "it".to_string() } else { format!("its partition {dname}") };
            return Err(RealError::Refused(format!(
                "{}: refused: {what} is mounted on {} ({}); unmount it first",
                path.display(),
                m.mount_point,
                m.fstype
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
    fn parses_mountinfo() {
        let t = "22 27 0:21 / /proc rw,relatime - proc proc rw\n\
                 27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard\n\
                 30 27 8:17 / /mnt/my\\040disk rw - vfat /dev/sdb1 rw\n\
                 garbage\n";
        let m = parse_mountinfo(t);
        assert_eq!(m.len(), 3);
        assert_eq!((m[1].major, m[1].minor, m[1].fstype.as_str(), m[1].source.as_str()), (254, 0, "ext4", "/dev/vda"));
        assert_eq!(m[2].mount_point, "/mnt/my disk");
    }

    #[test]
    fn regular_file_is_not_a_block_device() {
        let p = std::env::temp_dir().join(format!("flashlab-bd-{}", std::process::id()));
        std::fs::write(&p, b"x").unwrap();
        let e = check_block_device(&p, true).unwrap_err().to_string();
        std::fs::remove_file(&p).unwrap();
        assert!(e.contains("not a block device"), "{e}");
    }
}
