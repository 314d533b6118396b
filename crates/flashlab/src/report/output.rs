//! Writing result files: complete or not at all (written to a temporary file, then renamed).

use std::path::Path;

/// [`flashlab_report::write_atomic`], with its error as the message the CLI prints.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), String> {
    flashlab_report::write_atomic(path, contents).map_err(|e| e.to_string())
}

pub fn write_json(path: &Path, value: &impl serde::Serialize) -> Result<(), String> {
    let mut text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    text.push('\n');
    write_atomic(path, text.as_bytes())
}
