//! Recognising flashlab serve mounts from outside the server: a serve FUSE mount's source is
//! `flashlab-sim:PROFILE` in /proc/self/mountinfo, and a loop device attached to it has the
//! mount's `device` file as its backing file. Serve's own teardown uses this, and so do
//! `flashlab sqlite` and `flashlab breakdown` to find the simulator behind a loop device, and
//! `flashlab age` the simulated device under a directory (to time its tests on the device's
//! clock as well).

use crate::loopdev;
use flashlab_sysfacts::mounts::MountEntry;
use std::path::{Path, PathBuf};

/// What a serve mount's source starts with (the profile name follows).
pub const SOURCE_PREFIX: &str = "flashlab-sim:";

/// A flashlab serve mount.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServeMount {
    /// The mount point (`DIR`).
    pub dir: PathBuf,
    /// The simulated profile's name.
    pub profile: String,
}

impl ServeMount {
    /// The mount's source as mountinfo shows it (`flashlab-sim:PROFILE`).
    pub fn source(&self) -> String {
        format!("{SOURCE_PREFIX}{}", self.profile)
    }
    /// The simulated device file (`DIR/device`).
    pub fn device(&self) -> PathBuf {
        self.dir.join("device")
    }
    /// The live statistics (`DIR/stats.json`).
    pub fn stats(&self) -> PathBuf {
        self.dir.join("stats.json")
    }
    /// The device's clock and counters now, from a fresh `stats.json` (serve regenerates it
    /// at every open): `busy_ns`, `gc.units_copied` and `host_trim_bytes`.
    pub fn sample(&self) -> Result<flashlab_lab::fourcorner::DeviceSample, String> {
        let path = self.stats();
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let num = |p: &str| {
            v.pointer(p).and_then(serde_json::Value::as_u64).ok_or_else(|| format!("{}: no {p}", path.display()))
        };
        Ok(flashlab_lab::fourcorner::DeviceSample {
            busy_ns: num("/busy_ns")?,
            gc_units_copied: num("/gc/units_copied")?,
            trim_bytes: num("/host_trim_bytes")?,
        })
    }
}

/// The serve mount under the filesystem that holds `dir`: that filesystem's block device is a
/// loop device over a serve mount's `device` file.
pub fn under_dir(dir: &Path) -> Option<ServeMount> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(dir).ok()?.dev();
    let blk = flashlab_sysfacts::blockdev::by_devnum(libc::major(dev), libc::minor(dev)).ok()?;
    behind_loop(blk.disk_name())
}

/// The serve mount at `dir` among `mounts`: the last mount there (the one that is visible),
/// if it is a serve mount.
pub fn serve_mount_at(mounts: &[MountEntry], dir: &Path) -> Option<ServeMount> {
    let m = mounts.iter().rev().find(|m| Path::new(&m.mount_point) == dir)?;
    let profile = m.source.strip_prefix(SOURCE_PREFIX)?;
    Some(ServeMount { dir: dir.to_path_buf(), profile: profile.to_string() })
}

/// The serve mount at `dir` now, if there is one.
pub fn mounted_at(dir: &Path) -> Option<ServeMount> {
    serve_mount_at(&flashlab_sysfacts::mounts::read_self().ok()?.entries, dir)
}

/// The serve mount behind loop device `dev` (`loop3` or `/dev/loop3`): the loop device's
/// backing file is the `device` file of a serve mount.
pub fn behind_loop(dev: &str) -> Option<ServeMount> {
    let backing = loopdev::backing_file(dev)?;
    if backing.file_name()? != "device" {
        return None;
    }
    mounted_at(backing.parent()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flashlab_sysfacts::mounts::parse_mountinfo;

    #[test]
    fn finds_serve_mounts_in_mountinfo() {
        let mi = parse_mountinfo(
            "36 35 98:0 / /mnt1 rw,noatime master:1 - ext3 /dev/root rw\n\
             40 22 0:45 / /tmp/my\\040dir rw - fuse.flashlab flashlab-sim:emmc-16g rw,user_id=0\n\
             41 22 0:46 / /tmp/c rw - fuse.other other rw\n",
        )
        .entries;
        let m = serve_mount_at(&mi, Path::new("/tmp/my dir")).unwrap();
        assert_eq!(m.profile, "emmc-16g");
        assert_eq!(m.source(), "flashlab-sim:emmc-16g");
        assert_eq!(m.stats(), Path::new("/tmp/my dir/stats.json"));
        assert_eq!(serve_mount_at(&mi, Path::new("/mnt1")), None, "not a serve mount");
        assert_eq!(serve_mount_at(&mi, Path::new("/tmp/c")), None, "another FUSE filesystem");
        assert_eq!(serve_mount_at(&mi, Path::new("/tmp")), None, "not a mount point");
    }

    #[test]
    fn the_visible_mount_counts() {
        let mi = parse_mountinfo(
            "40 22 0:45 / /m rw - fuse.flashlab flashlab-sim:toy rw\n\
             41 40 8:1 / /m rw - ext4 /dev/sda1 rw\n",
        )
        .entries;
        assert_eq!(serve_mount_at(&mi, Path::new("/m")), None, "an ext4 mounted over it hides the serve mount");
    }

    #[test]
    fn other_devices_are_not_behind_a_serve_mount() {
        assert_eq!(behind_loop("vda"), None);
        assert_eq!(behind_loop("loop-not-a-device"), None);
    }
}
