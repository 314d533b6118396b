//! The exporters: one file per format, each turning a [`Document`] (or its tables) into bytes.
//! Commands choose them from `--json`, `--csv`, `--report` (HTML, drawn by flashlab-report
//! from the JSON) and the terminal.

mod csv;
mod json;
mod markdown;
mod terminal;

pub use self::csv::{csv, csv_table};
pub use self::json::json;
pub use self::markdown::markdown;
pub use self::terminal::{terminal, wrap, WIDTH};

use crate::Document;

/// A format a document can be exported to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JSON: the whole document.
    Json,
    /// CSV: the main table, full precision.
    Csv,
    /// Markdown: every table, for a report or an issue.
    Markdown,
}

impl Format {
    /// The format a file name asks for: `.csv`, `.md`/`.markdown`, else JSON.
    pub fn of_path(path: &std::path::Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some("csv") => Format::Csv,
            Some("md" | "markdown") => Format::Markdown,
            _ => Format::Json,
        }
    }

    /// The document in this format.
    pub fn export(self, doc: &Document) -> Result<String, crate::Error> {
        match self {
            Format::Json => json(doc),
            Format::Csv => csv(doc),
            Format::Markdown => Ok(markdown(doc)),
        }
    }
}
