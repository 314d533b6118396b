//! A plain text table with right-aligned numeric columns and a units row.

pub struct Table {
    headers: Vec<String>,
    units: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// Columns as (header, unit); the first column is left-aligned.
    pub fn new(columns: &[(&str, &str)]) -> Table {
        Table {
            headers: columns.iter().map(|c| c.0.to_string()).collect(),
            units: columns.iter().map(|c| c.1.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub fn render(&self) -> String {
        let n = self.headers.len();
        let mut width = vec![0; n];
        for r in std::iter::once(&self.headers).chain(std::iter::once(&self.units)).chain(&self.rows) {
            for (i, c) in r.iter().enumerate().take(n) {
                width[i] = width[i].max(c.chars().count());
            }
        }
        let line = |r: &Vec<String>| {
            let mut s = String::new();
            for (i, c) in r.iter().enumerate().take(n) {
                if i == 0 {
                    s.push_str(&format!("{c:<w$}", w = width[0]));
                } else {
                    s.push_str(&format!("  {c:>w$}", w = width[i]));
                }
            }
            s.trim_end().to_string() + "\n"
        };
        let mut out = line(&self.headers);
        if self.units.iter().any(|u| !u.is_empty()) {
            out.push_str(&line(&self.units));
        }
        for r in &self.rows {
            out.push_str(&line(r));
        }
        out
    }
}

/// A number with `digits` significant figures, not scientific (0.112, 7.62, 25.2, 1230).
pub fn sig(v: f64, digits: usize) -> String {
    flashlab_report::num::sig(v, digits)
}
