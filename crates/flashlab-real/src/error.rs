//! Errors of real-target runs: each names the file or device and says what to do.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum RealError {
    /// A system call failed.
    #[error("{what}: {source}")]
    Io { what: String, source: std::io::Error },
    /// The filesystem refused O_DIRECT (EINVAL on open).
    #[error("{}: the filesystem does not support O_DIRECT (direct I/O); run with --buffered", path.display())]
    DirectUnsupported { path: PathBuf },
    /// A write hit ENOSPC (and the job did not expect it).
    #[error("{}: no space left on the device", path.display())]
    NoSpace { path: PathBuf },
    /// The job asks for something this engine or target does not do.
    #[error("{0}")]
    Unsupported(String),
    /// A safety rule refused the target.
    #[error("{0}")]
    Refused(String),
    /// The job's parameters do not fit the target (alignment, sizes).
    #[error("{0}")]
    BadJob(String),
    /// A fact about the system (mount table, sysfs) could not be read.
    #[error(transparent)]
    System(#[from] flashlab_sysfacts::SysError),
}

impl RealError {
    pub fn io(what: impl Into<String>, source: std::io::Error) -> RealError {
        RealError::Io { what: what.into(), source }
    }
}
