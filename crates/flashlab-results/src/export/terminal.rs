//! The terminal: a table drawn with comfy-table within [`WIDTH`] columns (headers and cells
//! wrap when the columns do not fit), the unit under each header, numbers right-aligned.

use crate::table::{Cell, Table};
use comfy_table::{presets, CellAlignment, ColumnConstraint, ContentArrangement, Width};

/// The widest line a table may have.
pub const WIDTH: u16 = 80;

/// The table as text for a terminal, at most [`WIDTH`] columns wide, ending in a newline.
pub fn terminal(t: &Table) -> String {
    let mut ct = comfy_table::Table::new();
    ct.load_preset(presets::NOTHING).set_content_arrangement(ContentArrangement::Dynamic).set_width(WIDTH).set_header(
        t.columns.iter().map(|c| {
            let text = if c.unit.is_empty() { c.header.clone() } else { format!("{}\n{}", c.header, c.unit) };
            comfy_table::Cell::new(text)
        }),
    );
    for r in &t.rows {
        ct.add_row(r.iter().enumerate().map(|(i, c)| comfy_table::Cell::new(t.text(i, c))));
    }
    // Columns of numbers are right-aligned, columns of words left-aligned.
    let looks_numeric = |c: &Cell| match c {
        Cell::Num(_) => true,
        Cell::Text(s) => s.trim_start_matches('-').starts_with(|ch: char| ch.is_ascii_digit() || ch == '.'),
        Cell::Missing => false,
    };
    let numeric: Vec<bool> =
        (0..t.columns.len()).map(|i| t.rows.iter().any(|r| r.get(i).is_some_and(looks_numeric))).collect();
    for (i, col) in ct.column_iter_mut().enumerate() {
        col.set_padding((0, 1));
        if i > 0 && numeric.get(i).copied().unwrap_or(false) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
    // The first column (labels: a step, a job, a policy) is not wrapped below its longest
    // label, up to 24 characters (the width counts the padding of one space); the columns of
    // numbers wrap their headers instead.
    let longest = t.rows.iter().filter_map(|r| r.first()).map(|c| t.text(0, c).chars().count()).max().unwrap_or(0);
    if let Some(c) = ct.column_mut(0) {
        c.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(longest.clamp(6, 24) as u16 + 1)));
    }
    let mut s: String = ct.lines().map(|l| l.trim_end().to_string() + "\n").collect();
    if t.rows.is_empty() && t.columns.is_empty() {
        s.clear();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wide_table_fits_80_columns() {
        let cols: Vec<(String, String)> =
            (0..12).map(|i| (format!("a long header number {i}"), "MB/s".to_string())).collect();
        let cols: Vec<(&str, &str)> = cols.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let mut t = Table::new("wide", &cols);
        t.row((0..12).map(|i| Cell::Num(1234.5 * f64::from(i))).collect());
        let text = terminal(&t);
        for l in text.lines() {
            assert!(l.chars().count() <= 80, "{} columns: {l}", l.chars().count());
        }
        assert!(text.contains("12345"), "{text}");
    }

    #[test]
    fn labels_are_not_wrapped() {
        let cols: Vec<(&str, &str)> =
            std::iter::once(("step", "")).chain(std::iter::repeat_n(("seq read", "MB/s"), 10)).collect();
        let mut t = Table::new("age", &cols);
        for label in ["new", "after fstrim + idle", "/data before the fill"] {
            t.row(
                std::iter::once(Cell::from(label)).chain((0..10).map(|i| Cell::Num(0.0453 * f64::from(i)))).collect(),
            );
        }
        let text = terminal(&t);
        for label in ["after fstrim + idle", "/data before the fill"] {
            assert!(text.lines().any(|l| l.starts_with(label)), "{label} wrapped:\n{text}");
        }
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    }
}
