//! What flashlab reads about the machine it runs on, in one place: the mount table
//! ([`mounts`]), block devices in sysfs ([`blockdev`]), a filesystem's space ([`statvfs`]) and
//! where a file's bytes sit on its device ([`fiemap`]).
//!
//! It reads and never writes; it knows nothing of the simulator or of flashlab's commands. The
//! doctor reads the same facts from captured trees through its own `Tree`, and uses this crate's
//! parsers on what it reads.
//!
//! ```no_run
//! let mounts = flashlab_sysfacts::mounts::read_self().unwrap();
//! let root = mounts.entries.iter().find(|m| m.mount_point == "/").unwrap();
//! println!("/ is {} on {}", root.fs_type, root.source);
//! ```

pub mod blockdev;
pub mod fiemap;
pub mod mounts;
pub mod statvfs;

use std::path::PathBuf;

/// A system fact that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SysError {
    /// A file under /proc or /sys, or a system call on a path, failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file read, or the path the call was about.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A file was read but does not hold what the kernel writes there.
    #[error("{}: {what}", path.display())]
    Unreadable {
        /// The file read.
        path: PathBuf,
        /// What was expected of it.
        what: String,
    },
}

impl SysError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> SysError {
        SysError::Io { path: path.into(), source }
    }
}
