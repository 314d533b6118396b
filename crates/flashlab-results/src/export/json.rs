//! JSON: the document itself, pretty-printed, ending in a newline.

use crate::Document;

/// The document as pretty JSON.
pub fn json(doc: &Document) -> Result<String, crate::Error> {
    let mut s = serde_json::to_string_pretty(doc).map_err(crate::Error::Json)?;
    s.push('\n');
    Ok(s)
}
