//! The kernel's side of an ext4 validation: an image file on tmpfs, made with `mkfs.ext4`, read
//! back with `dumpe2fs` and `debugfs` (its layout and journal), then attached and mounted
//! ([`Mounted`], which undoes it all on drop).

use crate::error::Error;
use crate::mounted::Mounted;
use crate::options::Options;
use flashlab_simfs::ext4_layout::Layout;
use std::process::Command;

/// Run `tool args`, returning its stdout; a tool that cannot be started is the missing
/// capability `package`.
pub fn run_tool(tool: &str, args: &[&str], package: &'static str) -> Result<String, Error> {
    let out = Command::new(tool)
        .args(args)
        .output()
        .map_err(|e| Error::Missing { capability: package, msg: format!("{tool}: {e} (install {package})") })?;
    if !out.status.success() {
        return Err(Error::Tool {
            tool: format!("{tool} {}", args.join(" ")),
            msg: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The journal's blocks from `debugfs -R 'stat <8>'` (its `EXTENTS:` list): (start, blocks)
/// when it is one extent.
pub fn journal_from_debugfs(text: &str) -> Option<(u64, u64)> {
    let after = text.split("EXTENTS:").nth(1)?;
    let mut runs = Vec::new();
    for part in after.split(',') {
        // "(0-4095):16384-20479" or "(0):123"
        let (_, phys) = part.trim().split_once("):")?;
        let phys = phys.split_whitespace().next()?;
        let (a, b) = phys.split_once('-').unwrap_or((phys, phys));
        let (a, b): (u64, u64) = (a.parse().ok()?, b.parse().ok()?);
        runs.push((a, b - a + 1));
    }
    match runs.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// A made, attached and mounted ext4 image and its layout.
#[derive(Debug)]
pub struct Image {
    /// The image file, its loop device and mount point.
    pub m: Mounted,
    pub layout: Layout,
}

impl std::ops::Deref for Image {
    type Target = Mounted;
    fn deref(&self) -> &Mounted {
        &self.m
    }
}

/// Root, or the missing capability `root`.
pub fn require_root() -> Result<(), Error> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err(Error::Missing {
            capability: "root",
            msg: "making a loop device, mounting ext4 and tracing block events need root".into(),
        });
    }
    Ok(())
}

impl Image {
    /// Make the image (`mkfs.ext4 -b 4096 -g BLOCKS_PER_GROUP`, inode tables and journal
    /// zeroed at mkfs time so no lazy-init thread writes during the run), read its layout,
    /// attach and mount it with the run's mount options.
    pub fn make(o: &Options) -> Result<Image, Error> {
        require_root()?;
        let path = Mounted::image_path(&o.image_dir);
        let mut img = Image { m: Mounted::new(path.clone()), layout: Layout::new(1) };
        let f = std::fs::File::create(&path).map_err(Error::io(&path))?;
        f.set_len(o.image_bytes).map_err(Error::io(&path))?;
        drop(f);
        let p = path.to_string_lossy().to_string();
        let g = o.blocks_per_group.to_string();
        run_tool(
            "mkfs.ext4",
            &["-F", "-q", "-b", "4096", "-g", &g, "-E", "lazy_itable_init=0,lazy_journal_init=0", &p],
            "e2fsprogs",
        )?;
        let dump = run_tool("dumpe2fs", &[&p], "e2fsprogs")?;
        let jstat = run_tool("debugfs", &["-R", "stat <8>", &p], "e2fsprogs")?;
        let Some(journal) = journal_from_debugfs(&jstat) else {
            return Err(Error::Option {
                option: "--size",
                msg: format!(
                    "{} bytes: mkfs.ext4 split this image's journal into several extents (it does on a single-group image); the model needs it in one: use at least two groups ({} bytes)",
                    o.image_bytes,
                    2 * o.blocks_per_group * 4096
                ),
            });
        };
        let journal = Some(journal);
        img.layout = Layout::from_dumpe2fs(&format!("dumpe2fs {p}"), &dump, journal)?;
        img.layout.root_dir = img.dir_blocks("/")?;
        img.m.attach_and_mount("ext4", o.mount.mount_options())?;
        Ok(img)
    }

    /// Unmount (everything reaches the image), keeping the loop device and the file.
    pub fn unmount(&mut self) -> Result<(), Error> {
        self.m.unmount()
    }

    /// `dumpe2fs` of the image now (unmount first for a consistent picture).
    pub fn dumpe2fs(&self) -> Result<String, Error> {
        run_tool("dumpe2fs", &[&self.path.to_string_lossy()], "e2fsprogs")
    }

    /// The blocks of directory `dir` (a path inside the filesystem), from `debugfs blocks`.
    pub fn dir_blocks(&self, dir: &str) -> Result<Vec<u64>, Error> {
        let out = run_tool("debugfs", &["-R", &format!("blocks {dir}"), &self.path.to_string_lossy()], "e2fsprogs")?;
        Ok(out.split_whitespace().filter_map(|w| w.parse().ok()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journal_extent_is_read() {
        let t = "Inode: 8   Type: regular    Mode:  0600   Flags: 0x80000\nEXTENTS:\n(0-4095):16384-20479\n";
        assert_eq!(journal_from_debugfs(t), Some((16384, 4096)));
        assert_eq!(journal_from_debugfs("EXTENTS:\n(0-9):10-19, (10-19):30-39\n"), None);
        assert_eq!(journal_from_debugfs("no extents"), None);
    }
}
