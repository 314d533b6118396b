//! Errors of a breakdown run: each names what is missing or wrong (the tracefs file, the event,
//! the device, the option) and, where there is one, what to do about it.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum BreakdownError {
    /// No tracefs where it was looked for.
    #[error("tracefs not found: {tried} (mount it with `mount -t tracefs nodev /sys/kernel/tracing`; the kernel needs CONFIG_FTRACE)")]
    NoTracefs { tried: String },
    /// Tracing needs root (or CAP_SYS_ADMIN / tracefs permissions).
    #[error("{}: permission denied: tracing block events needs root (run flashlab breakdown as root)", path.display())]
    Permission { path: PathBuf },
    /// A block event the breakdown needs is not in this kernel.
    #[error("{}: missing: the kernel has no block tracepoint '{event}' (needs CONFIG_BLK_DEV_IO_TRACE / block tracepoints)", path.display())]
    MissingEvent { event: String, path: PathBuf },
    /// A tracefs file could not be read or written.
    #[error("{}: {what}: {source}", path.display())]
    Tracefs { path: PathBuf, what: String, source: std::io::Error },
    /// A format file or a trace buffer did not parse.
    #[error("{what}")]
    Parse { what: String },
    /// The real-target layer failed (open, engine, safety checks).
    #[error("{0}")]
    Real(#[from] flashlab_real::RealError),
    /// The target or options are not usable.
    #[error("{0}")]
    Bad(String),
    /// The simulated device refused a request.
    #[error("simulated device: {0}")]
    Sim(String),
}

impl BreakdownError {
    /// The error for an I/O error on a tracefs file: permission errors become
    /// [`BreakdownError::Permission`].
    pub fn tracefs(path: impl Into<PathBuf>, what: &str, source: std::io::Error) -> BreakdownError {
        let path = path.into();
        match source.kind() {
            std::io::ErrorKind::PermissionDenied => BreakdownError::Permission { path },
            _ => BreakdownError::Tracefs { path, what: what.to_string(), source },
        }
    }

    pub fn parse(what: impl Into<String>) -> BreakdownError {
        BreakdownError::Parse { what: what.into() }
    }
}
