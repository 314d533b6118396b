//! What can go wrong in a sweep, by where it went wrong: the sweep file (its line), a case's
//! setting (the file, the case and the key), a stored case, the output directory, the table's
//! encoders, a case's run. The messages name the file, line and field as the sweep file said
//! them.

use std::path::PathBuf;

/// Why a sweep, or one of its pieces, failed.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// The sweep file's syntax or one of its keys, at a line of the file where it is known.
    #[error("{file}{}: {message}", line.map_or(String::new(), |l| format!(":{l}")))]
    File {
        /// What errors call the file (its path).
        file: String,
        /// The line, from 1.
        line: Option<usize>,
        /// What is wrong there.
        message: String,
    },
    /// A case's setting that does not resolve (a profile, usage, protocol or value).
    #[error("{file}: case {case} ('{setting}'): {message}")]
    Setting {
        /// The sweep file.
        file: String,
        /// The case's index.
        case: usize,
        /// The key of the setting.
        setting: String,
        /// What is wrong with it.
        message: String,
    },
    /// A case of the sweep: out of range, without stored results, or a stored document that is
    /// not that case's.
    #[error("case {case}: {message}")]
    Case {
        /// The case's index.
        case: usize,
        /// What is wrong.
        message: String,
    },
    /// A file or directory of the sweep's output that could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The table or a case document could not be encoded (CSV, Parquet, JSON).
    #[error("{format}: {message}")]
    Encode {
        /// `csv`, `parquet` or `json`.
        format: &'static str,
        /// The encoder's message.
        message: String,
    },
    /// A case's run failed (the message is also kept in the case's document).
    #[error("{0}")]
    Run(String),
    /// The pool of worker threads could not start.
    #[error("thread pool: {0}")]
    Pool(String),
    /// A case's profile (with the case's overrides) that does not validate: the message names
    /// the sweep file, the case and the field.
    #[error(transparent)]
    Profile(#[from] flashsim::ProfileError),
    /// A case's `[system]` table (its filesystem and mount options) that does not parse: the
    /// message names the case's profile source, the table and the field.
    #[error(transparent)]
    Filesystem(flashlab_simfs::ConfigError),
    /// Writing a file whole, or drawing the sweep's charts (flashlab-report).
    #[error(transparent)]
    Report(#[from] flashlab_report::ReportError),
}

impl SweepError {
    /// An I/O error on `path`.
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> SweepError {
        let path = path.into();
        move |source| SweepError::Io { path, source }
    }
}
