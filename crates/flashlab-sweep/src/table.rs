//! The sweep's table: one row per case — its index, the value of each varying setting, the
//! headline numbers of its results — built from the stored case documents only, so every
//! backend (threads, Ray) and every resumed run writes the same table.

use crate::error::SweepError;
use crate::headline::headline;
use crate::spec::{Param, Spec};
use crate::store;
use serde_json::Value;
use std::path::Path;

/// The type of a settings column: the narrowest that holds every value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ColumnType {
    /// Every value is an integer.
    Int,
    /// Every value is a number.
    Float,
    /// Every value is `true` or `false`.
    Bool,
    /// Anything else.
    Text,
}

/// The sweep's table: one row per case, its varying settings and its metrics.
#[derive(Debug, Clone)]
pub struct Table {
    /// The varying settings, named as in the sweep file, with their types.
    pub settings: Vec<(String, ColumnType)>,
    /// The metric columns (`p99_us`, `waf`, ...), in order.
    pub metrics: Vec<String>,
    /// One row per case, in case order.
    pub rows: Vec<Row>,
    /// Whether any case failed (the table then has an `error` column).
    pub any_error: bool,
}

/// One case's row.
#[derive(Debug, Clone)]
pub struct Row {
    /// The case's number.
    pub case: usize,
    /// Its value of each varying setting (`None` where it has none).
    pub settings: Vec<Option<Param>>,
    /// Its value of each metric (`None` where the run has none).
    pub metrics: Vec<Option<f64>>,
    /// Why the case failed, if it did.
    pub error: Option<String>,
}

/// A case's row before the metric columns are known: index, settings, headline, error.
type RawRow = (usize, Vec<Option<Param>>, Vec<(String, Option<f64>)>, Option<String>);

/// Build the table from `out/cases/`; every case must be finished.
pub fn build(out: &Path, spec: &Spec) -> Result<Table, SweepError> {
    let mut metrics: Vec<String> = Vec::new();
    let mut raw: Vec<RawRow> = Vec::new();
    for case in &spec.cases {
        let doc = store::finished(out, spec, case).ok_or_else(|| SweepError::Case {
            case: case.index,
            message: format!("no results in {}", store::case_path(out, spec, case.index).display()),
        })?;
        let error = doc.get("error").and_then(Value::as_str).map(str::to_string);
        let h = headline(&doc);
        for (name, _) in &h {
            if !metrics.contains(name) {
                metrics.push(name.clone());
            }
        }
        let settings = spec.columns.iter().map(|c| case.get(c).cloned()).collect();
        raw.push((case.index, settings, h, error));
    }
    let settings = spec
        .columns
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let vals = raw.iter().filter_map(|r| r.1[i].as_ref());
            (name.clone(), column_type(vals))
        })
        .collect();
    let any_error = raw.iter().any(|r| r.3.is_some());
    let rows = raw
        .into_iter()
        .map(|(case, settings, h, error)| {
            let metrics = metrics.iter().map(|m| h.iter().find(|(n, _)| n == m).and_then(|(_, v)| *v)).collect();
            Row { case, settings, metrics, error }
        })
        .collect();
    Ok(Table { settings, metrics, rows, any_error })
}

fn column_type<'a>(vals: impl Iterator<Item = &'a Param>) -> ColumnType {
    let mut t: Option<ColumnType> = None;
    for v in vals {
        let this = match v {
            Param::Int(_) => ColumnType::Int,
            Param::Float(_) => ColumnType::Float,
            Param::Bool(_) => ColumnType::Bool,
            Param::Str(_) => ColumnType::Text,
        };
        t = Some(match (t, this) {
            (None, x) => x,
            (Some(a), b) if a == b => a,
            (Some(ColumnType::Int), ColumnType::Float) | (Some(ColumnType::Float), ColumnType::Int) => {
                ColumnType::Float
            }
            _ => ColumnType::Text,
        });
    }
    t.unwrap_or(ColumnType::Text)
}

impl Table {
    /// Every column name, in table order: `case`, the settings, the metrics, `error` if any.
    pub fn columns(&self) -> Vec<String> {
        let mut c = vec!["case".to_string()];
        c.extend(self.settings.iter().map(|(n, _)| n.clone()));
        c.extend(self.metrics.iter().cloned());
        if self.any_error {
            c.push("error".into());
        }
        c
    }

    /// `{"columns": [...], "rows": [[...], ...]}`, values typed, null where missing.
    pub fn to_json(&self) -> Value {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                let mut v = vec![Value::from(r.case)];
                v.extend(r.settings.iter().map(|p| p.as_ref().map_or(Value::Null, Param::to_json)));
                v.extend(r.metrics.iter().map(|m| m.map_or(Value::Null, Value::from)));
                if self.any_error {
                    v.push(r.error.as_deref().map_or(Value::Null, Value::from));
                }
                Value::Array(v)
            })
            .collect();
        serde_json::json!({"columns": self.columns(), "rows": rows})
    }
}
