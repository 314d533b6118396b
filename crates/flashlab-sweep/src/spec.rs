//! The sweep file and the cases it expands to.
//!
//! ```toml
//! protocol = "four-corner"        # fixed settings: any key below, for every case
//! [axes]                          # swept: the Cartesian product, the last axis fastest
//! profile = ["toy", "emmc-16g"]
//! "ftl.spare_factor" = [0.07, 0.20]   # a dotted key overrides that field of the profile
//! seed = [1, 2, 3]
//! [[case]]                        # explicit cases (each one is crossed with the axes)
//! fs = "ext4"
//! policy = "none"
//! ```
//!
//! Settings (fixed, an axis, or a key of a `[[case]]`): `profile` (a built-in name or a
//! profile TOML file), `seed`, `fs` (`plain|ext4|f2fs[,option...]`, the profile's `[system]`
//! table otherwise), any dotted profile field (`ftl.gc_policy`, `system.filesystem`...), and
//! what runs: `protocol` (a built-in protocol or a protocol TOML file; `rand_io` sets the bytes
//! of each random four-corner test), `job` (an fio job file, run as `flashlab run` runs it), or `usage` (a life run: a usage
//! preset or file, with `policy`, `duration`, `scale`, `sample_days`, `probe_every`).
//! Relative paths are read from the sweep file's directory. Every column of the results table
//! is named as the key is written in the file.

use crate::error::SweepError;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use toml_edit::{ImDocument, Item};

/// The settings a case can have besides dotted profile fields.
pub const KEYS: &[&str] = &[
    "profile",
    "seed",
    "fs",
    "protocol",
    "rand_io",
    "job",
    "usage",
    "policy",
    "duration",
    "scale",
    "sample_days",
    "probe_every",
];

/// One value of a setting.
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    /// An integer.
    Int(i64),
    /// A number with a fraction.
    Float(f64),
    /// Text (a profile, filesystem, protocol name...).
    Str(String),
    /// `true` or `false`.
    Bool(bool),
}

impl Param {
    /// The value as JSON.
    pub fn to_json(&self) -> Value {
        match self {
            Param::Int(i) => Value::from(*i),
            Param::Float(f) => Value::from(*f),
            Param::Str(s) => Value::from(s.as_str()),
            Param::Bool(b) => Value::from(*b),
        }
    }

    /// The value as TOML (to set a profile field).
    pub fn to_toml(&self) -> toml::Value {
        match self {
            Param::Int(i) => toml::Value::Integer(*i),
            Param::Float(f) => toml::Value::Float(*f),
            Param::Str(s) => toml::Value::String(s.clone()),
            Param::Bool(b) => toml::Value::Boolean(*b),
        }
    }

    /// As a table cell: integers and strings as written, floats in their shortest exact form.
    pub fn text(&self) -> String {
        match self {
            Param::Int(i) => i.to_string(),
            Param::Float(f) => f.to_string(),
            Param::Str(s) => s.clone(),
            Param::Bool(b) => b.to_string(),
        }
    }

    fn from_toml(v: &toml_edit::Value) -> Option<Param> {
        match v {
            toml_edit::Value::Integer(i) => Some(Param::Int(*i.value())),
            toml_edit::Value::Float(f) => Some(Param::Float(*f.value())),
            toml_edit::Value::String(s) => Some(Param::Str(s.value().clone())),
            toml_edit::Value::Boolean(b) => Some(Param::Bool(*b.value())),
            _ => None,
        }
    }
}

/// One case: every setting, in file order (fixed ones first, then the case's, then the axes').
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// The case's number (0-based), which names its `cases/NNNN.json`.
    pub index: usize,
    /// (key, value) of every setting.
    pub settings: Vec<(String, Param)>,
}

impl Case {
    /// The value of setting `key` (the last one given wins).
    pub fn get(&self, key: &str) -> Option<&Param> {
        self.settings.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The settings as a JSON object (stored with the case's results, compared on resume).
    pub fn settings_json(&self) -> Value {
        Value::Object(self.settings.iter().map(|(k, v)| (k.clone(), v.to_json())).collect::<Map<_, _>>())
    }
}

/// A parsed sweep file.
#[derive(Debug, Clone)]
pub struct Spec {
    /// What errors call the file.
    pub source: String,
    /// The file's text (kept so that a remote worker gets the same sweep).
    pub text: String,
    /// Where relative paths in it are read from.
    pub dir: PathBuf,
    /// The columns that vary: keys of `[[case]]` tables, then the axes, in file order.
    pub columns: Vec<String>,
    /// Every case, in order.
    pub cases: Vec<Case>,
}

impl Spec {
    /// Read and parse a sweep file.
    pub fn load(path: &Path) -> Result<Spec, SweepError> {
        let text = std::fs::read_to_string(path).map_err(SweepError::io(path))?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Spec::parse(&path.display().to_string(), &text, &dir)
    }

    /// Parse sweep-file text; `source` names it in errors, `dir` is where its relative paths
    /// are read from.
    pub fn parse(source: &str, text: &str, dir: &Path) -> Result<Spec, SweepError> {
        // An error at the line of `span` (the whole file without one).
        let at = |span: Option<std::ops::Range<usize>>, message: String| SweepError::File {
            file: source.to_string(),
            line: span.map(|s| line_of(text, s.start)),
            message,
        };
        let doc = ImDocument::parse(text).map_err(|e| at(e.span(), e.message().trim().to_string()))?;
        let scalar = |key: &str, item: &Item, span: Option<std::ops::Range<usize>>| -> Result<Param, SweepError> {
            item.as_value()
                .and_then(Param::from_toml)
                .ok_or_else(|| at(span.clone(), format!("'{key}': expected a string, number or boolean")))
        };
        let check_key = |key: &str, span: Option<std::ops::Range<usize>>| -> Result<(), SweepError> {
            if KEYS.contains(&key) || (key.contains('.') && !key.starts_with('.') && !key.ends_with('.')) {
                Ok(())
            } else {
                Err(at(
                    span,
                    format!(
                        "unknown setting '{key}' (expected one of {}, or a dotted profile field such as ftl.spare_factor)",
                        KEYS.join(", ")
                    ),
                ))
            }
        };
        let mut fixed = Vec::new();
        let mut axes: Vec<(String, Vec<Param>)> = Vec::new();
        let mut explicit: Vec<Vec<(String, Param)>> = Vec::new();
        for (key, item) in doc.as_table().iter() {
            let span = doc.as_table().key(key).and_then(|k| k.span());
            match key {
                "name" | "description" => {}
                "axes" => {
                    let t = item.as_table_like().ok_or_else(|| at(span.clone(), "'axes' must be a table".into()))?;
                    for (k, v) in t.iter() {
                        let kspan = t.key(k).and_then(|x| x.span()).or(span.clone());
                        check_key(k, kspan.clone())?;
                        let arr = v
                            .as_array()
                            .ok_or_else(|| at(kspan.clone(), format!("axis '{k}': expected a list of values")))?;
                        if arr.is_empty() {
                            return Err(at(kspan, format!("axis '{k}' has no values")));
                        }
                        let vals = arr
                            .iter()
                            .map(|v| {
                                Param::from_toml(v).ok_or_else(|| {
                                    at(kspan.clone(), format!("axis '{k}': expected strings, numbers or booleans"))
                                })
                            })
                            .collect::<Result<Vec<_>, _>>()?;
                        axes.push((k.to_string(), vals));
                    }
                }
                "case" => {
                    let arr = item
                        .as_array_of_tables()
                        .ok_or_else(|| at(span.clone(), "'case' must be [[case]] tables".into()))?;
                    for t in arr.iter() {
                        let mut c = Vec::new();
                        for (k, v) in t.iter() {
                            let kspan = t.key(k).and_then(|x| x.span()).or(t.span());
                            check_key(k, kspan.clone())?;
                            c.push((k.to_string(), scalar(k, v, kspan)?));
                        }
                        explicit.push(c);
                    }
                }
                _ => {
                    check_key(key, span.clone())?;
                    fixed.push((key.to_string(), scalar(key, item, span)?));
                }
            }
        }
        let mut columns: Vec<String> = Vec::new();
        for c in &explicit {
            for (k, _) in c {
                if !columns.contains(k) {
                    columns.push(k.clone());
                }
            }
        }
        for (k, _) in &axes {
            if columns.contains(k) {
                return Err(at(None, format!("'{k}' is both an axis and a key of a [[case]]")));
            }
            columns.push(k.clone());
        }
        if explicit.is_empty() {
            explicit.push(Vec::new());
        }
        let mut cases = Vec::new();
        for c in &explicit {
            let n: usize = axes.iter().map(|(_, v)| v.len()).product();
            for i in 0..n {
                let mut settings = fixed.clone();
                settings.extend(c.iter().cloned());
                // Mixed radix: the last axis changes fastest.
                let mut rest = i;
                let mut picks = vec![0; axes.len()];
                for (j, (_, vals)) in axes.iter().enumerate().rev() {
                    picks[j] = rest % vals.len();
                    rest /= vals.len();
                }
                for (j, (k, vals)) in axes.iter().enumerate() {
                    settings.push((k.clone(), vals[picks[j]].clone()));
                }
                cases.push(Case { index: cases.len(), settings });
            }
        }
        Ok(Spec { source: source.to_string(), text: text.to_string(), dir: dir.to_path_buf(), columns, cases })
    }

    /// A path written in the file, read from the file's directory when relative.
    pub fn path(&self, p: &str) -> PathBuf {
        let p = Path::new(p);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.dir.join(p)
        }
    }
}

fn line_of(text: &str, byte: usize) -> usize {
    text[..byte.min(text.len())].matches('\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(t: &str) -> Result<Spec, String> {
        Spec::parse("s.toml", t, Path::new(".")).map_err(|e| e.to_string())
    }

    #[test]
    fn the_product_runs_the_last_axis_fastest() {
        let s = parse("protocol = \"four-corner\"\n[axes]\nprofile = [\"toy\", \"emmc-16g\"]\n\"ftl.spare_factor\" = [0.07, 0.2]\nseed = [1, 2, 3]\n").unwrap();
        assert_eq!(s.columns, ["profile", "ftl.spare_factor", "seed"]);
        assert_eq!(s.cases.len(), 12);
        assert_eq!(s.cases[1].get("seed"), Some(&Param::Int(2)));
        assert_eq!(s.cases[3].get("ftl.spare_factor"), Some(&Param::Float(0.2)));
        assert_eq!(s.cases[6].get("profile"), Some(&Param::Str("emmc-16g".into())));
        assert_eq!(s.cases[11].get("protocol"), Some(&Param::Str("four-corner".into())));
    }

    #[test]
    fn explicit_cases_cross_the_axes() {
        let s = parse("[[case]]\nfs = \"ext4\"\n[[case]]\nfs = \"f2fs\"\npolicy = \"none\"\n[axes]\nseed = [1, 2]\n")
            .unwrap();
        assert_eq!(s.columns, ["fs", "policy", "seed"]);
        assert_eq!(s.cases.len(), 4);
        assert_eq!(s.cases[2].get("fs"), Some(&Param::Str("f2fs".into())));
        assert_eq!(s.cases[0].get("policy"), None);
    }

    #[test]
    fn bad_input_names_the_line_and_key() {
        let e = parse("protocol = \"four-corner\"\n[axes]\nsede = [1]\n").unwrap_err();
        assert!(e.starts_with("s.toml:3:") && e.contains("sede"), "{e}");
        let e = parse("[axes]\nseed = 1\n").unwrap_err();
        assert!(e.contains("s.toml:2") && e.contains("list"), "{e}");
        let e = parse("[axes]\nseed = []\n").unwrap_err();
        assert!(e.contains("no values"), "{e}");
        let e = parse("seed = [\n").unwrap_err();
        assert!(e.starts_with("s.toml:"), "{e}");
    }
}
