//! The terminal: a table drawn with comfy-table within [`WIDTH`] columns (headers and cells
//! wrap when the columns do not fit), the unit under each header, numbers right-aligned; and
//! [`wrap`], which breaks a command's prose (titles, notes) at the same width.

use crate::table::{Cell, Table};
use comfy_table::{presets, CellAlignment, ColumnConstraint, ContentArrangement, Width};

/// The widest line a table may have.
pub const WIDTH: u16 = 80;

/// The table as text for a terminal, at most [`WIDTH`] columns wide, ending in a newline.
///
/// Headers wrap between words, never inside one: no column is narrower than the longest word
/// of its header, or of a cell, or the longest piece of its unit (a unit such as `min/mean/max`
/// breaks after a `/`). Only a table that cannot fit 80 columns that way has its words split,
/// as comfy-table must.
pub fn terminal(t: &Table) -> String {
    let word = |s: &str| s.split_whitespace().map(|w| w.chars().count()).max().unwrap_or(0);
    let unit_piece = |s: &str| s.split_inclusive('/').map(|w| w.chars().count()).max().unwrap_or(0);
    // The first column (labels: a step, a job, a policy) is not wrapped below its longest
    // label, up to 24 characters.
    let longest = t.rows.iter().filter_map(|r| r.first()).map(|c| t.text(0, c).chars().count()).max().unwrap_or(0);
    let least_with = |unit_width: &dyn Fn(&str) -> usize| -> Vec<usize> {
        let mut least: Vec<usize> = t
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let cells =
                    t.rows.iter().filter_map(|r| r.get(i)).map(|cell| word(&t.text(i, cell))).max().unwrap_or(0);
                word(&c.header).max(unit_width(&c.unit)).max(cells)
            })
            .collect();
        if let Some(first) = least.first_mut() {
            *first = (*first).max(longest.clamp(6, 24));
        }
        least
    };
    // One space after every column but the last (the padding; trailing spaces are trimmed).
    let fit = |least: &[usize]| least.iter().sum::<usize>() + least.len().saturating_sub(1) <= usize::from(WIDTH);
    // Units whole (`MB/s`) when that fits, else broken after their slashes.
    let mut least = least_with(&|u: &str| word(u));
    if !fit(&least) {
        least = least_with(&unit_piece);
    }
    let fits = fit(&least);
    let mut ct = comfy_table::Table::new();
    ct.load_preset(presets::NOTHING).set_content_arrangement(ContentArrangement::Dynamic).set_width(WIDTH).set_header(
        t.columns.iter().enumerate().map(|(i, c)| {
            let text = if c.unit.is_empty() {
                c.header.clone()
            } else {
                format!("{}\n{}", c.header, break_unit(&c.unit, if fits { least[i] } else { usize::MAX }))
            };
            comfy_table::Cell::new(text)
        }),
    );
    for r in &t.rows {
        ct.add_row(r.iter().enumerate().map(|(i, c)| comfy_table::Cell::new(t.text(i, c))));
    }
    // Columns of numbers are right-aligned, columns of words left-aligned: a column is numeric
    // when every cell in it that is not missing reads as a number ("12", "-3.5", "+1.2%",
    // "4/5"); one cell of words (a description that starts with "16 GB") keeps it left.
    let looks_numeric = |c: &Cell| match c {
        Cell::Num(_) | Cell::Missing => true,
        Cell::Text(s) => {
            let s = s.trim_start_matches(['-', '+']);
            s.starts_with(|ch: char| ch.is_ascii_digit() || ch == '.')
                && s.chars().all(|ch| ch.is_ascii_digit() || ".%/KMGx ".contains(ch))
        }
    };
    let numeric: Vec<bool> = (0..t.columns.len())
        .map(|i| {
            t.rows.iter().any(|r| r.get(i).is_some_and(|c| !matches!(c, Cell::Missing)))
                && t.rows.iter().all(|r| r.get(i).is_none_or(looks_numeric))
        })
        .collect();
    let last = t.columns.len().saturating_sub(1);
    for (i, col) in ct.column_iter_mut().enumerate() {
        col.set_padding((0, if i == last { 0 } else { 1 }));
        if i > 0 && numeric.get(i).copied().unwrap_or(false) {
            col.set_cell_alignment(CellAlignment::Right);
        }
        // The lower bound counts the column's padding.
        let pad = usize::from(i != last);
        let w = if fits {
            least[i]
        } else if i == 0 {
            longest.clamp(6, 24)
        } else {
            continue;
        };
        col.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed((w + pad) as u16)));
    }
    let mut s: String = ct.lines().map(|l| l.trim_end().to_string() + "\n").collect();
    if t.rows.is_empty() && t.columns.is_empty() {
        s.clear();
    }
    s
}

/// A unit on lines of at most `width` characters, broken after a `/` (`min/`, `mean/max`).
fn break_unit(unit: &str, width: usize) -> String {
    if unit.chars().count() <= width {
        return unit.to_string();
    }
    let mut lines: Vec<String> = vec![String::new()];
    for piece in unit.split_inclusive('/') {
        let cur = lines.last_mut().expect("one line at least");
        if !cur.is_empty() && cur.chars().count() + piece.chars().count() > width {
            lines.push(piece.to_string());
        } else {
            cur.push_str(piece);
        }
    }
    lines.join("\n")
}

/// `text` with every line wider than [`WIDTH`] broken at spaces; a continuation keeps the
/// line's indent plus two spaces. A word wider than the line (a long path) is not split.
/// ANSI colour codes take no width.
pub fn wrap(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        if textwrap::core::display_width(body) <= usize::from(WIDTH) {
            out.push_str(line);
            continue;
        }
        let indent: String = body.chars().take_while(|c| *c == ' ').collect();
        let rest = format!("{indent}  ");
        let o = textwrap::Options::new(usize::from(WIDTH))
            .initial_indent(&indent)
            .subsequent_indent(&rest)
            .break_words(false)
            .word_splitter(textwrap::WordSplitter::NoHyphenation);
        for l in textwrap::wrap(body.trim_start(), o) {
            out.push_str(l.trim_end());
            out.push('\n');
        }
        if !line.ends_with('\n') {
            out.pop();
        }
    }
    out
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
    fn words_stay_left_numbers_go_right() {
        let mut t = Table::new("p", &[("name", ""), ("size", "GB"), ("description", "")]);
        t.row(vec!["a".into(), Cell::Num(16.0), "16 GB eMMC, MLC".into()]);
        t.row(vec!["bb".into(), Cell::Num(256.0), "plausible NVMe".into()]);
        let text = terminal(&t);
        assert!(text.lines().any(|l| l.ends_with(" 16 GB eMMC, MLC")), "{text}");
        assert!(text.lines().any(|l| l.contains("bb      256 plausible")), "numbers right-aligned:\n{text}");
        let plausible = text.lines().find(|l| l.contains("plausible")).unwrap();
        let first = text.lines().find(|l| l.contains("16 GB eMMC")).unwrap();
        assert_eq!(plausible.find("plausible"), first.find("16 GB eMMC"), "left-aligned:\n{text}");
    }

    #[test]
    fn prose_wraps_with_its_indent() {
        let long = format!("  note: {}", "word ".repeat(40));
        let w = wrap(&format!("short\n{long}\n"));
        assert!(w.starts_with("short\n  note: word"), "{w}");
        for l in w.lines().skip(2) {
            assert!(l.starts_with("    word"), "{w}");
        }
        assert!(w.lines().all(|l| l.chars().count() <= 80), "{w}");
        assert_eq!(w.split_whitespace().count(), 42);
        let path = format!("results written to /{}", "x".repeat(90));
        assert_eq!(wrap(&path), format!("results written to\n  /{}", "x".repeat(90)));
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

    #[test]
    fn units_break_after_a_slash() {
        assert_eq!(break_unit("min/mean/max", 8), "min/\nmean/max");
        assert_eq!(break_unit("min/mean/max", 5), "min/\nmean/\nmax");
        assert_eq!(break_unit("MB/s", 3), "MB/\ns");
        assert_eq!(break_unit("us", 1), "us");
    }
}
