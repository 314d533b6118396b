//! Errors of real-target runs: each names the file or device and says what to do.

use std::path::PathBuf;

/// Why a run on a real file or device failed.
#[derive(Debug, thiserror::Error)]
pub enum RealError {
    /// A system call failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done, with the path.
        what: String,
        /// The system's error.
        source: std::io::Error,
    },
    /// The filesystem refused O_DIRECT (EINVAL on open).
    #[error("{}: the filesystem does not support O_DIRECT (direct I/O); run with --buffered", path.display())]
    DirectUnsupported {
        /// The file.
        path: PathBuf,
    },
    /// A write hit ENOSPC (and the job did not expect it).
    #[error("{}: no space left on the device", path.display())]
    NoSpace {
        /// The file or device.
        path: PathBuf,
    },
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
    /// The error of a system call doing `what`.
    pub fn io(what: impl Into<String>, source: std::io::Error) -> RealError {
        RealError::Io { what: what.into(), source }
    }
}

/// Why io_uring cannot be used here: `io_uring_setup`'s error, explained (seccomp, SELinux,
/// a kernel without it).
#[derive(Debug, thiserror::Error)]
#[error("{explanation}")]
pub struct UringUnavailable {
    /// What the error means here, e.g. `io_uring_setup: Operation not permitted (...)`.
    pub explanation: String,
    /// The system's error.
    #[source]
    pub source: std::io::Error,
}

/// Why FITRIM trimmed nothing on a directory's filesystem (not an error of the run: the
/// protocol notes it and goes on).
#[derive(Debug, thiserror::Error)]
pub enum NoTrim {
    /// The filesystem has no FITRIM (EOPNOTSUPP, ENOTTY, ENOSYS).
    #[error("the filesystem of {} does not support FITRIM ({source}); nothing trimmed", dir.display())]
    Unsupported {
        /// The directory.
        dir: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// FITRIM needs root (EPERM, EACCES).
    #[error("FITRIM on {} was refused ({source}): it needs root (CAP_SYS_ADMIN); nothing trimmed", dir.display())]
    Refused {
        /// The directory.
        dir: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The kernel rejected the request (EINVAL: e.g. a device without discard).
    #[error("FITRIM on {} was rejected ({source}: e.g. a device without discard); nothing trimmed", dir.display())]
    Rejected {
        /// The directory.
        dir: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
}

/// Why asking Android's storage manager (`sm`) to trim did not work.
#[derive(Debug, thiserror::Error)]
pub enum SmError {
    /// `sm` could not be run.
    #[error("sm {args}: {source}")]
    NotRun {
        /// The arguments, e.g. `idle-maint run`.
        args: String,
        /// The system's error.
        source: std::io::Error,
    },
    /// `sm` ran and failed.
    #[error("sm {args} failed ({status}{})", if output.is_empty() { String::new() } else { format!(": {output}") })]
    Failed {
        /// The arguments, e.g. `fstrim`.
        args: String,
        /// Its exit status.
        status: std::process::ExitStatus,
        /// The first line it printed (standard error first), or nothing.
        output: String,
    },
    /// `sm fstrim` failed, and so did `sm idle-maint run`.
    #[error("{first}; {second}")]
    Both {
        /// Why `sm fstrim` failed.
        first: Box<SmError>,
        /// Why `sm idle-maint run` failed.
        second: Box<SmError>,
    },
}
