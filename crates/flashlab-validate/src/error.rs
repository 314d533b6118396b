//! What can go wrong in a validation run, each saying what was being done and, for a missing
//! capability (root, a tool, tracefs, loop devices), which one and how to get it.

use std::path::PathBuf;

/// Why a validation run failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A command-line option has a bad value.
    #[error("{option}: {msg}")]
    Option {
        /// The option, e.g. `--size`.
        option: &'static str,
        /// What is wrong with its value.
        msg: String,
    },
    /// Something the kernel side needs is not there (named by `capability`: root, e2fsprogs,
    /// loop, tracefs).
    #[error("needs {capability}: {msg}")]
    Missing {
        /// The capability: root, e2fsprogs, loop or tracefs.
        capability: &'static str,
        /// What failed and how to get it.
        msg: String,
    },
    /// A tool flashlab runs (mkfs.ext4, losetup, mount, dumpe2fs, debugfs) failed.
    #[error("{tool}: {msg}")]
    Tool {
        /// The tool, e.g. `mkfs.ext4`.
        tool: String,
        /// What it said.
        msg: String,
    },
    /// A file operation on a file flashlab created failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// Tracing the block requests failed.
    #[error("tracing: {0}")]
    Trace(#[from] flashlab_breakdown::BreakdownError),
    /// The SQLite workload failed.
    #[error("{0}")]
    Sqlite(#[from] flashlab_sqlite::Error),
    /// The model failed (a bug or a model limit: the message says which operation).
    #[error("model: {0}")]
    Model(String),
    /// Text a tool printed could not be read.
    #[error("{0}")]
    Parse(String),
    /// `dumpe2fs` output the model's ext4 layout could not be read from.
    #[error(transparent)]
    Layout(#[from] flashlab_simfs::LayoutError),
}

impl Error {
    /// The capability this error says is missing, if it is one (for tests that may skip).
    pub fn missing_capability(&self) -> Option<&'static str> {
        match self {
            Error::Missing { capability, .. } => Some(capability),
            Error::Trace(flashlab_breakdown::BreakdownError::NoTracefs { .. })
            | Error::Trace(flashlab_breakdown::BreakdownError::MissingEvent { .. }) => Some("tracefs"),
            Error::Trace(flashlab_breakdown::BreakdownError::Permission { .. }) => Some("root"),
            _ => None,
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }
}
