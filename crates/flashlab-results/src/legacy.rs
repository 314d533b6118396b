//! The results files flashlab wrote before the results document existed, moved into the
//! document's layout so that they are read by the same types as every document.
//!
//! Those files had no `schema_version` and no `results`: `command` sat beside the body's
//! fields, which were at the top (`age`, `bench`) or under `result` (`fill`, `wsat`), with
//! the header's fields (`flashlab_version`, `target`, `profile`, `seed`) and `discard` (the
//! `--discard` option, now a parameter) at the top. [`upgrade`] moves each field to where a
//! document has it and changes no value. The fields a document has and those files lack are
//! optional in the body types where absence has a meaning ("the file does not say": a fill
//! decile's `p999_us`, a four-corner row's `rand_write_p999_us`, `flashlab_version`, ...);
//! a field the types require and such a file lacks is the reader's error to report (the
//! file must be written again by a newer flashlab), never a made-up value.

use serde_json::{Map, Value};

/// A file of the old layout, moved into the document's layout.
#[derive(Debug, Clone, PartialEq)]
pub struct Upgraded {
    /// The document (`schema_version` 1; `flashlab_version` only where the file had it).
    pub document: Value,
    /// Where the body's fields were in the file: `""` (the top: age, bench) or `"result"`
    /// (fill, wsat). A path under the document's `results` is this path in the file.
    pub body_at: &'static str,
}

/// The header's fields, at the top in both layouts.
const HEADER: [&str; 4] = ["flashlab_version", "target", "profile", "seed"];

/// `v` moved into the document's layout when it is an `age`, `bench`, `fill` or `wsat` file of
/// the old layout (a `command` string and no `schema_version`); `None` for anything else.
pub fn upgrade(v: &Value) -> Option<Upgraded> {
    let top = v.as_object().filter(|o| !o.contains_key("schema_version"))?;
    let command = top.get("command")?.as_str()?;
    let body_at = match command {
        "age" | "bench" => "",
        "fill" | "wsat" => "result",
        _ => return None,
    };
    let mut doc = Map::new();
    doc.insert("schema_version".into(), Value::from(crate::SCHEMA_VERSION));
    doc.insert("command".into(), Value::from(command));
    let mut parameters = Map::new();
    let mut body = Map::new();
    for (k, x) in top {
        match k.as_str() {
            "command" => {}
            k if HEADER.contains(&k) => {
                doc.insert(k.to_string(), x.clone());
            }
            "discard" => {
                parameters.insert(k.to_string(), x.clone());
            }
            "result" if !body_at.is_empty() => match x {
                Value::Object(r) => body.extend(r.iter().map(|(k, x)| (k.clone(), x.clone()))),
                // Not an object: left where the reader reports it (`results` is not a body).
                other => {
                    doc.insert("results".into(), other.clone());
                }
            },
            _ if body_at.is_empty() => {
                body.insert(k.clone(), x.clone());
            }
            // Beside `result` in a fill or wsat file: nothing the document types.
            _ => {}
        }
    }
    if command == "fill" {
        // A fill body keeps the rest of the fill's result (device, spec, ...) under `result`.
        let typed = ["bytes", "deciles", "procedure", "filesystem", "stack", "precondition"];
        let rest: Map<String, Value> =
            body.iter().filter(|(k, _)| !typed.contains(&k.as_str())).map(|(k, x)| (k.clone(), x.clone())).collect();
        body.retain(|k, _| typed.contains(&k.as_str()));
        body.insert("result".into(), Value::Object(rest));
    }
    // A fill or wsat file without `result` has no body: the reader reports it missing.
    if body_at.is_empty() || top.contains_key("result") {
        doc.entry("results").or_insert(Value::Object(body));
    }
    if !parameters.is_empty() {
        doc.insert("parameters".into(), Value::Object(parameters));
    }
    Some(Upgraded { document: Value::Object(doc), body_at })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_old_age_file_becomes_a_document_with_the_same_values() {
        let old = json!({"command": "age", "discard": true, "flashlab_version": "0.1.0", "seed": 1,
            "target": "sim:toy", "protocol": "age-small", "steps": [], "log": [], "virtual_seconds": 2.5});
        let up = upgrade(&old).unwrap();
        assert_eq!(up.body_at, "");
        assert_eq!(
            up.document,
            json!({"schema_version": 1, "command": "age", "flashlab_version": "0.1.0", "seed": 1,
                "target": "sim:toy", "parameters": {"discard": true},
                "results": {"protocol": "age-small", "steps": [], "log": [], "virtual_seconds": 2.5}})
        );
        let doc: crate::Document = serde_json::from_value(up.document).unwrap();
        assert_eq!(doc.flashlab_version.as_deref(), Some("0.1.0"));
        assert!(matches!(doc.body, crate::Body::Age(ref b) if b.protocol == "age-small"));
    }

    #[test]
    fn an_old_fill_file_keeps_its_result_and_says_no_version() {
        let old = json!({"command": "fill", "seed": 1, "result": {"bytes": 8, "device": {"profile": "toy"},
            "deciles": [{"filled_pct": 10, "p50_us": 1.0, "p90_us": 2.0, "p99_us": 3.0, "max_us": 4.0,
                         "mbs": 5.0, "write_amplification": 1.0}]}});
        let up = upgrade(&old).unwrap();
        assert_eq!(up.body_at, "result");
        let doc: crate::Document = serde_json::from_value(up.document).unwrap();
        assert_eq!(doc.flashlab_version, None, "absent, not guessed");
        let crate::Body::Fill(b) = doc.body else { panic!("not a fill: {:?}", doc.body) };
        assert_eq!((b.bytes, b.deciles[0].latency.p99_us, b.deciles[0].latency.p999_us), (8, 3.0, None));
        assert_eq!(b.deciles[0].free_block_fraction, None);
        assert_eq!(b.result.get("device"), Some(&json!({"profile": "toy"})));
    }

    #[test]
    fn documents_and_other_files_are_not_upgraded() {
        assert_eq!(upgrade(&json!({"schema_version": 1, "command": "age"})), None);
        assert_eq!(upgrade(&json!({"command": "doctor"})), None);
        assert_eq!(upgrade(&json!({"fio version": "fio-3.33", "jobs": []})), None);
        assert_eq!(upgrade(&json!([1, 2])), None);
        // A wsat file without its `result`: no body, so the reader names `result` as missing.
        let up = upgrade(&json!({"command": "wsat", "seed": 1})).unwrap();
        assert!(up.document.get("results").is_none());
    }
}
