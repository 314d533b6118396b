//! Markdown: a heading with the command and target, then every table as a pipe table with its
//! title, numbers as the terminal shows them.

use crate::Document;

/// The document as Markdown.
pub fn markdown(doc: &Document) -> String {
    let mut out = format!("# flashlab {}", doc.command());
    if let Some(t) = &doc.target {
        out.push_str(&format!(" on `{t}`"));
    }
    out.push_str("\n\n");
    for t in doc.tables() {
        if !t.title.is_empty() {
            out.push_str(&format!("## {}\n\n", t.title));
        }
        let head: Vec<String> = t
            .columns
            .iter()
            .map(|c| if c.unit.is_empty() { c.header.clone() } else { format!("{} ({})", c.header, c.unit) })
            .collect();
        out.push_str(&format!("| {} |\n", head.join(" | ")));
        let align: Vec<&str> = (0..head.len()).map(|i| if i == 0 { ":--" } else { "--:" }).collect();
        out.push_str(&format!("|{}|\n", align.join("|")));
        for r in &t.rows {
            let cells: Vec<String> = r.iter().enumerate().map(|(i, c)| t.text(i, c).replace('|', "\\|")).collect();
            out.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
        out.push('\n');
    }
    out
}
