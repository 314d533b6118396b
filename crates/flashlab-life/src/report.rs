//! The HTML report of life runs: the time series drawn with flashlab-report's chart code
//! (`flashlab_report::chart`, its public line-chart API) on a page of the workspace's one
//! HTML writer (`flashlab_report::html`). One series per run: a single run, or every policy
//! of `--compare-policies`.

use crate::error::LifeError;
use crate::runner::LifeResult;
use crate::series::Sample;
use flashlab_report::chart::{render_svg, Chart, Kind, Panel, Series, Style, XAxis};
use flashlab_report::html::{esc, render, Page, Section};

fn panel(runs: &[LifeResult], title: &str, y: &str, log_y: bool, f: impl Fn(&Sample) -> Option<f64>) -> Panel {
    let hi = runs.iter().map(|r| r.days).fold(1.0f64, f64::max);
    Panel {
        title: title.into(),
        x_desc: "day".into(),
        y_desc: y.into(),
        x: XAxis::Linear { lo: 0.0, hi },
        log_y,
        kind: Kind::Lines,
        series: runs
            .iter()
            .enumerate()
            .map(|(i, r)| Series {
                name: r.policy.clone(),
                style: Style::nth(i),
                points: r.samples.iter().filter_map(|s| f(s).map(|v| (s.day, v))).collect(),
            })
            .collect(),
    }
}

/// The charts: (stem, title, caption, SVG).
pub fn charts(runs: &[LifeResult]) -> Result<Vec<(String, String, String, String)>, LifeError> {
    let pct = |a: u64, b: u64| Some(100.0 * a as f64 / b.max(1) as f64);
    let specs: Vec<(&str, &str, &str, Vec<Panel>)> = vec![
        (
            "life-space",
            "Space over time",
            "What the filesystem uses and what the device holds as valid: the gap is deleted data nobody trimmed.",
            vec![
                panel(runs, "filesystem used", "% of capacity", false, |s| pct(s.fs_used_bytes, s.fs_capacity_bytes)),
                panel(runs, "device-valid data", "% of logical capacity", false, |s| {
                    pct(s.device_valid_bytes, s.logical_bytes)
                }),
                panel(runs, "free blocks", "blocks", false, |s| Some(s.free_blocks as f64)),
                panel(runs, "deleted but valid", "GB", false, |s| Some(s.deleted_valid_bytes as f64 / 1e9)),
            ],
        ),
        (
            "life-performance",
            "Performance over time",
            "The random-write probe (4 KiB, QD1, on a copy of the device) and the applications' own small writes.",
            vec![
                panel(runs, "probe random write", "MB/s", false, |s| s.probe.map(|p| p.rand_write_mbs)),
                panel(runs, "probe random write p99.9", "us", true, |s| s.probe.map(|p| p.p999_us)),
                panel(runs, "application small-write p99", "us", true, |s| s.app_write_p99_us),
                panel(runs, "WAF over each interval", "NAND / host", false, |s| Some(s.waf_interval)),
            ],
        ),
        (
            "life-wear",
            "Wear over time",
            "Wear: write amplification since new, erase counts, and the lifetime projected from the P/E budget.",
            vec![
                panel(runs, "WAF since new", "NAND / host", false, |s| Some(s.waf)),
                panel(runs, "erase count, mean", "erases per block", false, |s| Some(s.erases_mean)),
                panel(runs, "erase count, max", "erases", false, |s| Some(f64::from(s.erases_max))),
                panel(runs, "projected lifetime", "years", true, |s| s.lifetime_years),
            ],
        ),
    ];
    let mut out = Vec::new();
    for (stem, title, caption, panels) in specs {
        let chart = Chart { stem: stem.into(), title: title.into(), panels, cols: 2, panel_height: 260 };
        out.push((stem.to_string(), title.to_string(), caption.to_string(), render_svg(&chart)?));
    }
    Ok(out)
}

/// A self-contained HTML page (inline SVG and CSS, no script or network): what ran, the
/// terminal's table, then each chart.
pub fn html(title: &str, runs: &[LifeResult], table: &str) -> Result<String, LifeError> {
    let mut intro = String::new();
    if let Some(r) = runs.first() {
        intro.push_str(&format!(
            "<p class=\"caption\">Device profile <code>{}</code>, workload <code>{}</code>, seed {}, {} days, P/E budget {} cycles; \
             probe: {} MiB file, {} MiB of 4 KiB random writes. Every number is from this run of the simulator.</p>\n",
            esc(&r.profile),
            esc(&r.workload),
            r.seed,
            r.days,
            r.pe_cycles,
            r.probe.span >> 20,
            r.probe.bytes >> 20
        ));
    }
    intro.push_str(&format!("<pre>{}</pre>\n", esc(table)));
    let sections = charts(runs)?
        .into_iter()
        .map(|(stem, title, caption, svg)| Section { stem, title, caption, svg, ..Section::default() })
        .collect();
    let footer = format!("Made by flashlab-life {} with flashlab-report's charts.", env!("CARGO_PKG_VERSION"));
    Ok(render(&Page { title: title.to_string(), intro, sections, footer }))
}
