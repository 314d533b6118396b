//! The errors of `flashlab report`: a results file's content (naming the field at fault, e.g.
//! `steps[2].seq_read_mbs: invalid type: string "fast", expected f64`), drawing a chart, and
//! writing the page and charts.

use std::path::PathBuf;

/// What is wrong with one results file's content.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The text is not JSON (serde_json's error names the line and column).
    #[error("malformed JSON: {0}")]
    Json(#[source] serde_json::Error),
    /// A field the report needs is absent (`field` is its path, e.g. `steps[0].label`).
    #[error("{field}: missing")]
    Missing {
        /// Path of the field, e.g. `result.deciles[3].p99_us`.
        field: String,
    },
    /// A field holds a value its type does not take (serde's message: `invalid type: string
    /// "fast", expected f64`).
    #[error("{field}: {message}")]
    Invalid {
        /// Path of the field (of the object holding it where serde cannot say which field).
        field: String,
        /// What is wrong, as serde says it.
        message: String,
    },
    /// A list the report draws is empty.
    #[error("{field}: empty{why}")]
    Empty {
        /// Path of the list, e.g. `steps`.
        field: String,
        /// Why that matters, with a leading space and in parentheses, or nothing.
        why: &'static str,
    },
    /// A percentile table has a key that is not a number (`"p99"` where fio writes `"99.000000"`).
    #[error("{field}: key \"{key}\" is not a percentile")]
    NotPercentile {
        /// Path of the table, e.g. `jobs[0].write.clat_ns.percentile`.
        field: String,
        /// The key as written.
        key: String,
    },
    /// A file written before the results document existed that lacks what the report needs.
    #[error("{0} (the file was written by an older flashlab, before the results document; re-run the command that wrote it)")]
    Older(#[source] Box<InputError>),
    /// The file is JSON but not results the report draws (the message says what it is and what
    /// the report reads).
    #[error("{0}")]
    NotDrawn(String),
}

/// A chart could not be drawn (the plotting library's error).
#[derive(Debug, thiserror::Error)]
#[error("drawing a chart: {0}")]
pub struct ChartError(pub String);

impl ChartError {
    /// The error of a plotters call.
    pub(crate) fn of<E: std::fmt::Debug>(e: E) -> ChartError {
        ChartError(format!("{e:?}"))
    }
}

/// Why a report could not be made or written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// No results file was given.
    #[error("no results files to report on")]
    NoInputs,
    /// A sweep whose settings all have one value: nothing to draw against.
    #[error("the sweep has no setting with more than one value to draw")]
    NothingVaries,
    /// One results file's content is wrong.
    #[error("{file}: {source}")]
    Input {
        /// The file as it was named.
        file: String,
        /// What is wrong in it.
        #[source]
        source: InputError,
    },
    /// A chart could not be drawn.
    #[error(transparent)]
    Chart(#[from] ChartError),
    /// A file or directory could not be written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// The output path names no file (`/`, `..`).
    #[error("{}: not a file name", path.display())]
    NotAFile {
        /// The path given.
        path: PathBuf,
    },
}
