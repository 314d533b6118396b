//! The tables a document shows: columns (header, unit, number format) and rows of cells. The
//! terminal, CSV and Markdown exporters all draw these, so a command's table is defined once.

/// How a column's numbers are written for people (CSV keeps full precision).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// This many significant figures, never scientific (0.112, 7.62, 25.2, 1230).
    Sig(usize),
    /// This many decimals.
    Fixed(usize),
}

/// One column: its header, its unit (empty: none) and how its numbers are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The header's words (its first line in a terminal).
    pub header: String,
    /// The unit, shown under the header (empty: none).
    pub unit: String,
    /// How the column's numbers are written for people.
    pub format: Format,
}

/// One cell: a number, a text, or nothing measured.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// A number, written in its column's format.
    Num(f64),
    /// Words, written as they are.
    Text(String),
    /// Nothing measured; shown as `-`, an empty CSV cell.
    Missing,
}

impl From<f64> for Cell {
    fn from(v: f64) -> Cell {
        Cell::Num(v)
    }
}

impl From<u64> for Cell {
    fn from(v: u64) -> Cell {
        Cell::Num(v as f64)
    }
}

impl From<u32> for Cell {
    fn from(v: u32) -> Cell {
        Cell::Num(f64::from(v))
    }
}

impl From<String> for Cell {
    fn from(v: String) -> Cell {
        Cell::Text(v)
    }
}

impl From<&str> for Cell {
    fn from(v: &str) -> Cell {
        Cell::Text(v.to_string())
    }
}

impl<T: Into<Cell>> From<Option<T>> for Cell {
    fn from(v: Option<T>) -> Cell {
        v.map_or(Cell::Missing, Into::into)
    }
}

/// A table: an optional title, columns, rows, and notes printed under it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    /// A name for the table (a CSV file's section, a Markdown heading).
    pub title: String,
    /// The columns, left to right.
    pub columns: Vec<Column>,
    /// The rows, each with one cell per column.
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// A table named `title` with columns (header, unit), numbers to 3 significant figures.
    pub fn new(title: &str, columns: &[(&str, &str)]) -> Table {
        Table {
            title: title.to_string(),
            columns: columns
                .iter()
                .map(|(h, u)| Column { header: h.to_string(), unit: u.to_string(), format: Format::Sig(3) })
                .collect(),
            rows: Vec::new(),
        }
    }

    /// Set the number format of column `i`.
    pub fn format(mut self, i: usize, f: Format) -> Table {
        if let Some(c) = self.columns.get_mut(i) {
            c.format = f;
        }
        self
    }

    /// Append a row (cells in column order).
    pub fn row(&mut self, cells: Vec<Cell>) {
        self.rows.push(cells);
    }

    /// The cell as people read it, in its column's format (`-` when missing).
    pub fn text(&self, col: usize, cell: &Cell) -> String {
        match cell {
            Cell::Num(v) => match self.columns.get(col).map_or(Format::Sig(3), |c| c.format) {
                Format::Sig(d) => sig(*v, d),
                Format::Fixed(d) => format!("{v:.d$}"),
            },
            Cell::Text(t) => t.clone(),
            Cell::Missing => "-".into(),
        }
    }
}

/// A number with `digits` significant figures, not scientific (0.112, 7.62, 25.2, 1230).
pub fn sig(v: f64, digits: usize) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let mag = v.abs().log10().floor() as i32;
    let decimals = (digits as i32 - 1 - mag).max(0) as usize;
    format!("{v:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sig_figures() {
        assert_eq!(sig(0.11234, 3), "0.112");
        assert_eq!(sig(1234.5, 3), "1234");
        assert_eq!(sig(7.6249, 3), "7.62");
    }

    #[test]
    fn cells_in_their_column_format() {
        let t = Table::new("t", &[("a", ""), ("b", "")]).format(1, Format::Fixed(2));
        assert_eq!(t.text(0, &Cell::Num(4.56789)), "4.57");
        assert_eq!(t.text(1, &Cell::Num(3.0)), "3.00");
        assert_eq!(t.text(1, &Cell::Missing), "-");
    }
}
