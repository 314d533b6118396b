//! `results.csv`: the table as CSV, a header row of column names (settings named as in the
//! sweep file), numbers in their shortest exact decimal form, empty cells where a case has no
//! such number.

use crate::error::SweepError;
use crate::table::Table;

/// The table as CSV (a header row, then one row per case).
pub fn csv_bytes(t: &Table) -> Result<Vec<u8>, SweepError> {
    let err = |e: &dyn std::fmt::Display| SweepError::Encode { format: "csv", message: e.to_string() };
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(t.columns()).map_err(|e| err(&e))?;
    for r in &t.rows {
        let mut rec: Vec<String> = vec![r.case.to_string()];
        rec.extend(r.settings.iter().map(|v| v.as_ref().map_or(String::new(), |p| p.text())));
        rec.extend(r.metrics.iter().map(|v| v.map_or(String::new(), |x| x.to_string())));
        if t.any_error {
            rec.push(r.error.clone().unwrap_or_default());
        }
        w.write_record(&rec).map_err(|e| err(&e))?;
    }
    w.into_inner().map_err(|e| err(&e))
}
