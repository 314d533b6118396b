//! What can go wrong between a library's result and the files a command writes: a result that
//! cannot be written as JSON or does not fit the document's types (each naming what it was),
//! and an exporter's encoder failing.

/// Why a results document could not be built or exported.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A library result that serde cannot write as JSON.
    #[error("{what}: cannot be written as JSON: {source}")]
    Encode {
        /// What the result is (`the fill's deciles`).
        what: String,
        /// serde_json's error.
        source: serde_json::Error,
    },
    /// A library result whose JSON does not fit the document's typed fields.
    #[error("{what}: does not fit the results document: {source}")]
    Fit {
        /// What the result is.
        what: String,
        /// serde_json's error, naming the field.
        source: serde_json::Error,
    },
    /// The document could not be written as JSON.
    #[error("cannot write the results as JSON: {0}")]
    Json(#[source] serde_json::Error),
    /// The main table could not be written as CSV.
    #[error("cannot write the results as CSV: {0}")]
    Csv(#[source] Box<dyn std::error::Error + Send + Sync>),
}
