//! Text tables of life runs: one run over time, and several policies side by side
//! (`--compare-policies`). MB/s = 10^6 bytes/s; GB and TB are 10^9 and 10^12 bytes.

use crate::runner::LifeResult;
use crate::series::Sample;

/// Right-aligned columns (the first left-aligned) under a header and a units row.
pub fn render(columns: &[(&str, &str)], rows: &[Vec<String>]) -> String {
    let mut width: Vec<usize> = columns.iter().map(|(h, u)| h.len().max(u.len())).collect();
    for r in rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.len());
        }
    }
    let line = |cells: Vec<&str>| -> String {
        let mut s = String::new();
        for (i, (c, w)) in cells.iter().zip(&width).enumerate() {
            if i == 0 {
                s.push_str(&format!("{c:<w$}"));
            } else {
                s.push_str(&format!("  {c:>w$}"));
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(columns.iter().map(|(h, _)| *h).collect());
    out.push_str(&line(columns.iter().map(|(_, u)| *u).collect()));
    for r in rows {
        out.push_str(&line(r.iter().map(String::as_str).collect()));
    }
    out
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

/// One run: the samples that have a probe (and the last), as rows.
pub fn run_table(r: &LifeResult) -> String {
    let cols = [
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
    render(&cols, &rows)
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

    #[test]
    fn aligned() {
        let t = render(&[("a", ""), ("bb", "us")], &[vec!["x".into(), "1".into()], vec!["yyy".into(), "100".into()]]);
        assert_eq!(t, "a     bb\n      us\nx      1\nyyy  100\n");
        assert_eq!(sig(12.345), "12.3");
        assert_eq!(sig(0.01234), "0.012");
    }
}
