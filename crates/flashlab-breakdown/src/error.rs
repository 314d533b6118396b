//! Errors of a breakdown run: each names what is missing or wrong (the tracefs file, the event,
//! the device, the option) and, where there is one, what to do about it.

use std::path::PathBuf;

/// Why a breakdown could not run.
#[derive(Debug, thiserror::Error)]
pub enum BreakdownError {
    /// No tracefs where it was looked for.
    #[error("tracefs not found: {tried} (mount it with `mount -t tracefs nodev /sys/kernel/tracing`; the kernel needs CONFIG_FTRACE)")]
    NoTracefs {
        /// The places looked in.
        tried: String,
    },
    /// Tracing needs root (or CAP_SYS_ADMIN / tracefs permissions).
    #[error("{}: permission denied: tracing block events needs root (run flashlab breakdown as root)", path.display())]
    Permission {
        /// The tracefs file.
        path: PathBuf,
    },
    /// A block event the breakdown needs is not in this kernel.
    #[error("{}: missing: the kernel has no block tracepoint '{event}' (needs CONFIG_BLK_DEV_IO_TRACE / block tracepoints)", path.display())]
    MissingEvent {
        /// The tracepoint, e.g. `block_rq_insert`.
        event: String,
        /// Where it was looked for.
        path: PathBuf,
    },
    /// A tracefs file could not be read or written.
    #[error("{}: {what}: {source}", path.display())]
    Tracefs {
        /// The tracefs file.
        path: PathBuf,
        /// What was being done (`read`, `write`).
        what: String,
        /// The system's error.
        source: std::io::Error,
    },
    /// A format file or a trace buffer did not parse.
    #[error("{what}")]
    Parse {
        /// What did not parse, with the file and line.
        what: String,
    },
    /// The real-target layer failed (open, engine, safety checks).
    #[error("{0}")]
    Real(#[from] flashlab_real::RealError),
    /// The target or options are not usable.
    #[error("{0}")]
    Bad(String),
    /// The simulated device refused a request.
    #[error("simulated device: {0}")]
    Sim(String),
    /// `--host-cost FILE` is not a measured breakdown report (the message says why).
    #[error("{0}")]
    HostCost(String),
    /// A chart could not be drawn (the plotting library's error).
    #[error("{0}")]
    Chart(String),
}

/// A `field:` line of a tracepoint's format file that does not parse.
#[derive(Debug, thiserror::Error)]
pub enum FieldError {
    /// `field:;` with nothing declared.
    #[error("empty field declaration")]
    EmptyDeclaration,
    /// The declaration ends in no usable name.
    #[error("field declaration '{0}': no field name")]
    NoName(String),
    /// `offset:` or `size:` is not a number.
    #[error("field '{field}': {key} '{value}' is not a number")]
    NotANumber {
        /// The field's name.
        field: String,
        /// `offset` or `size`.
        key: String,
        /// The text found.
        value: String,
    },
    /// The line has no `offset:` or no `size:` (`missing` names which).
    #[error("field '{field}': no {missing}")]
    Incomplete {
        /// The field's name.
        field: String,
        /// `offset` or `size`.
        missing: &'static str,
    },
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

    /// A parse error saying `what` (the file and line are part of it).
    pub fn parse(what: impl Into<String>) -> BreakdownError {
        BreakdownError::Parse { what: what.into() }
    }
}
