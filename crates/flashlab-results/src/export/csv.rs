//! CSV: the document's main table (its first), every row, numbers at full precision; a column
//! with a unit is headed `header (unit)`.

use crate::table::Cell;
use crate::Document;

/// The main table of `doc` as CSV (an empty string when the command has no table).
pub fn csv(doc: &Document) -> Result<String, crate::Error> {
    let tables = doc.tables();
    let Some(t) = tables.first() else { return Ok(String::new()) };
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
