//! The human report: grouped by device, then filesystem; ANSI colour only when asked for
//! (the binary asks when standard output is a terminal and NO_COLOR is not set).

use crate::rules::pct_shown;
use crate::trim::TimerState;
use crate::{Device, Filesystem, Finding, Report, Severity};
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
    fn dim(&self, s: &str) -> String {
        self.paint("2", s)
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

fn finding(out: &mut String, st: &Style, x: &Finding, indent: &str) {
    let _ = writeln!(out, "{indent}{}  {}  {}", st.sev(x.severity), st.bold(&x.id), x.summary);
    if x.severity == Severity::Ok {
        return;
    }
    let pad = format!("{indent}         ");
    let _ = writeln!(out, "{pad}{} {}", st.dim("why:"), x.why);
    if let Some(fix) = &x.fix {
        let _ = writeln!(out, "{pad}{} {fix}", st.dim("fix:"));
    }
    if let Some(r) = &x.risk {
        let _ = writeln!(out, "{pad}{} {r}", st.dim("risk:"));
    }
}

fn yes_no(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "yes",
        Some(false) => "no",
        None => "unknown",
    }
}

fn device(out: &mut String, st: &Style, d: &Device) {
    let f = &d.facts;
    let model = f.model.as_deref().map(|m| format!(" \"{m}\"")).unwrap_or_default();
    let size = f.size_bytes.map(|s| format!(", {}", bytes(s))).unwrap_or_default();
    let _ = writeln!(out, "{} — {}{model}{size}", st.bold(&format!("Device {}", f.name)), f.class_label);
    let discard = match (f.discard.max_bytes, f.discard.granularity) {
        (Some(0), _) => "no".to_string(),
        (Some(m), g) => {
            format!("yes (max {}, granularity {})", bytes(m), g.map(bytes).unwrap_or_else(|| "unknown".into()))
        }
        (None, _) => "unknown".to_string(),
    };
    let _ = writeln!(
        out,
        "  rotational: {} · scheduler: {} · write cache: {} · discard: {discard}",
        yes_no(f.rotational),
        f.scheduler.as_deref().unwrap_or("unknown"),
        f.write_cache.as_deref().unwrap_or("unknown"),
    );
    if let Some(p) = f.part.as_ref().filter(|p| !p.from.is_empty()) {
        let _ = writeln!(out, "  part: {}", p.line());
        if p.ufs_life_time_a.is_some() || p.ufs_life_time_b.is_some() || p.ufs_pre_eol.is_some() {
            let h = |v: Option<u8>| v.map(|v| format!("0x{v:02X}")).unwrap_or_else(|| "unknown".into());
            let _ = writeln!(
                out,
                "  UFS life_time_estimation: {} {} · eol_info: {}",
                h(p.ufs_life_time_a),
                h(p.ufs_life_time_b),
                h(p.ufs_pre_eol)
            );
        }
    }
    if let Some(h) = &f.emmc {
        let _ = writeln!(
            out,
            "  life_time: {} · pre_eol_info: {}",
            h.life_time_raw.as_deref().unwrap_or("unknown"),
            h.pre_eol_raw.as_deref().unwrap_or("unknown")
        );
    }
    for x in &d.findings {
        finding(out, st, x, "  ");
    }
}

fn filesystem(out: &mut String, st: &Style, f: &Filesystem) {
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
    let usage = match &f.usage {
        Some(u) => format!("{}, {:.0} % used", bytes(u.size_bytes), pct_shown(u.used_pct)),
        None => "usage unknown".to_string(),
    };
    let _ = writeln!(out, "  {}  {where_}, {}, {usage}", st.bold(&f.mount_point), f.fs_type);
    let opts = match &f.options {
        Some(o) => {
            let m: Vec<&str> = o.iter().map(String::as_str).filter(|o| matters(o)).collect();
            if m.is_empty() {
                "(none that matter)".to_string()
            } else {
                m.join(",")
            }
        }
        None => "unknown".to_string(),
    };
    let _ = writeln!(out, "    options: {opts}");
    if !f.other_mount_points.is_empty() {
        let mut o = f.other_mount_points.iter().take(4).cloned().collect::<Vec<_>>().join(", ");
        if f.other_mount_points.len() > 4 {
            o.push_str(&format!(" (+{} more)", f.other_mount_points.len() - 4));
        }
        let _ = writeln!(out, "    also mounted at: {o}");
    }
    for x in &f.findings {
        finding(out, st, x, "    ");
    }
}

/// The human report. `color` adds ANSI colours.
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

    // Devices, each with its writable filesystems.
    let writable: Vec<&Filesystem> = r.filesystems.iter().filter(|f| !f.read_only).collect();
    let mut shown = vec![false; writable.len()];
    for d in &r.devices {
        out.push('\n');
        device(&mut out, &st, d);
        for (i, f) in writable.iter().enumerate() {
            let first = f.block.as_ref().and_then(|b| b.physical.first()).map(|p| p == &d.facts.name).unwrap_or(false);
            if first && !shown[i] {
                shown[i] = true;
                out.push('\n');
                filesystem(&mut out, &st, f);
            }
        }
    }
    let rest: Vec<&&Filesystem> = writable.iter().zip(&shown).filter(|(_, s)| !**s).map(|(f, _)| f).collect();
    if !rest.is_empty() {
        let _ = writeln!(out, "\n{}", st.bold("Filesystems on an unknown device"));
        for f in rest {
            out.push('\n');
            filesystem(&mut out, &st, f);
        }
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

    if !r.findings.is_empty() {
        let _ = writeln!(out, "\n{}", st.bold("System"));
        for x in &r.findings {
            finding(&mut out, &st, x, "  ");
        }
    }
    if !r.problems.is_empty() {
        let _ = writeln!(out, "\n{}", st.bold("Could not read"));
        for p in &r.problems {
            let _ = writeln!(out, "  {}: {} — {}", p.path, p.reason, p.affects);
        }
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
