//! The sweep's directory: each case's results document in `cases/NNNN.json` (written whole or
//! not at all: a temporary file renamed into place), so that a sweep interrupted at any
//! moment keeps exactly the cases that finished, and a re-run skips them.

use crate::error::SweepError;
use crate::spec::{Case, Spec};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The key of a case document that says which case of which settings it is.
pub const CASE_KEY: &str = "sweep_case";

/// `DIR/cases`, where each case's document is stored.
pub fn cases_dir(out: &Path) -> PathBuf {
    out.join("cases")
}

/// `cases/0007.json` (at least four digits, more for a sweep of 10000 cases or more).
pub fn case_path(out: &Path, spec: &Spec, index: usize) -> PathBuf {
    let width = spec.cases.len().saturating_sub(1).to_string().len().max(4);
    cases_dir(out).join(format!("{index:0width$}.json"))
}

/// Make the directories, and remove the temporary files of an interrupted run.
pub fn prepare_dir(out: &Path) -> Result<(), SweepError> {
    let dir = cases_dir(out);
    std::fs::create_dir_all(&dir).map_err(SweepError::io(&dir))?;
    for entry in std::fs::read_dir(&dir).map_err(SweepError::io(&dir))? {
        let path = entry.map_err(SweepError::io(&dir))?.path();
        // `flashlab-tmp`: flashlab_report::write_atomic's; `tmp`: older flashlab versions'.
        if path.extension().is_some_and(|x| x == "tmp" || x == "flashlab-tmp") {
            std::fs::remove_file(&path).map_err(SweepError::io(&path))?;
        }
    }
    Ok(())
}

/// The document stored for a case: its results document (or its error) with the case's
/// index and settings under [`CASE_KEY`].
pub fn case_document(case: &Case, result: Result<Value, SweepError>) -> Value {
    let tag = json!({"index": case.index, "settings": case.settings_json()});
    match result {
        Ok(mut doc) => {
            if let Some(o) = doc.as_object_mut() {
                o.insert(CASE_KEY.into(), tag);
            }
            doc
        }
        Err(e) => json!({CASE_KEY: tag, "error": e.to_string()}),
    }
}

/// A case document as stored: pretty JSON with sorted keys and a final newline (the same
/// results give the same bytes, wherever they were computed).
pub fn serialize(doc: &Value) -> Result<String, SweepError> {
    serde_json::to_string_pretty(doc)
        .map(|s| s + "\n")
        .map_err(|e| SweepError::Encode { format: "json", message: e.to_string() })
}

/// Store a case's document.
pub fn store(out: &Path, spec: &Spec, index: usize, doc: &Value) -> Result<(), SweepError> {
    store_text(out, spec, index, &serialize(doc)?)
}

/// Store a case's document as [`serialize`] wrote it (a remote worker's, byte for byte),
/// after checking that it is this sweep's case `index`.
pub fn store_text(out: &Path, spec: &Spec, index: usize, text: &str) -> Result<(), SweepError> {
    let bad = |message: String| SweepError::Case { case: index, message };
    let case = spec.cases.get(index).ok_or_else(|| bad(format!("the sweep has {} cases", spec.cases.len())))?;
    let doc: Value = serde_json::from_str(text).map_err(|e| bad(format!("not a results document: {e}")))?;
    let tag = doc.get(CASE_KEY).ok_or_else(|| bad(format!("the document has no '{CASE_KEY}'")))?;
    if tag.get("settings") != Some(&case.settings_json()) {
        return Err(bad(format!("the document's settings are not this sweep's case {index}")));
    }
    Ok(flashlab_report::write_atomic(&case_path(out, spec, index), text.as_bytes())?)
}

/// The stored document of a case, if it is there and was made with the same settings.
pub fn finished(out: &Path, spec: &Spec, case: &Case) -> Option<Value> {
    let text = std::fs::read_to_string(case_path(out, spec, case.index)).ok()?;
    let doc: Value = serde_json::from_str(&text).ok()?;
    (doc.get(CASE_KEY)?.get("settings")? == &case.settings_json()).then_some(doc)
}

/// The cases still to run.
pub fn pending(out: &Path, spec: &Spec) -> Vec<usize> {
    spec.cases.iter().filter(|c| finished(out, spec, c).is_none()).map(|c| c.index).collect()
}
