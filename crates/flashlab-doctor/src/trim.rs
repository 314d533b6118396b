//! Whether anything trims: systemd's `fstrim.timer`, a cron/anacron/periodic fstrim entry, or
//! Android's idle maintenance. (Online `discard` is a mount option; see the rules.)

use crate::android_maint;
use crate::tree::{ReadError, Tree};
use serde::{Deserialize, Serialize};

/// State of systemd's `fstrim.timer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimerState {
    /// A `timers.target.wants/fstrim.timer` link exists.
    Enabled,
    /// The unit is installed but not enabled.
    Disabled,
    /// `etc/systemd/system/fstrim.timer` points to /dev/null.
    Masked,
    /// No fstrim.timer unit found (no systemd, or util-linux without it).
    NotInstalled,
}

/// One cron/anacron/periodic entry that runs fstrim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CronEntry {
    /// File on the inspected system, e.g. `/etc/cron.weekly/fstrim`.
    pub file: String,
    /// 1-based line, or 0 when the whole file is an fstrim script.
    pub line: usize,
    /// The line as written.
    pub text: String,
    /// Trims every mounted filesystem (`-a`, `--all`, `--fstab`, `--listed-in`, or a script).
    pub all: bool,
    /// Mount points named on the line, when not `all`.
    pub mount_points: Vec<String>,
}

/// What trims the system's filesystems on a schedule: the fstrim timer, cron, Android.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrimSchedule {
    /// The state of systemd's `fstrim.timer`.
    pub fstrim_timer: TimerState,
    /// The file that enables the timer, when enabled.
    pub timer_enabled_by: Option<String>,
    /// systemd is PID 1 (`/run/systemd/system` exists); `None` when a capture does not say.
    pub systemd_running: Option<bool>,
    /// Every cron/anacron/periodic entry that runs fstrim.
    pub cron: Vec<CronEntry>,
    /// Android: StorageManagerService runs fstrim on /data (and other internal volumes) once a
    /// day when the phone is idle and charging.
    pub android_idle_maintenance: bool,
    /// Android: `Last maintenance:` from `dumpsys mount`, when captured.
    pub android_last_maintenance: Option<String>,
    /// Android: days from the last maintenance to when the system was inspected, when both are
    /// known.
    #[serde(default)]
    pub android_maintenance_age_days: Option<f64>,
    /// Android: the last maintenance is older than [`crate::android_maint::STALE_DAYS`], so idle
    /// maintenance is not counted as trimming anything.
    #[serde(default)]
    pub android_maintenance_stale: bool,
}

impl TrimSchedule {
    /// Whether the timer actually runs here.
    pub fn timer_active(&self) -> bool {
        self.fstrim_timer == TimerState::Enabled && self.systemd_running != Some(false)
    }
}

const WANTS: &[&str] = &[
    "etc/systemd/system/timers.target.wants/fstrim.timer",
    "usr/lib/systemd/system/timers.target.wants/fstrim.timer",
    "lib/systemd/system/timers.target.wants/fstrim.timer",
];
const UNITS: &[&str] =
    &["etc/systemd/system/fstrim.timer", "usr/lib/systemd/system/fstrim.timer", "lib/systemd/system/fstrim.timer"];

pub(crate) fn timer(tree: &Tree) -> (TimerState, Option<String>) {
    let masked = tree.read_link("etc/systemd/system/fstrim.timer").map(|t| t == "/dev/null").unwrap_or(false)
        || tree.read("etc/systemd/system/fstrim.timer").map(|t| t.trim() == "/dev/null").unwrap_or(false);
    if masked {
        return (TimerState::Masked, None);
    }
    if let Some(w) = WANTS.iter().find(|w| tree.exists(w)) {
        return (TimerState::Enabled, Some(format!("/{w}")));
    }
    if UNITS.iter().any(|u| tree.exists(u)) {
        return (TimerState::Disabled, None);
    }
    (TimerState::NotInstalled, None)
}

/// Cron-like places that may hold an fstrim job.
const CRON_FILES: &[&str] = &["etc/crontab", "etc/anacrontab"];
const CRON_DIRS: &[&str] = &[
    "etc/cron.d",
    "etc/cron.hourly",
    "etc/cron.daily",
    "etc/cron.weekly",
    "etc/cron.monthly",
    "etc/periodic/daily",
    "etc/periodic/weekly",
    "etc/periodic/monthly",
    "var/spool/cron/crontabs",
    "var/spool/cron",
];

/// Parses one file's text for fstrim jobs.
pub fn fstrim_entries(file: &str, text: &str, script_dir: bool) -> Vec<CronEntry> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let Some(pos) = l.find("fstrim") else { continue };
        let args: Vec<&str> = l[pos..]
            .split_whitespace()
            .skip(1)
            .take_while(|w| !matches!(*w, ";" | "&&" | "||" | "|" | ">" | "2>&1"))
            .collect();
        let all_flag = args.iter().any(|a| {
            matches!(*a, "--all" | "--fstab" | "-A" | "--listed-in" | "-I")
                || (a.starts_with('-') && !a.starts_with("--") && a.contains('a'))
                || a.starts_with("--listed-in=")
        });
        let mps: Vec<String> =
            args.iter().filter(|a| a.starts_with('/') && !a.contains("fstrim")).map(|s| s.to_string()).collect();
        // `fstrim-all` (old Ubuntu) or a script calling fstrim without mount points trims all.
        let all = all_flag || mps.is_empty();
        out.push(CronEntry {
            file: file.to_string(),
            line: i + 1,
            text: l.chars().take(200).collect(),
            all,
            mount_points: if all { Vec::new() } else { mps },
        });
    }
    if out.is_empty() && script_dir {
        let name = file.rsplit('/').next().unwrap_or("");
        if name.contains("fstrim") && text.lines().any(|l| !l.trim().is_empty() && !l.trim().starts_with('#')) {
            out.push(CronEntry {
                file: file.to_string(),
                line: 0,
                text: format!("script {name}"),
                all: true,
                mount_points: Vec::new(),
            });
        }
    }
    out
}

pub(crate) fn cron(tree: &Tree) -> Vec<CronEntry> {
    let mut out = Vec::new();
    for f in CRON_FILES {
        match tree.read(f) {
            Ok(t) => out.extend(fstrim_entries(&format!("/{f}"), &t, false)),
            Err(ReadError::NotFound) => {}
            Err(e) => tree.note(f, &e, "an fstrim entry there would be missed"),
        }
    }
    for d in CRON_DIRS {
        let names = match tree.list(d) {
            Ok(n) => n,
            Err(ReadError::NotFound) => continue,
            Err(e) => {
                tree.note(d, &e, "fstrim jobs in these crontabs are not seen");
                continue;
            }
        };
        let script_dir = !d.contains("spool") && *d != "etc/cron.d";
        for n in names {
            if n.starts_with('.') {
                continue;
            }
            let rel = format!("{d}/{n}");
            if tree.is_dir(&rel) {
                continue;
            }
            match tree.read(&rel) {
                Ok(t) => out.extend(fstrim_entries(&format!("/{rel}"), &t, script_dir)),
                Err(e) => tree.note(&rel, &e, "an fstrim entry there would be missed"),
            }
        }
    }
    out
}

/// What the doctor knows about an Android system.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AndroidInfo {
    /// The maker and model (`ro.product.manufacturer`, `ro.product.model`), e.g. `Google Pixel 4a`.
    pub model: Option<String>,
    /// `ro.build.version.release`, e.g. `13`.
    pub release: Option<String>,
    /// `ro.build.version.sdk`, e.g. `33`.
    pub sdk: Option<u32>,
    /// `persist.sys.fuse.passthrough.enable` (Android 12+): reads and writes of open files
    /// bypass the FUSE daemon.
    pub fuse_passthrough: Option<bool>,
    /// How the doctor decided this is Android.
    pub detected_by: String,
}

/// Parses `getprop` output (`[key]: [value]` lines) or a `build.prop` (`key=value`).
pub fn parse_props(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for l in text.lines() {
        let l = l.trim();
        if let Some(rest) = l.strip_prefix('[') {
            if let Some((k, v)) = rest.split_once("]: [") {
                out.push((k.to_string(), v.trim_end_matches(']').to_string()));
            }
        } else if !l.starts_with('#') {
            if let Some((k, v)) = l.split_once('=') {
                if !k.is_empty() && !k.contains(' ') {
                    out.push((k.to_string(), v.to_string()));
                }
            }
        }
    }
    out
}

/// Detects Android from props files or the shape of the mount table.
pub(crate) fn android(tree: &Tree, mount_points: &[&str], sources: &[&str]) -> Option<AndroidInfo> {
    let mut props = Vec::new();
    let mut by = None;
    for (f, what) in [("doctor/getprop.txt", "captured getprop"), ("system/build.prop", "/system/build.prop")] {
        if let Ok(t) = tree.read(f) {
            let p = parse_props(&t);
            if !p.is_empty() {
                props.extend(p);
                by.get_or_insert(what.to_string());
            }
        }
    }
    let android_mounts = mount_points.contains(&"/data")
        && (sources.iter().any(|s| s.starts_with("/dev/block/"))
            || mount_points.iter().any(|m| *m == "/apex" || *m == "/metadata" || *m == "/vendor"));
    // Live on Android (flashlab run from adb shell): the properties come from `getprop`.
    if tree.live && android_mounts && by.is_none() {
        if let Some(t) = live_command("getprop", &[]) {
            let p = parse_props(&t);
            if !p.is_empty() {
                props.extend(p);
                by = Some("getprop".to_string());
            }
        }
    }
    if by.is_none() && !android_mounts {
        return None;
    }
    let get = |k: &str| props.iter().rev().find(|(pk, _)| pk == k).map(|(_, v)| v.clone()).filter(|v| !v.is_empty());
    let model = match (get("ro.product.manufacturer"), get("ro.product.model")) {
        (Some(m), Some(p)) if !p.to_lowercase().starts_with(&m.to_lowercase()) => Some(format!("{m} {p}")),
        (_, p) => p,
    };
    Some(AndroidInfo {
        model,
        release: get("ro.build.version.release"),
        sdk: get("ro.build.version.sdk").and_then(|s| s.parse().ok()),
        fuse_passthrough: get("persist.sys.fuse.passthrough.enable").map(|v| v == "true" || v == "1"),
        detected_by: by.unwrap_or_else(|| "mount table (/data on /dev/block/...)".to_string()),
    })
}

/// The output of a command of the live system, when it runs and succeeds.
fn live_command(program: &str, args: &[&str]) -> Option<String> {
    let out = std::process::Command::new(program).args(args).stdin(std::process::Stdio::null()).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `Last maintenance:` from a captured `dumpsys mount` (live: from running it).
pub(crate) fn android_last_maintenance(tree: &Tree) -> Option<String> {
    let t = match tree.read("doctor/dumpsys-mount.txt") {
        Ok(t) => t,
        Err(_) if tree.live => live_command("dumpsys", &["mount"])?,
        Err(_) => return None,
    };
    t.lines().find_map(|l| {
        let l = l.trim();
        l.strip_prefix("Last maintenance:").map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
    })
}

pub(crate) fn schedule(tree: &Tree, android: Option<&AndroidInfo>) -> TrimSchedule {
    let (fstrim_timer, timer_enabled_by) = timer(tree);
    // A capture by scripts/capture-adb.sh says whether systemd was running.
    let captured = tree.read("doctor/capture.txt").ok().and_then(|t| {
        t.lines().find_map(|l| match l.trim().strip_prefix("systemd-running:").map(str::trim) {
            Some("yes") => Some(true),
            Some("no") => Some(false),
            _ => None,
        })
    });
    let systemd_running = if tree.exists("run/systemd/system") {
        Some(true)
    } else if tree.live {
        Some(false)
    } else {
        captured
    };
    // Idle maintenance trims from Android 4.3 (API 18) on; an unknown version is given the
    // benefit of the doubt.
    let idle_maintenance = android.is_some_and(|a| a.sdk.is_none_or(|s| s >= android_maint::FIRST_SDK_WITH_FSTRIM));
    let last = if android.is_some() { android_last_maintenance(tree) } else { None };
    let age = if idle_maintenance {
        android_maint::age_days(last.as_deref(), android_maint::observed_at(tree))
    } else {
        None
    };
    TrimSchedule {
        fstrim_timer,
        timer_enabled_by,
        systemd_running,
        cron: cron(tree),
        android_idle_maintenance: idle_maintenance,
        android_last_maintenance: last,
        android_maintenance_age_days: age,
        android_maintenance_stale: age.is_some_and(|d| d > android_maint::STALE_DAYS),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cron_lines() {
        let e = fstrim_entries("/etc/crontab", "# fstrim -a\n0 3 * * 0 root /sbin/fstrim -av >/dev/null\n", false);
        assert_eq!(e.len(), 1);
        assert!(e[0].all);
        let e = fstrim_entries("/etc/cron.d/x", "@weekly root fstrim /home /\n", false);
        assert!(!e[0].all);
        assert_eq!(e[0].mount_points, vec!["/home", "/"]);
        let e = fstrim_entries("/etc/cron.weekly/fstrim", "#!/bin/sh\nexec fstrim-all\n", true);
        assert!(e[0].all);
        assert!(fstrim_entries("/etc/crontab", "17 * * * * root run-parts /etc/cron.hourly\n", false).is_empty());
    }

    #[test]
    fn props() {
        let p = parse_props("[ro.product.model]: [Pixel 5]\n[ro.build.version.sdk]: [33]\nro.x=1\n");
        assert_eq!(p[0], ("ro.product.model".into(), "Pixel 5".into()));
        assert_eq!(p[2], ("ro.x".into(), "1".into()));
    }
}
