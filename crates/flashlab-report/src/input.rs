//! Reading one results file: which kind it is, read into flashlab's types — the results
//! document (`flashlab_results::Document`, its typed bodies) or fio's JSON ([`crate::fio`]) —
//! and what the report's header says about it.
//!
//! A results document is read as it is; a file flashlab wrote before the document existed
//! is first moved into the document's layout (`flashlab_results::legacy`). Every problem is
//! an error naming the field as the file has it (`steps[2].seq_read_mbs`,
//! `results.deciles[0].p99_us`, [`crate::paths`]); the caller adds the file name.

use crate::error::InputError;
use crate::fio::{self, FioOutput};
use crate::paths::{self, Layout};
use flashlab_results::body::{AgeBody, FillBody, WsatBody};
use flashlab_results::{Body, Document, SCHEMA_VERSION};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// One results file, read.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    /// A results document of a command the report draws (`age`, `bench`, `fill`, `wsat`,
    /// `run`), or one moved into the document's layout from an older file.
    Document(Box<Document>),
    /// fio's JSON: `flashlab run --output-format json`, or fio itself.
    Fio(FioOutput),
}

/// The commands whose results a report draws, for error messages.
pub const KNOWN: &str = "age, bench, fill, wsat, and fio-style JSON from `flashlab run --output-format json` or fio";

/// Read one results file's text.
pub(crate) fn parse(text: &str) -> Result<Source, InputError> {
    read(&parse_json(text)?)
}

/// Read one results file's JSON.
pub(crate) fn read(v: &Value) -> Result<Source, InputError> {
    let Some(obj) = v.as_object() else {
        return Err(InputError::NotDrawn(format!(
            "not a flashlab results file: the JSON is {}, not an object (the report reads results of {KNOWN})",
            kind_of(v)
        )));
    };
    if obj.contains_key("schema_version") {
        return document(v, Layout::Document { at: "" }).map(|d| Source::Document(Box::new(d)));
    }
    if obj.contains_key("fio version") || (obj.contains_key("jobs") && !obj.contains_key("command")) {
        let out: FioOutput = paths::typed(v, Layout::Document { at: "" })?;
        out.check()?;
        return Ok(Source::Fio(out));
    }
    match obj.get("command") {
        Some(Value::String(c)) => match flashlab_results::legacy::upgrade(v) {
            Some(up) => {
                document(&up.document, Layout::Older { body_at: up.body_at }).map(|d| Source::Document(Box::new(d)))
            }
            None => Err(not_drawn(c)),
        },
        Some(other) => Err(InputError::NotDrawn(format!(
            "field 'command' is {}, expected a string such as \"age\"",
            kind_of(other)
        ))),
        None if obj.contains_key("policy") && obj.contains_key("write_amplification") => {
            Err(InputError::NotDrawn(format!(
                "results of `flashlab sim waf --json`, which the report does not draw (it draws results of {KNOWN})"
            )))
        }
        None => Err(InputError::NotDrawn(format!(
            "not a flashlab results file: no 'command' field and no 'fio version' (the report reads results of {KNOWN})"
        ))),
    }
}

fn not_drawn(command: &str) -> InputError {
    InputError::NotDrawn(format!(
        "results of `flashlab {command}`, which the report does not draw (it draws results of {KNOWN})"
    ))
}

/// A results document (`v` in the document's layout) of a command the report draws; a phone
/// document gives the document of the run on the phone.
fn document(v: &Value, layout: Layout) -> Result<Document, InputError> {
    let command = match v.get("command") {
        Some(Value::String(c)) => c.as_str(),
        Some(other) => {
            return Err(InputError::Invalid {
                field: layout.file_path("command"),
                message: format!("expected a string such as \"age\", found {}", kind_of(other)),
            })
        }
        None => return Err(InputError::Missing { field: layout.file_path("command") }),
    };
    if let Some(n) = v.get("schema_version").and_then(Value::as_u64).filter(|n| *n > u64::from(SCHEMA_VERSION)) {
        return Err(InputError::NotDrawn(format!(
            "schema_version {n}: written by a newer flashlab than this one (which reads version {SCHEMA_VERSION})"
        )));
    }
    match command {
        "age" | "bench" | "fill" | "wsat" | "run" => {}
        "phone" => {
            let body = v.get("results");
            let Some(inner) = body.and_then(|b| b.get("results")).filter(|r| !r.is_null()) else {
                let sub = body.and_then(|b| b.get("subcommand")).and_then(Value::as_str).unwrap_or_default();
                return Err(InputError::NotDrawn(format!(
                    "results of `flashlab phone {sub}`, which the report does not draw (it draws results of {KNOWN})"
                )));
            };
            return match layout {
                Layout::Document { at: "" } => document(inner, Layout::Document { at: "results.results" }),
                // Phone documents do not nest further, and older files had none.
                _ => Err(InputError::NotDrawn(format!(
                    "a phone document inside another document (the report draws results of {KNOWN})"
                ))),
            };
        }
        other => return Err(not_drawn(other)),
    }
    let mut doc: Document = serde_path_to_error::deserialize(v).map_err(|e| {
        // `Document` flattens its body, and serde loses the path inside a flattened field:
        // the body alone, read as `Body`, names the field.
        let envelope: Map<String, Value> =
            ["command", "results"].iter().filter_map(|k| Some((k.to_string(), v.get(*k)?.clone()))).collect();
        let envelope = Value::Object(envelope);
        match serde_path_to_error::deserialize::<_, Body>(&envelope) {
            Err(body) => paths::error_of(&body, &envelope, layout),
            Ok(_) => paths::error_of(&e, v, layout),
        }
    })?;
    match &mut doc.body {
        Body::Age(b) | Body::Bench(b) => {
            if b.steps.is_empty() {
                return Err(layout.empty("results.steps", " (no four-corner run to draw)"));
            }
            unique_labels(b);
        }
        Body::Fill(b) if b.deciles.is_empty() => return Err(layout.empty("results.deciles", "")),
        Body::Wsat(b) if b.intervals.is_empty() => return Err(layout.empty("results.intervals", "")),
        Body::Run(b) if b.jobs.is_empty() => return Err(layout.empty("results.jobs", " (no job to draw)")),
        _ => {}
    }
    Ok(doc)
}

/// Labels name the categories of the charts: repeated ones get a number (`after fill (2)`).
fn unique_labels(b: &mut AgeBody) {
    let original: Vec<String> = b.steps.iter().map(|s| s.label.clone()).collect();
    for (i, step) in b.steps.iter_mut().enumerate() {
        let n = original[..i].iter().filter(|l| **l == original[i]).count();
        if n > 0 {
            step.label = format!("{} ({})", original[i], n + 1);
        }
    }
}

fn parse_json(text: &str) -> Result<Value, InputError> {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => Ok(v),
        Err(e) => {
            // fio may print notices before its JSON; accept them as fio tooling does.
            if let Some(start) = text.find("\n{") {
                if let Ok(v) = serde_json::from_str::<Value>(&text[start + 1..]) {
                    if v.get("fio version").is_some() {
                        return Ok(v);
                    }
                }
            }
            Err(InputError::Json(e))
        }
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Source {
    /// The document's typed body (none for fio's JSON).
    fn body(&self) -> Option<&Body> {
        match self {
            Source::Document(d) => Some(&d.body),
            Source::Fio(_) => None,
        }
    }

    /// A protocol's four-corner runs (`age`, `bench`).
    pub fn age(&self) -> Option<&AgeBody> {
        match self.body()? {
            Body::Age(b) | Body::Bench(b) => Some(b),
            _ => None,
        }
    }

    /// A fill's deciles.
    pub fn fill(&self) -> Option<&FillBody> {
        match self.body()? {
            Body::Fill(b) => Some(b),
            _ => None,
        }
    }

    /// Write saturation's intervals.
    pub fn wsat(&self) -> Option<&WsatBody> {
        match self.body()? {
            Body::Wsat(b) => Some(b),
            _ => None,
        }
    }

    /// A job file's jobs, in fio's shape (a `run` document's through [`fio::from_run_body`]).
    pub fn run(&self) -> Option<Cow<'_, FioOutput>> {
        match self {
            Source::Document(d) => match &d.body {
                Body::Run(b) => Some(Cow::Owned(fio::from_run_body(b))),
                _ => None,
            },
            Source::Fio(f) => Some(Cow::Borrowed(f)),
        }
    }

    /// What wrote it, for people: `age (protocol age-small)`, `bench (four-corner)`, `fill`,
    /// `wsat (QD32)`, `run (fio job file, flashlab)`, `fio job (fio JSON)`.
    pub fn command(&self) -> String {
        match self {
            Source::Document(d) => match &d.body {
                Body::Age(b) | Body::Bench(b) if b.protocol == "four-corner" => "bench (four-corner)".into(),
                Body::Age(b) | Body::Bench(b) => format!("age (protocol {})", b.protocol),
                Body::Wsat(b) => format!("wsat (QD{})", b.iodepth),
                Body::Run(_) => "run (fio job file, flashlab)".into(),
                other => other.command().to_string(),
            },
            Source::Fio(f) if f.profile().is_some() => "run (fio job file, flashlab)".into(),
            Source::Fio(_) => "fio job (fio JSON)".into(),
        }
    }

    /// `--target` as given (for fio's JSON of a simulated run: `sim:PROFILE`).
    pub fn target(&self) -> Option<String> {
        match self {
            Source::Document(d) => d.target.clone(),
            Source::Fio(f) => f.profile().map(|p| format!("sim:{p}")),
        }
    }

    /// The device profile: `name: description` from the header, else the device's name.
    pub fn profile(&self) -> Option<String> {
        match self {
            Source::Document(d) => match (&d.profile, &d.body) {
                (Some(p), _) => Some(format!("{}: {}", p.name, p.description)),
                (None, Body::Fill(b)) => {
                    b.result.get("device").and_then(|d| d.get("profile")).and_then(Value::as_str).map(str::to_string)
                }
                (None, Body::Wsat(b)) => b.device.profile.clone(),
                (None, Body::Run(b)) => b.device.as_ref().and_then(|d| d.profile.clone()),
                (None, _) => None,
            },
            Source::Fio(f) => f.profile().map(str::to_string),
        }
    }

    /// The seed of the run.
    pub fn seed(&self) -> Option<u64> {
        match self {
            Source::Document(d) => d.seed,
            Source::Fio(_) => None,
        }
    }

    /// `--discard` (online discard), where the file records it.
    pub fn discard(&self) -> Option<bool> {
        match self {
            Source::Document(d) => d.parameters.get("discard").and_then(Value::as_bool),
            Source::Fio(_) => None,
        }
    }

    /// The program and version that wrote it (`flashlab 0.1.0`, `fio-3.33`).
    pub fn writer(&self) -> Option<String> {
        match self {
            Source::Document(d) => d.flashlab_version.as_ref().map(|v| format!("flashlab {v}")),
            Source::Fio(f) => f.version.clone(),
        }
    }
}
