//! The loop block device over the served file: attach with direct I/O and 4 KiB sectors,
//! detach, and find what still holds it (mounts, device-mapper holders, exclusive openers).

use crate::error::LoopError;
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `losetup --direct-io=on --sector-size 4096 --find --show FILE`; returns `/dev/loopN`.
///
/// Direct I/O lets the loop driver keep many requests in flight and keeps the page cache out;
/// 4 KiB sectors keep sub-page requests out (the device's mapping unit is 4 KiB).
pub fn attach(file: &Path) -> Result<String, LoopError> {
    let out = Command::new("losetup")
        .args(["--direct-io=on", "--sector-size", "4096", "--find", "--show"])
        .arg(file)
        .output()
        .map_err(|source| LoopError::NotRun {
            command: "losetup".into(),
            source,
            hint: " (is util-linux installed?)",
        })?;
    if !out.status.success() {
        return Err(LoopError::Failed {
            command: format!("losetup --direct-io=on --sector-size 4096 --find --show {}", file.display()),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    let dev = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !dev.starts_with("/dev/loop") {
        return Err(LoopError::NotLoop(dev));
    }
    Ok(dev)
}

/// `losetup -d DEV`.
pub fn detach(dev: &str) -> Result<(), LoopError> {
    let command = || format!("losetup -d {dev}");
    let out = Command::new("losetup").args(["-d", dev]).output().map_err(|source| LoopError::NotRun {
        command: command(),
        source,
        hint: "",
    })?;
    if !out.status.success() {
        return Err(LoopError::Failed {
            command: command(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(())
}

fn sys_dir(dev: &str) -> PathBuf {
    let name = dev.rsplit('/').next().unwrap_or(dev);
    Path::new("/sys/block").join(name)
}

/// The file a loop device is bound to, if it is bound.
pub fn backing_file(dev: &str) -> Option<PathBuf> {
    let s = std::fs::read_to_string(sys_dir(dev).join("loop/backing_file")).ok()?;
    Some(PathBuf::from(s.trim_end_matches('\n')))
}

/// Loop devices bound to `file`.
pub fn devices_backed_by(file: &Path) -> Vec<String> {
    let Ok(rd) = std::fs::read_dir("/sys/block") else { return Vec::new() };
    let mut v: Vec<String> = rd
        .filter_map(|e| e.ok())
        .map(|e| format!("/dev/{}", e.file_name().to_string_lossy()))
        .filter(|d| d.starts_with("/dev/loop") && backing_file(d).as_deref() == Some(file))
        .collect();
    v.sort();
    v
}

/// What keeps `dev` busy, in words; empty when nothing does.
pub fn holders(dev: &str) -> Vec<String> {
    let mut why = Vec::new();
    let (major, minor) = match std::fs::read_to_string(sys_dir(dev).join("dev")) {
        Ok(s) => {
            let mut it = s.trim().split(':').map(|x| x.parse::<u32>().unwrap_or(u32::MAX));
            (it.next().unwrap_or(u32::MAX), it.next().unwrap_or(u32::MAX))
        }
        Err(_) => (u32::MAX, u32::MAX),
    };
    if let Ok(mounts) = flashlab_sysfacts::mounts::read_self() {
        for m in mounts.by_majmin(major, minor) {
            why.push(format!("mounted at {}", m.mount_point));
        }
    }
    if let Ok(rd) = std::fs::read_dir(sys_dir(dev).join("holders")) {
        for e in rd.filter_map(|e| e.ok()) {
            why.push(format!("held by /dev/{}", e.file_name().to_string_lossy()));
        }
    }
    if why.is_empty() {
        // Someone else may hold it open exclusively (a mount in another namespace, mkfs, ...).
        if let Ok(c) = CString::new(dev) {
            // SAFETY: open/close on a path we own the string of.
            let fd = unsafe { libc::open(c.as_ptr(), libc::O_RDONLY | libc::O_EXCL | libc::O_CLOEXEC) };
            if fd >= 0 {
                unsafe { libc::close(fd) };
            } else if std::io::Error::last_os_error().raw_os_error() == Some(libc::EBUSY) {
                why.push("open exclusively by another process".to_string());
            }
        }
    }
    why
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_such_loop_device_has_no_backing_file() {
        assert_eq!(backing_file("/dev/loop-does-not-exist"), None);
    }
}
