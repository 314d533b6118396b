//! The human report: a short header, then tables of the devices, the writable filesystems and
//! the findings, drawn by flashlab-results' terminal renderer within 80 columns, then why each
//! finding matters and how to fix it; ANSI colour only in the prose and only when asked for
//! (the binary asks when standard output is a terminal and NO_COLOR is not set).

use crate::rules::pct_shown;
use crate::trim::TimerState;
use crate::{Device, Filesystem, Finding, Report, Severity};
use flashlab_results::export::terminal;
use flashlab_results::table::{Format, Table};
use std::fmt::Write;

/// Bytes in binary units, labelled (`29.1 GiB`, `512 KiB`).
pub fn bytes(b: u64) -> String {
    const U: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = b as f64;
    let mut i = 0;
    while v >= 1024.0 && i < U.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 || (v.fract() == 0.0 && v < 1000.0) {
        format!("{v:.0} {}", U[i])
    } else {
        format!("{v:.1} {}", U[i])
    }
}

struct Style {
    color: bool,
}

impl Style {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    fn bold(&self, s: &str) -> String {
        self.paint("1", s)
    }
    fn sev(&self, s: Severity) -> String {
        let (code, tag) = match s {
            Severity::Alarm => ("1;31", "ALARM  "),
            Severity::Warn => ("33", "warn   "),
            Severity::Unknown => ("35", "unknown"),
            Severity::Info => ("36", "info   "),
            Severity::Ok => ("32", "ok     "),
        };
        self.paint(code, tag)
    }
}

/// Options worth showing (all of them are in the JSON).
fn matters(o: &str) -> bool {
    const EXACT: &[&str] = &[
        "ro",
        "rw",
        "discard",
        "nodiscard",
        "nobarrier",
        "barrier",
        "noatime",
        "relatime",
        "strictatime",
        "lazytime",
        "sync",
        "dirsync",
        "inline_data",
        "noinline_data",
        "ssd",
        "nossd",
        "journal_async_commit",
        "flush_merge",
    ];
    const PREFIX: &[&str] = &[
        "discard=",
        "barrier=",
        "commit=",
        "data=",
        "background_gc=",
        "active_logs=",
        "fsync_mode=",
        "mode=",
        "compress",
    ];
    EXACT.contains(&o) || PREFIX.iter().any(|p| o.starts_with(p))
}

/// Severity as the findings table shows it (`ALARM` shouts; the rest are quiet).
fn sev_label(s: Severity) -> &'static str {
    match s {
        Severity::Alarm => "ALARM",
        Severity::Warn => "warn",
        Severity::Unknown => "unknown",
        Severity::Info => "info",
        Severity::Ok => "ok",
    }
}

fn yes_no(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "yes",
        Some(false) => "no",
        None => "unknown",
    }
}

/// Where a filesystem lives: its source and, when it is not plain, the partition, the stacked
/// layers and a loop device's backing file.
fn on_what(f: &Filesystem) -> String {
    let mut where_ = f.source.clone();
    if where_.is_empty() {
        where_ = "unknown source".into();
    }
    if let Some(b) = &f.block {
        let mut parts = Vec::new();
        match b.partition {
            Some(p) if where_.ends_with(&b.node) => parts.push(format!("partition {p} of {}", b.disk)),
            Some(p) => parts.push(format!("{}: partition {p} of {}", b.node, b.disk)),
            None if !where_.ends_with(&b.node) => parts.push(b.node.clone()),
            None => {}
        }
        parts.extend(b.layers.iter().cloned());
        if let Some(bf) = &b.loop_backing_file {
            parts.push(format!("backed by {bf}"));
        }
        if !parts.is_empty() {
            where_.push_str(&format!(" ({})", parts.join("; ")));
        }
    }
    where_
}

/// The mount options worth showing, comma-separated (a space after each comma lets a table
/// cell wrap between options) (`unknown` when the mount table was cut).
fn options_shown(f: &Filesystem) -> String {
    match &f.options {
        Some(o) => {
            let m: Vec<&str> = o.iter().map(String::as_str).filter(|o| matters(o)).collect();
            if m.is_empty() {
                "(none that matter)".to_string()
            } else {
                m.join(", ")
            }
        }
        None => "unknown".to_string(),
    }
}

/// The writable filesystems in the order the report shows them: under their first physical
/// device, in device order, then those on no known device.
fn writable_in_order(r: &Report) -> Vec<&Filesystem> {
    let writable: Vec<&Filesystem> = r.filesystems.iter().filter(|f| !f.read_only).collect();
    let mut shown = vec![false; writable.len()];
    let mut out = Vec::new();
    for d in &r.devices {
        for (i, f) in writable.iter().enumerate() {
            let first = f.block.as_ref().and_then(|b| b.physical.first()).is_some_and(|p| p == &d.facts.name);
            if first && !shown[i] {
                shown[i] = true;
                out.push(*f);
            }
        }
    }
    out.extend(writable.iter().zip(&shown).filter(|(_, s)| !**s).map(|(f, _)| *f));
    out
}

/// The report's tables: `devices` (one row per physical device), `filesystems` (one row per
/// writable filesystem) and `findings` (every finding: system-wide, per device, per
/// filesystem, in that order).
pub fn tables(r: &Report) -> Vec<Table> {
    let mut dev = Table::new(
        "devices",
        &[
            ("device", ""),
            ("class", ""),
            ("size", ""),
            ("rotational", ""),
            ("scheduler", ""),
            ("write cache", ""),
            ("discard", "max / granularity"),
        ],
    );
    for d in &r.devices {
        let f = &d.facts;
        let discard = match (f.discard.max_bytes, f.discard.granularity) {
            (Some(0), _) => "no".to_string(),
            (Some(m), g) => format!("{} / {}", bytes(m), g.map(bytes).unwrap_or_else(|| "unknown".into())),
            (None, _) => "unknown".to_string(),
        };
        dev.row(vec![
            f.name.as_str().into(),
            f.class_label.as_str().into(),
            f.size_bytes.map(bytes).into(),
            yes_no(f.rotational).into(),
            f.scheduler.as_deref().unwrap_or("unknown").into(),
            f.write_cache.as_deref().unwrap_or("unknown").into(),
            discard.into(),
        ]);
    }
    let mut fs = Table::new(
        "filesystems",
        &[("mount point", ""), ("on", ""), ("type", ""), ("size", ""), ("used", "%"), ("options", "that matter")],
    )
    .format(4, Format::Fixed(0));
    for f in writable_in_order(r) {
        fs.row(vec![
            f.mount_point.as_str().into(),
            on_what(f).into(),
            f.fs_type.as_str().into(),
            f.usage.as_ref().map(|u| bytes(u.size_bytes)).into(),
            f.usage.as_ref().map(|u| pct_shown(u.used_pct)).into(),
            options_shown(f).into(),
        ]);
    }
    let mut find = Table::new("findings", &[("severity", ""), ("subject", ""), ("finding", ""), ("summary", "")]);
    let mut ordered: Vec<&Finding> = r.findings.iter().collect();
    for d in &r.devices {
        ordered.extend(&d.findings);
    }
    for f in writable_in_order(r) {
        ordered.extend(&f.findings);
    }
    for x in ordered {
        find.row(vec![
            sev_label(x.severity).into(),
            x.subject.as_str().into(),
            x.id.as_str().into(),
            x.summary.as_str().into(),
        ]);
    }
    vec![dev, fs, find]
}

/// The lines under the devices table: each device's model, storage part and wear estimates.
fn device_notes(out: &mut String, d: &Device) {
    let f = &d.facts;
    let mut lines = Vec::new();
    if let Some(m) = &f.model {
        lines.push(format!("model: \"{m}\""));
    }
    if let Some(p) = f.part.as_ref().filter(|p| !p.from.is_empty()) {
        lines.push(format!("part: {}", p.line()));
        if p.ufs_life_time_a.is_some() || p.ufs_life_time_b.is_some() || p.ufs_pre_eol.is_some() {
            let h = |v: Option<u8>| v.map(|v| format!("0x{v:02X}")).unwrap_or_else(|| "unknown".into());
            lines.push(format!(
                "UFS life_time_estimation: {} {} · eol_info: {}",
                h(p.ufs_life_time_a),
                h(p.ufs_life_time_b),
                h(p.ufs_pre_eol)
            ));
        }
    }
    if let Some(h) = &f.emmc {
        lines.push(format!(
            "life_time: {} · pre_eol_info: {}",
            h.life_time_raw.as_deref().unwrap_or("unknown"),
            h.pre_eol_raw.as_deref().unwrap_or("unknown")
        ));
    }
    if !lines.is_empty() {
        let _ = writeln!(out, "  {}:", f.name);
        for l in lines {
            let _ = writeln!(out, "    {l}");
        }
    }
}

/// Why each finding that is not `ok` matters, how to fix it and what the fix risks.
fn advice(out: &mut String, st: &Style, x: &Finding) {
    let _ = writeln!(out, "  {} {} ({})", st.bold(&x.subject), st.bold(&x.id), st.sev(x.severity).trim_end());
    let _ = writeln!(out, "    why: {}", x.why);
    if let Some(fix) = &x.fix {
        let _ = writeln!(out, "    fix: {fix}");
    }
    if let Some(r) = &x.risk {
        let _ = writeln!(out, "    risk: {r}");
    }
}

/// The human report: a header (what was inspected, the trim schedule, the count of findings),
/// then the devices, filesystems and findings tables drawn by flashlab-results' terminal
/// renderer (80 columns), the advice for every finding that is not `ok`, what was not checked
/// and what could not be read. Prose lines are printed whole (a fix is a command to copy). `color` adds ANSI colours to the prose (never inside tables).
pub fn render_text(r: &Report, color: bool) -> String {
    let st = Style { color };
    let mut out = String::new();
    let what = if r.source.live { "live system".to_string() } else { format!("captured tree {}", r.source.root) };
    let _ = writeln!(out, "{}", st.bold(&format!("flashlab doctor: {what}")));
    if let Some(a) = &r.android {
        let mut s = "Android".to_string();
        if let Some(rel) = &a.release {
            s.push_str(&format!(" {rel}"));
        }
        if let Some(sdk) = a.sdk {
            s.push_str(&format!(" (SDK {sdk})"));
        }
        if let Some(m) = &a.model {
            s.push_str(&format!(", {m}"));
        }
        let _ = writeln!(out, "{s} — detected by {}", a.detected_by);
    }
    let t = &r.trim;
    let timer = match t.fstrim_timer {
        TimerState::Enabled => match t.systemd_running {
            Some(false) => "enabled, but systemd is not running".to_string(),
            _ => "enabled".to_string(),
        },
        TimerState::Disabled => "installed, not enabled".to_string(),
        TimerState::Masked => "masked".to_string(),
        TimerState::NotInstalled => "not installed".to_string(),
    };
    let cron = if t.cron.is_empty() {
        "none".to_string()
    } else {
        t.cron
            .iter()
            .map(|c| if c.line > 0 { format!("{}:{}", c.file, c.line) } else { c.file.clone() })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut trim = format!("fstrim.timer {timer}; cron/anacron fstrim: {cron}");
    if t.android_idle_maintenance {
        trim.push_str("; Android idle maintenance: yes");
        if let Some(l) = &t.android_last_maintenance {
            trim.push_str(&format!(" (last {l}"));
            if let Some(d) = t.android_maintenance_age_days {
                trim.push_str(&format!(", {d:.0} days before this inspection"));
                if t.android_maintenance_stale {
                    trim.push_str(": stale, not counted as trimming");
                }
            }
            trim.push(')');
        }
    }
    let _ = writeln!(out, "Trim schedule: {trim}");
    let s = &r.summary;
    let _ = writeln!(
        out,
        "Findings: {} alarm, {} warn, {} unknown, {} info, {} ok",
        st.paint(if s.alarm > 0 { "1;31" } else { "0" }, &s.alarm.to_string()),
        st.paint(if s.warn > 0 { "33" } else { "0" }, &s.warn.to_string()),
        s.unknown,
        s.info,
        s.ok
    );

    let [dev, fs, find]: [Table; 3] = tables(r).try_into().unwrap_or_else(|_| unreachable!("three tables"));
    if !dev.rows.is_empty() {
        let _ = writeln!(out, "\n{}", st.bold("Devices"));
        out.push_str(&terminal(&dev));
        let mut notes = String::new();
        for d in &r.devices {
            device_notes(&mut notes, d);
        }
        out.push_str(&notes);
    }
    if !fs.rows.is_empty() {
        let _ = writeln!(out, "\n{}", st.bold("Filesystems"));
        out.push_str(&terminal(&fs));
        let mut notes = String::new();
        for f in writable_in_order(r).into_iter().filter(|f| !f.other_mount_points.is_empty()) {
            let mut o = f.other_mount_points.iter().take(4).cloned().collect::<Vec<_>>().join(", ");
            if f.other_mount_points.len() > 4 {
                o.push_str(&format!(" (+{} more)", f.other_mount_points.len() - 4));
            }
            let _ = writeln!(notes, "  {} is also mounted at: {o}", f.mount_point);
        }
        out.push_str(&notes);
    }

    let ro: Vec<&Filesystem> = r.filesystems.iter().filter(|f| f.read_only).collect();
    if !ro.is_empty() {
        let mut list: Vec<String> = ro.iter().take(8).map(|f| format!("{} ({})", f.mount_point, f.fs_type)).collect();
        if ro.len() > 8 {
            list.push(format!("+{} more", ro.len() - 8));
        }
        let _ = writeln!(out, "\n{} {}", st.bold("Read-only, not checked:"), list.join(", "));
    }
    let untraced: Vec<String> = r
        .stacked
        .iter()
        .filter(|s| s.over.is_none())
        .map(|s| format!("{} ({})", s.mount_points[0], s.fs_type))
        .collect();
    if !untraced.is_empty() {
        let n = untraced.len();
        let mut list = untraced.into_iter().take(6).collect::<Vec<_>>().join(", ");
        if n > 6 {
            list.push_str(&format!(", +{} more", n - 6));
        }
        let _ = writeln!(out, "{} {list}", st.bold("Stacked mounts not traced to a device:"));
    }

    if !find.rows.is_empty() {
        let _ = writeln!(out, "\n{}", st.bold("Findings"));
        out.push_str(&terminal(&find));
    }
    let mut todo = String::new();
    let mut all: Vec<&Finding> = r.findings.iter().collect();
    for d in &r.devices {
        all.extend(&d.findings);
    }
    for f in writable_in_order(r) {
        all.extend(&f.findings);
    }
    all.sort_by_key(|x| std::cmp::Reverse(x.severity));
    for x in all.into_iter().filter(|x| x.severity != Severity::Ok) {
        advice(&mut todo, &st, x);
    }
    if !todo.is_empty() {
        let _ = writeln!(out, "\n{}", st.bold("Why, and what to do"));
        out.push_str(&todo);
    }
    if !r.problems.is_empty() {
        let _ = writeln!(out, "\n{}", st.bold("Could not read"));
        let mut p = String::new();
        for x in &r.problems {
            let _ = writeln!(p, "  {}: {} — {}", x.path, x.reason, x.affects);
        }
        out.push_str(&p);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_units() {
        assert_eq!(bytes(0), "0 B");
        assert_eq!(bytes(512 * 1024), "512 KiB");
        assert_eq!(bytes(1536 * 1024 * 1024), "1.5 GiB");
        assert!(bytes(u64::MAX).ends_with("PiB"));
    }
}
