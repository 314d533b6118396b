//! An image file attached to a loop device and mounted, for either filesystem: the loop
//! device's dev_t (as trace events carry it) and its largest request, and on drop everything
//! undone (unmount, detach, remove the image and the mount point), also when a run fails
//! half-way.

use crate::error::Error;
use crate::image::run_tool;
use std::path::{Path, PathBuf};
use std::process::Command;

/// An image file, its loop device and mount point.
#[derive(Debug)]
pub struct Mounted {
    pub path: PathBuf,
    pub mnt: PathBuf,
    /// `/dev/loopN`.
    pub dev: Option<PathBuf>,
    /// The kernel's dev_t of the loop device, as trace events carry it.
    pub kernel_dev: u32,
    /// The loop queue's largest request (bytes): the block layer splits bigger ones.
    pub max_request: u64,
    mounted: bool,
}

impl Mounted {
    /// A new image file's name in `dir`, unique to this process.
    pub fn image_path(dir: &Path) -> PathBuf {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        dir.join(format!("flashlab-validate-{}-{n}.img", std::process::id()))
    }

    /// The image at `path` (made by the caller), not attached yet; its mount point beside it.
    pub fn new(path: PathBuf) -> Mounted {
        let mnt = path.with_extension("mnt");
        Mounted { path, mnt, dev: None, kernel_dev: 0, max_request: 512 << 10, mounted: false }
    }

    /// Attach the image to a free loop device and mount it as `fstype` with `options`.
    pub fn attach_and_mount(&mut self, fstype: &str, options: &str) -> Result<(), Error> {
        let p = self.path.to_string_lossy().to_string();
        let dev = run_tool("losetup", &["-f", "--show", &p], "util-linux").map_err(|e| match e {
            Error::Tool { msg, .. } => Error::Missing { capability: "loop", msg: format!("losetup: {msg}") },
            e => e,
        })?;
        let dev = PathBuf::from(dev.trim());
        self.dev = Some(dev.clone());
        self.kernel_dev = kernel_dev_of(&dev)?;
        let name = dev.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        if let Ok(kb) = std::fs::read_to_string(format!("/sys/block/{name}/queue/max_sectors_kb")) {
            if let Ok(kb) = kb.trim().parse::<u64>() {
                self.max_request = kb.max(4) << 10;
            }
        }
        std::fs::create_dir_all(&self.mnt).map_err(Error::io(&self.mnt))?;
        run_tool(
            "mount",
            &["-t", fstype, "-o", options, &dev.to_string_lossy(), &self.mnt.to_string_lossy()],
            "util-linux",
        )?;
        self.mounted = true;
        Ok(())
    }

    /// Unmount (everything reaches the image), keeping the loop device and the file.
    pub fn unmount(&mut self) -> Result<(), Error> {
        if self.mounted {
            run_tool("umount", &[&self.mnt.to_string_lossy()], "util-linux")?;
            self.mounted = false;
        }
        Ok(())
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        if self.mounted {
            let _ = Command::new("umount").arg(&self.mnt).status();
        }
        if let Some(d) = &self.dev {
            let _ = Command::new("losetup").arg("-d").arg(d).status();
        }
        let _ = std::fs::remove_dir(&self.mnt);
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The trace events' dev_t of a block device node.
fn kernel_dev_of(dev: &Path) -> Result<u32, Error> {
    use std::os::unix::fs::MetadataExt;
    let rdev = std::fs::metadata(dev).map_err(Error::io(dev))?.rdev();
    let (major, minor) = (libc::major(rdev), libc::minor(rdev));
    Ok(flashlab_breakdown::events::kernel_dev(major, minor))
}
