//! JSON: the document itself, pretty-printed, ending in a newline.

use crate::Document;

/// The document as pretty JSON.
pub fn json(doc: &Document) -> Result<String, String> {
    let mut s = serde_json::to_string_pretty(doc).map_err(|e| format!("cannot write the results as JSON: {e}"))?;
    s.push('\n');
    Ok(s)
}
