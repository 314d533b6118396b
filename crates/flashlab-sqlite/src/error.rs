//! The errors of `flashlab sqlite`, each naming the option, path or operation at fault.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A command-line option has a bad value.
    #[error("{option}: {msg}")]
    Option { option: &'static str, msg: String },
    /// The target directory cannot be used.
    #[error("--target {}: {msg}", path.display())]
    Target { path: PathBuf, msg: String },
    /// SQLite failed while doing `what`.
    #[error("SQLite ({what}): {source}")]
    Sqlite {
        what: String,
        #[source]
        source: rusqlite::Error,
    },
    /// `PRAGMA integrity_check` did not answer "ok".
    #[error("PRAGMA integrity_check after {config} failed: {answer}")]
    Integrity { config: String, answer: String },
    /// A file-system operation on a file flashlab created failed.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Replaying the recorded operations on the simulated system failed.
    #[error("simulated replay: {0}")]
    Sim(String),
    /// The recording VFS could not be registered.
    #[error("recording VFS: {0}")]
    Vfs(String),
}

impl Error {
    pub fn sqlite(what: impl Into<String>) -> impl FnOnce(rusqlite::Error) -> Error {
        let what = what.into();
        move |source| Error::Sqlite { what, source }
    }
}
