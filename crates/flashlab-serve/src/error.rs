//! The errors of the loop device and the backing file under a served device; [`crate::ServeError`]
//! carries them to the caller with the command or file they name.

use std::path::PathBuf;

/// `losetup` could not attach or detach the loop device.
#[derive(Debug, thiserror::Error)]
pub enum LoopError {
    /// `losetup` could not be run at all.
    #[error("{command}: {source}{hint}")]
    NotRun {
        /// The command as shown (`losetup`, `losetup -d /dev/loop3`).
        command: String,
        /// The system's error.
        source: std::io::Error,
        /// What to check, with a leading space, or nothing.
        hint: &'static str,
    },
    /// `losetup` ran and failed.
    #[error("{command}: {stderr}")]
    Failed {
        /// The command line as run.
        command: String,
        /// What losetup printed on standard error.
        stderr: String,
    },
    /// `losetup --show` printed something that is not a loop device.
    #[error("losetup printed '{0}', not a loop device")]
    NotLoop(String),
}

/// The backing file of a served device could not be created.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The path exists and is not a regular file (with `--overwrite-backing`).
    #[error("backing file {}: exists and is not a regular file", .0.display())]
    NotAFile(PathBuf),
    /// The file exists and `--overwrite-backing` was not given.
    #[error("backing file {}: already exists (give --overwrite-backing to reuse it)", .0.display())]
    Exists(PathBuf),
    /// Creating or sizing the file failed.
    #[error("backing file {}: {source}", path.display())]
    Io {
        /// The backing file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
}
