//! The report of a sweep (`flashlab report DIR` on a `flashlab sweep` directory): for each
//! setting that varies, one chart with a panel per metric (the metric's mean over the other
//! settings at each value of this one, and its range); for the first two varying settings, a
//! heatmap per metric (mean over the rest). The page is self-contained like the other reports.

use crate::chart::{self, Chart, Kind, Panel, Series, Style, XAxis};
use crate::html::{esc, render, Page, Section, Table};
use crate::sections::sig;
use crate::{Report, ReportError};

/// The table of a sweep as the report needs it.
#[derive(Debug, Clone)]
pub struct SweepTable {
    /// The sweep's title (the `name =` of its spec file).
    pub title: String,
    /// Each varying setting: its name and the value of each row, as text.
    pub settings: Vec<(String, Vec<String>)>,
    /// Each metric: its name and the value of each row.
    pub metrics: Vec<(String, Vec<Option<f64>>)>,
}

/// At most this many metrics are drawn (the ones that vary, in table order).
pub const MAX_METRICS: usize = 24;

/// The distinct values of a setting in a sensible order: by number when all are numbers,
/// else as they first appear.
fn levels(vals: &[String]) -> Vec<String> {
    let mut l: Vec<String> = Vec::new();
    for v in vals {
        if !l.contains(v) {
            l.push(v.clone());
        }
    }
    if l.iter().all(|v| v.parse::<f64>().is_ok()) {
        l.sort_by(|a, b| a.parse::<f64>().unwrap().total_cmp(&b.parse::<f64>().unwrap()));
    }
    l
}

/// (mean, min, max) of a metric over the rows where `pick` holds.
fn stats(m: &[Option<f64>], pick: impl Fn(usize) -> bool) -> Option<(f64, f64, f64)> {
    let v: Vec<f64> =
        m.iter().enumerate().filter(|(i, _)| pick(*i)).filter_map(|(_, x)| *x).filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    Some((mean, v.iter().copied().fold(f64::INFINITY, f64::min), v.iter().copied().fold(f64::NEG_INFINITY, f64::max)))
}

fn stem(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect()
}

/// Colour of a heatmap cell: a light-to-dark blue ramp, `f` in [0, 1].
fn ramp(f: f64) -> String {
    let f = f.clamp(0.0, 1.0);
    let lerp = |a: f64, b: f64| (a + (b - a) * f).round() as u8;
    format!("#{:02x}{:02x}{:02x}", lerp(239.0, 8.0), lerp(243.0, 48.0), lerp(255.0, 107.0))
}

/// A heatmap of `metric` over settings `a` (columns) and `b` (rows), as an SVG document.
fn heatmap(t: &SweepTable, a: usize, b: usize, metric: usize) -> Option<String> {
    let (an, av) = &t.settings[a];
    let (bn, bv) = &t.settings[b];
    let (mn, m) = &t.metrics[metric];
    let (la, lb) = (levels(av), levels(bv));
    let cells: Vec<Vec<Option<f64>>> =
        lb.iter().map(|y| la.iter().map(|x| stats(m, |i| av[i] == *x && bv[i] == *y).map(|s| s.0)).collect()).collect();
    let all: Vec<f64> = cells.iter().flatten().filter_map(|x| *x).collect();
    if all.is_empty() {
        return None;
    }
    let (lo, hi) = all.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &x| (l.min(x), h.max(x)));
    let label_w = lb.iter().map(|s| chart::text_width(s, 13.0)).fold(chart::text_width(bn, 13.0), f64::max) + 16.0;
    let cw = ((chart::WIDTH as f64 - label_w - 20.0) / la.len() as f64).clamp(40.0, 140.0);
    let ch = 30.0;
    let (top, left) = (46.0, label_w);
    let w = left + cw * la.len() as f64 + 20.0;
    let h = top + ch * lb.len() as f64 + 44.0;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"{:.0}\" y=\"20\" font-size=\"15\" font-weight=\"bold\" text-anchor=\"middle\">{} by {} and {} (mean)</text>\n",
        w / 2.0,
        esc(mn),
        esc(an),
        esc(bn)
    );
    for (r, row) in cells.iter().enumerate() {
        let y = top + ch * r as f64;
        s.push_str(&format!(
            "<text x=\"{:.0}\" y=\"{:.0}\" font-size=\"13\" text-anchor=\"end\">{}</text>\n",
            left - 6.0,
            y + ch / 2.0 + 4.0,
            esc(&lb[r])
        ));
        for (c, v) in row.iter().enumerate() {
            let x = left + cw * c as f64;
            let (fill, text, ink) = match v {
                Some(v) => {
                    let f = if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
                    (ramp(f), sig(*v), if f > 0.55 { "white" } else { "black" })
                }
                None => ("#dddddd".to_string(), "–".to_string(), "black"),
            };
            s.push_str(&format!(
                "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{cw:.1}\" height=\"{ch:.1}\" fill=\"{fill}\" stroke=\"white\"/>\n<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\" fill=\"{ink}\">{}</text>\n",
                x + cw / 2.0,
                y + ch / 2.0 + 4.0,
                esc(&text)
            ));
        }
    }
    let yb = top + ch * lb.len() as f64 + 18.0;
    for (c, x) in la.iter().enumerate() {
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{yb:.0}\" font-size=\"13\" text-anchor=\"middle\">{}</text>\n",
            left + cw * (c as f64 + 0.5),
            esc(x)
        ));
    }
    s.push_str(&format!(
        "<text x=\"{:.0}\" y=\"{:.0}\" font-size=\"13\" text-anchor=\"middle\">{}</text>\n</svg>\n",
        left + cw * la.len() as f64 / 2.0,
        yb + 20.0,
        esc(an)
    ));
    Some(s)
}

/// Render the report of a sweep.
pub fn render_sweep(t: &SweepTable) -> Result<Report, ReportError> {
    let varying: Vec<usize> = (0..t.settings.len()).filter(|&i| levels(&t.settings[i].1).len() > 1).collect();
    let metrics: Vec<usize> = (0..t.metrics.len())
        .filter(|&i| {
            let v: Vec<f64> = t.metrics[i].1.iter().filter_map(|x| *x).collect();
            v.iter().any(|x| *x != v[0])
        })
        .take(MAX_METRICS)
        .collect();
    if varying.is_empty() {
        return Err(ReportError::NothingVaries);
    }
    let mut sections: Vec<Section> = Vec::new();
    for &a in &varying {
        let (name, vals) = &t.settings[a];
        let lv = levels(vals);
        let mut panels = Vec::new();
        let mut rows: Vec<Vec<String>> = lv.iter().map(|l| vec![l.clone()]).collect();
        for &m in &metrics {
            let (mn, mv) = &t.metrics[m];
            let st: Vec<Option<(f64, f64, f64)>> = lv.iter().map(|l| stats(mv, |i| vals[i] == *l)).collect();
            for (r, s) in rows.iter_mut().zip(&st) {
                r.push(s.map_or("–".into(), |s| format!("{} ({}–{})", sig(s.0), sig(s.1), sig(s.2))));
            }
            let pts = |k: usize| -> Vec<(f64, f64)> {
                st.iter().enumerate().filter_map(|(i, s)| s.map(|s| (i as f64, [s.0, s.1, s.2][k]))).collect()
            };
            panels.push(Panel {
                title: mn.clone(),
                x_desc: name.clone(),
                y_desc: String::new(),
                x: XAxis::Categories(lv.clone()),
                log_y: false,
                kind: Kind::Lines,
                series: vec![
                    Series { name: "mean".into(), style: Style::nth(0), points: pts(0) },
                    Series { name: "min".into(), style: Style { dashed: true, ..Style::nth(1) }, points: pts(1) },
                    Series { name: "max".into(), style: Style { dashed: true, ..Style::nth(2) }, points: pts(2) },
                ],
            });
        }
        if panels.is_empty() {
            continue;
        }
        let chart = Chart {
            stem: format!("axis-{}", stem(name)),
            title: format!("Each metric against {name}"),
            panels,
            cols: 3,
            panel_height: 220,
        };
        let svg = chart::render_svg(&chart)?;
        let mut columns = vec![(name.clone(), String::new())];
        columns.extend(metrics.iter().map(|&m| (t.metrics[m].0.clone(), "mean (min–max)".to_string())));
        sections.push(Section {
            stem: chart.stem.clone(),
            title: chart.title.clone(),
            caption: format!("For each value of {name}: the mean of each metric over the cases with that value (solid) and its smallest and largest value (dashed)."),
            svg,
            tables: vec![Table { caption: format!("by {name}"), columns, rows }],
            notes: Vec::new(),
        });
    }
    if varying.len() >= 2 {
        let (a, b) = (varying[0], varying[1]);
        for &m in &metrics {
            if let Some(svg) = heatmap(t, a, b, m) {
                let mn = &t.metrics[m].0;
                sections.push(Section {
                    stem: format!("heat-{}", stem(mn)),
                    title: format!("{mn}: {} × {}", t.settings[a].0, t.settings[b].0),
                    caption: format!(
                        "The mean of {mn} for each pair of values{}; darker is larger.",
                        if varying.len() > 2 { ", over the other settings" } else { "" }
                    ),
                    svg,
                    tables: Vec::new(),
                    notes: Vec::new(),
                });
            }
        }
    }
    let n = t.settings.first().map_or(0, |s| s.1.len());
    let omitted = t.metrics.len() - metrics.len();
    let intro = format!(
        "<p class=\"caption\">{}: {n} cases; settings that vary: {}. Every number comes from the cases' results in this sweep.{}</p>\n",
        esc(&t.title),
        esc(&varying.iter().map(|&i| t.settings[i].0.as_str()).collect::<Vec<_>>().join(", ")),
        if omitted > 0 { format!(" {omitted} metrics that do not vary, or past the first {MAX_METRICS}, are not drawn (results.csv has them all).") } else { String::new() }
    );
    let charts = sections.iter().map(|s| (s.stem.clone(), s.svg.clone())).collect();
    let html = render(&Page {
        title: format!("flashlab sweep report: {}", t.title),
        intro,
        sections,
        footer: format!("Made by flashlab-report {}.", env!("CARGO_PKG_VERSION")),
    });
    Ok(Report { html, charts })
}
