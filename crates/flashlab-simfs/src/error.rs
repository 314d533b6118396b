//! Why a filesystem operation failed: the file it concerned and what was wrong, or the
//! device's own error.

use flashsim::RequestError;

/// A failed file operation on a simulated filesystem ([`crate::Fs`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FsError {
    /// The file does not fit in the free space.
    #[error("file '{name}' of {wanted} bytes does not fit: {free} bytes free on the simulated filesystem")]
    NoSpace {
        /// The file (or, on F2FS, the log) that needed the space.
        name: String,
        /// Bytes it needed.
        wanted: u64,
        /// Bytes that were free.
        free: u64,
    },
    /// A create of a name that is taken.
    #[error("file '{0}' already exists")]
    Exists(String),
    /// No file of that name.
    #[error("no file '{0}'")]
    NotFound(String),
    /// A `FileId` that names no live file.
    #[error("file id {0} names no file (deleted?)")]
    BadFile(u32),
    /// A read or trim past the end of a file.
    #[error("file '{name}': {len} bytes at {off} go past its end ({size} bytes)")]
    BeyondEof {
        /// The file.
        name: String,
        /// Offset of the request in the file.
        off: u64,
        /// Bytes asked for.
        len: u64,
        /// The file's size.
        size: u64,
    },
    /// A request of 0 bytes.
    #[error("request of 0 bytes")]
    Empty,
    /// The device refused a request the filesystem sent.
    #[error("device: {0}")]
    Device(#[from] RequestError),
}
