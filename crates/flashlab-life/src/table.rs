//! Text tables of life runs: one run over time, and several policies side by side
//! (`--compare-policies`). MB/s = 10^6 bytes/s; GB and TB are 10^9 and 10^12 bytes.

use crate::runner::LifeResult;
use crate::series::Sample;

/// Columns under a header and a units row, drawn by flashlab's one table renderer (numbers
/// right-aligned, at most 80 columns wide).
pub fn render(columns: &[(&str, &str)], rows: &[Vec<String>]) -> String {
    let mut t = flashlab_results::table::Table::new("", columns);
    for r in rows {
        t.row(r.iter().map(|c| flashlab_results::table::Cell::Text(c.clone())).collect());
    }
    flashlab_results::export::terminal(&t)
}

/// `v` with 3 significant digits (no exponent).
pub fn sig(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    flashlab_report::num::sig_max_decimals(v, 3, 3)
}

fn opt(v: Option<f64>) -> String {
    v.map_or("-".into(), sig)
}

fn pct(a: u64, b: u64) -> String {
    format!("{:.1}", 100.0 * a as f64 / b.max(1) as f64)
}

/// The columns of [`run_table`]: header and unit.
const RUN_COLUMNS: [(&str, &str); 12] = [
    ("day", ""),
    ("fs used", "%"),
    ("device valid", "%"),
    ("deleted, valid", "GB"),
    ("free blocks", ""),
    ("WAF", ""),
    ("rand write", "MB/s"),
    ("rand write p99", "us"),
    ("p99.9", "us"),
    ("app write p99", "us"),
    ("erases", "mean/max"),
    ("fstrims", ""),
];

/// One run: the samples that have a probe (and the last), as rows.
pub fn run_table(r: &LifeResult) -> String {
    let rows: Vec<Vec<String>> = r
        .samples
        .iter()
        .filter(|s| s.probe.is_some())
        .map(|s: &Sample| {
            vec![
                format!("{}", s.day),
                pct(s.fs_used_bytes, s.fs_capacity_bytes),
                pct(s.device_valid_bytes, s.logical_bytes),
                sig(s.deleted_valid_bytes as f64 / 1e9),
                s.free_blocks.to_string(),
                format!("{:.2}", s.waf),
                opt(s.probe.map(|p| p.rand_write_mbs)),
                opt(s.probe.map(|p| p.p99_us)),
                opt(s.probe.map(|p| p.p999_us)),
                opt(s.app_write_p99_us),
                format!("{}/{}", sig(s.erases_mean), s.erases_max),
                s.fstrims.to_string(),
            ]
        })
        .collect();
    render(&RUN_COLUMNS, &rows)
}

/// The end of each run, one row per policy; the probe columns average the last four weeks'
/// probes ([`LifeResult::final_probes`]).
pub fn compare_table(runs: &[LifeResult]) -> String {
    let cols = [
        ("policy", ""),
        ("rand write", "MB/s"),
        ("rand write p99", "us"),
        ("p99.9", "us"),
        ("WAF", ""),
        ("device valid", "%"),
        ("erases", "min/mean/max"),
        ("lifetime", "years"),
        ("worst block", "years"),
        ("TBW", "TB"),
        ("fstrims", ""),
    ];
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            let s = r.last();
            let p = r.final_probes();
            vec![
                r.policy.clone(),
                opt(p.map(|p| p.0)),
                opt(p.map(|p| p.1)),
                opt(p.map(|p| p.2)),
                format!("{:.2}", s.waf),
                pct(s.device_valid_bytes, s.logical_bytes),
                format!("{}/{}/{}", s.erases_min, sig(s.erases_mean), s.erases_max),
                opt(s.lifetime_years),
                opt(s.lifetime_years_worst_block),
                opt(s.projected_tbw_tb),
                s.fstrims.to_string(),
            ]
        })
        .collect();
    render(&cols, &rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The run table's twelve header words all fit side by side in 80 columns: the renderer
    /// wraps headers between words (it once split "deleted," and "mean/max" inside them).
    #[test]
    fn run_headers_wrap_between_words() {
        let row = ["365", "41.7", "41.8", "0.000", "312", "1.00", "51.1", "326", "326", "45.2", "0/1.5/3", "0"];
        let text = render(&RUN_COLUMNS, &[row.iter().map(|c| c.to_string()).collect()]);
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        let words: Vec<&str> = text.split_whitespace().collect();
        for (h, _) in RUN_COLUMNS {
            for w in h.split_whitespace() {
                assert!(words.contains(&w), "'{w}' of '{h}' split:\n{text}");
            }
        }
    }

    #[test]
    fn aligned() {
        let t = render(&[("a", ""), ("bb", "us")], &[vec!["x".into(), "1".into()], vec!["yyy".into(), "100".into()]]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 4, "{t}");
        assert!(lines[0].starts_with('a') && lines[0].ends_with("bb"), "{t}");
        assert!(lines[1].ends_with("us") && lines[2].ends_with(" 1") && lines[3].starts_with("yyy"), "{t}");
        assert!(lines[3].ends_with("100"), "{t}");
        assert_eq!(sig(12.345), "12.3");
        assert_eq!(sig(0.01234), "0.012");
    }
}
