//! The errors of `flashlab sqlite`, each naming the option, path or operation at fault.

use std::path::PathBuf;

/// Why `flashlab sqlite` failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A command-line option has a bad value.
    #[error("{option}: {msg}")]
    Option {
        /// The option, e.g. `--sync`.
        option: &'static str,
        /// What is wrong with its value.
        msg: String,
    },
    /// The target directory cannot be used.
    #[error("--target {}: {msg}", path.display())]
    Target {
        /// The target directory.
        path: PathBuf,
        /// What is wrong with it.
        msg: String,
    },
    /// SQLite failed while doing `what`.
    #[error("SQLite ({what}): {source}")]
    Sqlite {
        /// The operation, in words.
        what: String,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// `PRAGMA integrity_check` did not answer "ok".
    #[error("PRAGMA integrity_check after {config} failed: {answer}")]
    Integrity {
        /// The configuration, e.g. `journal_mode=wal, synchronous=normal`.
        config: String,
        /// What SQLite answered.
        answer: String,
    },
    /// A file-system operation on a file flashlab created failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// Replaying the recorded operations on the simulated system failed.
    #[error("simulated replay: {0}")]
    Sim(String),
    /// The simulated system refused an operation of the replay (`what`: `write test.db`).
    #[error("simulated replay: {what}: {source}")]
    Replay {
        /// The operation, in words.
        what: String,
        /// What the simulated system said.
        #[source]
        source: flashlab_lab::system::SysError,
    },
    /// The recording VFS could not be registered.
    #[error("recording VFS: {0}")]
    Vfs(String),
}

impl Error {
    pub(crate) fn sqlite(what: impl Into<String>) -> impl FnOnce(rusqlite::Error) -> Error {
        let what = what.into();
        move |source| Error::Sqlite { what, source }
    }
}

/// A counters file (a serve device's `stats.json`, a block device's `stat`) that does not hold
/// what it should: the file, and what is wrong with it.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {problem}")]
pub struct CountersError {
    /// The file as named.
    pub file: String,
    /// What is wrong with it.
    pub problem: CountersProblem,
}

/// What is wrong with a counters file.
#[derive(Debug, thiserror::Error)]
pub enum CountersProblem {
    /// `stats.json` is not JSON.
    #[error("not JSON (line {line}): {source}")]
    NotJson {
        /// The line serde_json stopped at.
        line: usize,
        /// serde_json's error.
        source: serde_json::Error,
    },
    /// `stats.json` has no `counters` object.
    #[error("no field 'counters'")]
    NoCounters,
    /// A counter is missing or not a whole number (`name` without the `counters.` prefix).
    #[error("field 'counters.{0}' missing or not a count")]
    Counter(String),
    /// A `stat` field that is not a number (`field` is 1-based).
    #[error("field {field} is '{word}', not a number")]
    NotANumber {
        /// 1-based field number.
        field: usize,
        /// The text found.
        word: String,
    },
    /// A `stat` line with too few fields.
    #[error("{0} fields, expected at least 11 (Documentation/block/stat.rst)")]
    TooFewFields(usize),
}
