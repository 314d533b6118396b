//! serde's deserialization errors as the report shows them: the path of the field at fault
//! in the file as written (`steps[2].seq_read_mbs`, `result.deciles[0].p99_us`), found with
//! `serde_path_to_error`.
//!
//! Two things need help beyond `serde_path_to_error`: a missing field is reported at the
//! object that lacks it (its name is in serde's message), and serde loses the path inside a
//! `#[serde(flatten)]` field (a fill decile's latencies, serde issue 1183), so a wrong value
//! there is reported at the object holding it; [`locate`] then names the one field of that
//! object whose value is the one serde's message quotes, where exactly one is.

use crate::error::InputError;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// How a path in the document maps to the file: a document nested at `at` (`""`, or
/// `results.results` in a phone document), or a file of the layout before the results
/// document, whose body was at `body_at` (`""` or `result`).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Layout<'a> {
    /// A results document, at this prefix of the file.
    Document { at: &'a str },
    /// A file written before the results document (`flashlab_results::legacy`).
    Older { body_at: &'static str },
}

impl Layout<'_> {
    /// The path in the file of the document's `path` (`results.steps[2].label`).
    pub fn file_path(self, path: &str) -> String {
        match self {
            Layout::Document { at } => join(at, path),
            Layout::Older { body_at } => {
                let rest = path.strip_prefix("results").filter(|r| r.is_empty() || r.starts_with(['.', '[']));
                match rest {
                    Some(r) => join(body_at, r.strip_prefix('.').unwrap_or(r)),
                    None => path.to_string(),
                }
            }
        }
    }

    /// `e` at the document's `path`, with the hint for an older file where a field it lacks
    /// is one the report needs.
    fn error(self, e: InputError) -> InputError {
        match (self, e) {
            (Layout::Older { .. }, e @ InputError::Missing { .. }) => InputError::Older(Box::new(e)),
            (_, e) => e,
        }
    }

    /// A list the report draws is empty: the error names it in the file.
    pub fn empty(self, path: &str, why: &'static str) -> InputError {
        InputError::Empty { field: self.file_path(path), why }
    }
}

/// `a.b`, or `b` when `a` is empty (and `a` when `b` is).
fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ if b.starts_with('[') => format!("{a}{b}"),
        _ => format!("{a}.{b}"),
    }
}

/// `v` read as `T`; an error names the field's path in the file.
pub(crate) fn typed<T: DeserializeOwned>(v: &Value, layout: Layout) -> Result<T, InputError> {
    serde_path_to_error::deserialize(v).map_err(|e| error_of(&e, v, layout))
}

/// serde's error `e` in reading `root`, as the report shows it.
pub(crate) fn error_of(e: &serde_path_to_error::Error<serde_json::Error>, root: &Value, layout: Layout) -> InputError {
    let path = e.path().to_string();
    let path = if path == "." { String::new() } else { path };
    let message = e.inner().to_string();
    let found = match message.strip_prefix("missing field `").and_then(|m| m.strip_suffix('`')) {
        Some(name) => InputError::Missing { field: layout.file_path(&join(&path, name)) },
        None => {
            let field = locate(root, &path, &message).unwrap_or(path);
            InputError::Invalid { field: layout.file_path(&field), message }
        }
    };
    layout.error(found)
}

/// The value at `path` (`a.b[2].c`) under `root`.
fn at<'a>(root: &'a Value, path: &str) -> Option<&'a Value> {
    let mut v = root;
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, mut idx) = part.split_once('[').map_or((part, ""), |(k, i)| (k, i));
        if !key.is_empty() {
            v = v.get(key)?;
        }
        while let Some((i, rest)) = idx.split_once(']') {
            v = v.get(i.parse::<usize>().ok()?)?;
            idx = rest.strip_prefix('[').unwrap_or(rest);
        }
    }
    Some(v)
}

/// Where serde's type or value error `message` stopped at an object (a flattened field's
/// value is inside it): the path of the one field of that object holding the value the
/// message quotes (`invalid type: string "x", expected f64`); `None` when no field or
/// several do.
fn locate(root: &Value, path: &str, message: &str) -> Option<String> {
    let quoted = ["invalid type: ", "invalid value: "]
        .iter()
        .find_map(|p| message.strip_prefix(p))
        .and_then(|m| m.split_once(", expected"))?
        .0;
    let Value::Object(o) = at(root, path)? else { return None };
    let mut hits = o.iter().filter(|(_, v)| quotes(quoted, v));
    match (hits.next(), hits.next()) {
        (Some((k, _)), None) => Some(join(path, k)),
        _ => None,
    }
}

/// Whether serde's description of an unexpected value (`string "x"`, `integer `5``,
/// `floating point `1.5``, `null`, `map`) is `v`.
fn quotes(quoted: &str, v: &Value) -> bool {
    let number = |q: &str| {
        ["integer `", "floating point `"]
            .iter()
            .find_map(|p| q.strip_prefix(p))
            .and_then(|n| n.strip_suffix('`'))
            .and_then(|n| n.parse::<f64>().ok())
    };
    match v {
        Value::Null => quoted == "null" || quoted == "unit value",
        Value::Bool(b) => quoted == format!("boolean `{b}`"),
        Value::String(s) => quoted == format!("string {s:?}"),
        Value::Number(n) => number(quoted).is_some_and(|q| Some(q) == n.as_f64()),
        Value::Array(_) => quoted == "sequence",
        Value::Object(_) => quoted == "map",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_in_an_older_file_are_the_files_own() {
        let older = Layout::Older { body_at: "result" };
        assert_eq!(older.file_path("results.deciles[0].p99_us"), "result.deciles[0].p99_us");
        assert_eq!(older.file_path("results"), "result");
        assert_eq!(older.file_path("seed"), "seed");
        let top = Layout::Older { body_at: "" };
        assert_eq!(top.file_path("results.steps[2].label"), "steps[2].label");
        assert_eq!(top.file_path("results_x"), "results_x");
        assert_eq!(Layout::Document { at: "results.results" }.file_path("seed"), "results.results.seed");
        assert_eq!(Layout::Document { at: "" }.file_path("results.steps"), "results.steps");
    }

    #[test]
    fn a_wrong_value_inside_a_flattened_field_is_named() {
        let v = json!({"deciles": [{"filled_pct": 10, "p50_us": 1.0, "p99_us": "x", "max_us": null}]});
        assert_eq!(
            locate(&v, "deciles[0]", "invalid type: string \"x\", expected f64").as_deref(),
            Some("deciles[0].p99_us")
        );
        assert_eq!(locate(&v, "deciles[0]", "invalid type: null, expected f64").as_deref(), Some("deciles[0].max_us"));
        assert_eq!(
            locate(&v, "deciles[0]", "invalid type: integer `10`, expected a string").as_deref(),
            Some("deciles[0].filled_pct")
        );
        // Two fields hold the quoted value: no guess.
        let two = json!({"a": "x", "b": "x"});
        assert_eq!(locate(&two, "", "invalid type: string \"x\", expected f64"), None);
        assert_eq!(locate(&v, "deciles[0]", "missing field `x`"), None);
    }
}
