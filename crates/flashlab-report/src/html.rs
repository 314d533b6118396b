//! The workspace's one HTML writer: a self-contained page (inline CSS and SVG, no script, no
//! link, no web font, no external URL) of sections, each a chart with the tables of the
//! numbers it shows. The report of results files, a sweep's report, `life --report` and
//! `breakdown --output FILE.html` are all drawn by [`render`].

use crate::Input;

/// A table beside a chart: every cell already written as people read it.
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// The table's caption (empty: none).
    pub caption: String,
    /// (header, unit); a second header row shows the units when any column has one.
    pub columns: Vec<(String, String)>,
    /// The rows, each with one cell per column.
    pub rows: Vec<Vec<String>>,
}

/// One section of a page: a chart, the tables of its numbers, and lines of notes.
#[derive(Debug, Clone, Default)]
pub struct Section {
    /// The section's anchor and the chart's file stem (`four-corners`).
    pub stem: String,
    /// The section's heading.
    pub title: String,
    /// What the chart shows, in a sentence or two.
    pub caption: String,
    /// The chart, an SVG document (its XML prolog is dropped inline).
    pub svg: String,
    /// The tables beside the chart.
    pub tables: Vec<Table>,
    /// Lines shown under the tables, under a title each (a protocol's log).
    pub notes: Vec<(String, Vec<String>)>,
}

/// A whole page.
#[derive(Debug, Clone, Default)]
pub struct Page {
    /// The page's title (the browser's tab) and its heading.
    pub title: String,
    /// What comes under the heading, as HTML (escape text with [`esc`]).
    pub intro: String,
    /// The sections, in order; with more than one, the header links to each.
    pub sections: Vec<Section>,
    /// The footer, as HTML.
    pub footer: String,
}

/// `s` with the characters HTML gives a meaning escaped.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// The page's style sheet.
const CSS: &str = r#"
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; margin: 0 auto; padding: 16px 24px 40px; max-width: 1500px; color: #1a1a1a; background: #fff; line-height: 1.4; }
h1 { font-size: 1.6em; margin: 0.2em 0 0.3em; }
h2 { font-size: 1.25em; margin: 1.6em 0 0.3em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
p.caption { margin: 0.2em 0 0.8em; color: #333; max-width: 60em; }
table { border-collapse: collapse; font-size: 13px; margin: 0 0 14px; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: 2px 0 4px; }
th, td { padding: 2px 8px; border-bottom: 1px solid #e4e4e4; }
th { text-align: right; font-weight: 600; background: #f5f5f5; vertical-align: bottom; }
th.unit { font-weight: 400; color: #555; background: #f5f5f5; }
td { text-align: right; }
td:first-child, th:first-child { text-align: left; }
table.inputs td, table.inputs th { text-align: left; vertical-align: top; }
.pair { display: flex; flex-wrap: wrap; gap: 12px 24px; align-items: flex-start; }
.chart { flex: 1 1 620px; max-width: 880px; min-width: 0; }
.chart svg { width: 100%; height: auto; display: block; border: 1px solid #eee; }
.tables { flex: 0 1 auto; min-width: 0; overflow-x: auto; }
ul.log { font-size: 12px; color: #333; margin: 0 0 12px; padding-left: 1.2em; max-width: 40em; }
footer { margin-top: 2em; font-size: 12px; color: #555; }
code { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 0.92em; }
"#;

/// A table (`class` on the element unless empty).
pub fn table(t: &Table, class: &str) -> String {
    let mut h = format!("<table{}>\n", if class.is_empty() { String::new() } else { format!(" class=\"{class}\"") });
    if !t.caption.is_empty() {
        h.push_str(&format!("<caption>{}</caption>\n", esc(&t.caption)));
    }
    h.push_str("<thead><tr>");
    for (c, _) in &t.columns {
        h.push_str(&format!("<th scope=\"col\">{}</th>", esc(c)));
    }
    h.push_str("</tr>\n");
    if t.columns.iter().any(|(_, u)| !u.is_empty()) {
        h.push_str("<tr>");
        for (_, u) in &t.columns {
            h.push_str(&format!("<th class=\"unit\">{}</th>", esc(u)));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</thead>\n<tbody>\n");
    for r in &t.rows {
        h.push_str("<tr>");
        for c in r {
            h.push_str(&format!("<td>{}</td>", esc(c)));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody>\n</table>\n");
    h
}

/// plotters' SVG, ready to sit inside HTML: no XML prolog, labelled for screen readers.
fn inline_svg(svg: &str, label: &str) -> String {
    let s = svg.trim_start();
    let s = if s.starts_with("<?xml") { s.split_once("?>").map(|x| x.1).unwrap_or(s).trim_start() } else { s };
    match s.strip_prefix("<svg") {
        Some(rest) => format!("<svg role=\"img\" aria-label=\"{}\"{}", esc(label), rest),
        None => s.to_string(),
    }
}

/// The page as one self-contained HTML document.
pub fn render(p: &Page) -> String {
    let mut h = String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    h.push_str(&format!(
        "<title>{t}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<header>\n<h1>{t}</h1>\n",
        t = esc(&p.title)
    ));
    h.push_str(&p.intro);
    if p.sections.len() > 1 {
        h.push_str("<nav><p class=\"caption\">Charts: ");
        let links: Vec<String> =
            p.sections.iter().map(|s| format!("<a href=\"#{}\">{}</a>", esc(&s.stem), esc(&s.title))).collect();
        h.push_str(&links.join(" · "));
        h.push_str("</p></nav>\n");
    }
    h.push_str("</header>\n<main>\n");
    for s in &p.sections {
        h.push_str(&format!(
            "<section id=\"{}\">\n<h2>{}</h2>\n<p class=\"caption\">{}</p>\n<div class=\"pair\">\n",
            esc(&s.stem),
            esc(&s.title),
            esc(&s.caption)
        ));
        h.push_str(&format!(
            "<figure class=\"chart\" style=\"margin:0\">\n{}\n</figure>\n",
            inline_svg(&s.svg, &s.title)
        ));
        h.push_str("<div class=\"tables\">\n");
        for t in &s.tables {
            h.push_str(&table(t, ""));
        }
        h.push_str("</div>\n</div>\n");
        for (title, lines) in &s.notes {
            h.push_str(&format!("<p class=\"caption\"><strong>{}</strong></p>\n<ul class=\"log\">\n", esc(title)));
            for l in lines {
                h.push_str(&format!("<li>{}</li>\n", esc(l)));
            }
            h.push_str("</ul>\n");
        }
        h.push_str("</section>\n");
    }
    h.push_str(&format!("</main>\n<footer>{}</footer>\n</body>\n</html>\n", p.footer));
    h
}

/// The report of results files: their header table, then `sections`.
pub(crate) fn page(inputs: &[Input], sections: Vec<Section>) -> String {
    let what: Vec<String> = inputs.iter().map(|i| i.series.clone()).collect();
    let mut intro = format!(
        "<p class=\"caption\">{} results file{}. Every number below comes from these files. MB/s = 10<sup>6</sup> bytes/s; µs = microseconds; latency axes are logarithmic.</p>\n",
        inputs.len(),
        if inputs.len() == 1 { "" } else { "s" }
    );
    let dash = || "–".to_string();
    let inputs_table = Table {
        caption: "Inputs".into(),
        columns: ["series", "file", "command", "target", "device profile", "seed", "discard", "written by"]
            .iter()
            .map(|c| (c.to_string(), String::new()))
            .collect(),
        rows: inputs
            .iter()
            .map(|i| {
                vec![
                    i.series.clone(),
                    i.file.clone(),
                    i.source.command(),
                    i.source.target().unwrap_or_else(dash),
                    i.source.profile().unwrap_or_else(dash),
                    i.source.seed().map(|s| s.to_string()).unwrap_or_else(dash),
                    i.source
                        .discard()
                        .map(|d| if d { "online discard" } else { "no" }.to_string())
                        .unwrap_or_else(dash),
                    i.source.writer().unwrap_or_else(dash),
                ]
            })
            .collect(),
    };
    intro.push_str(&table(&inputs_table, "inputs"));
    render(&Page {
        title: format!("flashlab report: {}", what.join(", ")),
        intro,
        sections,
        footer: format!(
            "Made by flashlab-report {} with plotters (SVG). Charts use the Okabe–Ito colour-blind-safe palette, with distinct markers and dashes. Each chart is also written as an SVG file with <code>--svg DIR</code>.",
            env!("CARGO_PKG_VERSION")
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_escapes_its_text_and_links_its_sections() {
        let section = |stem: &str| Section {
            stem: stem.into(),
            title: format!("<{stem}>"),
            caption: "a & b".into(),
            svg: "<?xml version=\"1.0\"?>\n<svg width=\"1\"></svg>".into(),
            tables: vec![Table {
                caption: "t".into(),
                columns: vec![("x".into(), "ms".into())],
                rows: vec![vec!["1".into()]],
            }],
            notes: vec![("log".into(), vec!["step 1 <fill>".into()])],
        };
        let one = render(&Page { title: "T <1>".into(), sections: vec![section("a")], ..Page::default() });
        assert!(one.starts_with("<!DOCTYPE html>") && one.ends_with("</html>\n"), "{one}");
        assert!(one.contains("<h1>T &lt;1&gt;</h1>") && one.contains("a &amp; b"), "{one}");
        assert!(one.contains("<svg role=\"img\" aria-label=\"&lt;a&gt;\" width=\"1\">") && !one.contains("<?xml"));
        assert!(one.contains("<th class=\"unit\">ms</th>") && one.contains("<li>step 1 &lt;fill&gt;</li>"));
        assert!(!one.contains("<nav>"), "one section needs no links");
        let two = render(&Page { title: "T".into(), sections: vec![section("a"), section("b")], ..Page::default() });
        assert!(two.contains("<a href=\"#a\">&lt;a&gt;</a> · <a href=\"#b\">"), "{two}");
    }
}
