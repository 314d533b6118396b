//! `results.csv`: the table as CSV, a header row of column names (settings named as in the
//! sweep file), numbers in their shortest exact decimal form, empty cells where a case has no
//! such number. Written by the workspace's one CSV writer (`flashlab_results::export`).

use crate::error::SweepError;
use crate::table::Table;
use flashlab_results::table::{Cell, Table as CsvTable};

/// The table as CSV (a header row, then one row per case).
pub fn csv_bytes(t: &Table) -> Result<Vec<u8>, SweepError> {
    let columns = t.columns();
    let heads: Vec<(&str, &str)> = columns.iter().map(|c| (c.as_str(), "")).collect();
    let mut out = CsvTable::new("results", &heads);
    for r in &t.rows {
        let mut row: Vec<Cell> = vec![Cell::Num(r.case as f64)];
        row.extend(r.settings.iter().map(|v| v.as_ref().map(|p| p.text()).into()));
        row.extend(r.metrics.iter().map(|v| (*v).into()));
        if t.any_error {
            row.push(r.error.clone().into());
        }
        out.row(row);
    }
    flashlab_results::export::csv_table(&out)
        .map(String::into_bytes)
        .map_err(|e| SweepError::Encode { format: "csv", message: e.to_string() })
}
