//! CSV: a table, every row, numbers at full precision (their shortest exact decimal form),
//! empty cells where nothing was measured; a column with a unit is headed `header (unit)`.
//! The one CSV writer of the workspace: a document's main table (`--csv`) and a sweep's
//! `results.csv` both go through [`csv_table`].

use crate::table::{Cell, Table};
use crate::Document;

/// The main table of `doc` as CSV (an empty string when the command has no table).
pub fn csv(doc: &Document) -> Result<String, crate::Error> {
    match doc.tables().first() {
        Some(t) => csv_table(t),
        None => Ok(String::new()),
    }
}

/// `t` as CSV: a header row, then its rows.
pub fn csv_table(t: &Table) -> Result<String, crate::Error> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    let err = |e: ::csv::Error| crate::Error::Csv(e.into());
    w.write_record(t.columns.iter().map(|c| {
        if c.unit.is_empty() {
            c.header.clone()
        } else {
            format!("{} ({})", c.header, c.unit)
        }
    }))
    .map_err(err)?;
    for r in &t.rows {
        w.write_record(r.iter().map(|c| match c {
            Cell::Num(v) => v.to_string(),
            Cell::Text(s) => s.clone(),
            Cell::Missing => String::new(),
        }))
        .map_err(err)?;
    }
    let bytes = w.into_inner().map_err(|e| crate::Error::Csv(e.into_error().into()))?;
    String::from_utf8(bytes).map_err(|e| crate::Error::Csv(e.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_precision_units_in_headers_and_empty_missing_cells() {
        let mut t = Table::new("t", &[("case", ""), ("p99", "us"), ("note", "")]);
        t.row(vec![Cell::Num(3.0), Cell::Num(0.1 + 0.2), Cell::Text("a, b".into())]);
        t.row(vec![Cell::Num(4.0), Cell::Missing, Cell::Missing]);
        assert_eq!(csv_table(&t).unwrap(), "case,p99 (us),note\n3,0.30000000000000004,\"a, b\"\n4,,\n");
    }
}
