//! `flashlab doctor`: finds what is slowing a system's flash storage, and says what to do.
//!
//! [`inspect`] reads a system — the live one, or a tree captured from a phone or a board (see
//! `docs/doctor.md`) — and returns a [`Report`]: per block filesystem its device, usage, the
//! mount options that matter, whether anything trims it and what is stacked over it, each
//! problem a [`Finding`] with a severity, a one-line reason, the fixing command and a risk note.
//! [`render_text`] turns a report into the human report; the report serialises to JSON.
//!
//! One module per job: [`mounts`] (mount table), [`block`] (sysfs block devices), [`trim`]
//! (fstrim timer, cron, Android maintenance), [`usage`] (statvfs, captured df), [`rules`] (the
//! findings) and [`render`] (the text report). Nothing here needs root, writes anything or
//! panics on bad input: what cannot be read becomes "unknown" and a [`Problem`] saying why.

mod android_maint;
pub mod block;
mod error;
pub mod mounts;
pub mod part;
pub mod render;
mod rules;
pub mod trim;
pub mod usage;

mod tree;

pub use block::{BlockPath, DeviceClass, DeviceFacts, Discard, EmmcHealth};
pub use error::DoctorError;
pub use render::render_text;
pub use trim::{AndroidInfo, CronEntry, TimerState, TrimSchedule};
pub use usage::Usage;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tree::Tree;

/// How bad a finding is. Ordered from harmless to urgent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Checked and fine.
    Ok,
    /// Worth knowing; no action needed.
    Info,
    /// Could not be checked (the report says why).
    Unknown,
    /// Costs speed or wear; worth fixing.
    Warn,
    /// Fix this first: slow now, or risking data.
    Alarm,
}

impl Severity {
    /// The severity as the JSON writes it (`ok`, `info`, `unknown`, `warn`, `alarm`).
    pub fn label(self) -> &'static str {
        match self {
            Severity::Ok => "ok",
            Severity::Info => "info",
            Severity::Unknown => "unknown",
            Severity::Warn => "warn",
            Severity::Alarm => "alarm",
        }
    }
}

/// One thing the doctor found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable identifier, e.g. `no-trim`, `usage-alarm` (see docs/doctor.md for the table).
    pub id: String,
    /// How bad it is.
    pub severity: Severity,
    /// What it is about: a mount point, a device name, or `system`.
    pub subject: String,
    /// What was found, in one line.
    pub summary: String,
    /// Why it matters, in one line.
    pub why: String,
    /// The command (or change) that fixes it.
    pub fix: Option<String>,
    /// What the fix, or the current setting, risks.
    pub risk: Option<String>,
}

/// Something the doctor could not read, and what that leaves unknown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// Path on the inspected system, e.g. `/sys/block/mmcblk0/device/life_time`.
    pub path: String,
    /// Why it could not be read (the system's error, or a malformed value).
    pub reason: String,
    /// What the report cannot say because of it.
    pub affects: String,
}

/// A physical device under at least one writable filesystem.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Device {
    /// What sysfs says about the device.
    #[serde(flatten)]
    pub facts: DeviceFacts,
    /// Findings about the device itself (wear, rotational flag, scheduler).
    pub findings: Vec<Finding>,
}

/// A filesystem on a block device (one entry however many times it is mounted).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Filesystem {
    /// Where it is mounted (the first mount in the mount table).
    pub mount_point: String,
    /// Bind mounts and other mounts of the same filesystem.
    pub other_mount_points: Vec<String>,
    /// The mount table's source, e.g. `/dev/mmcblk0p2`.
    pub source: String,
    /// Filesystem type, e.g. `ext4`, `f2fs`.
    pub fs_type: String,
    /// All mount and filesystem options; `None` when unknown (a truncated mount table).
    pub options: Option<Vec<String>>,
    /// Mounted read-only (listed, not judged).
    pub read_only: bool,
    /// The block devices under it; `None` when the source names none the doctor can resolve.
    pub block: Option<BlockPath>,
    /// Discard support of the device the filesystem sits on directly (`block.disk`).
    pub discard: Discard,
    /// Size and usage; `None` when unknown (`usage_unknown` says why).
    pub usage: Option<Usage>,
    /// Why `usage` is unknown.
    pub usage_unknown: Option<String>,
    /// What trims it: `online discard`, `fstrim.timer`, `cron: FILE:LINE`, `Android idle maintenance`.
    pub trimmed_by: Vec<String>,
    /// Mount points of FUSE / sdcardfs / overlay filesystems stacked over it.
    pub stacked_over_by: Vec<String>,
    /// Findings about this filesystem.
    pub findings: Vec<Finding>,
}

/// A stacked filesystem (FUSE, sdcardfs, esdfs, overlay...) and what it sits on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stacked {
    /// Filesystem type, e.g. `fuse`, `sdcardfs`, `overlay`.
    pub fs_type: String,
    /// The mount table's source.
    pub source: String,
    /// Where it is mounted (every mount of it).
    pub mount_points: Vec<String>,
    /// Mount point of the block filesystem under it, when traced.
    pub over: Option<String>,
    /// How it was traced (`source path`, `upperdir`, `Android emulated storage`), or why not.
    pub traced_by: String,
}

/// Where the data came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Source {
    /// The live system (as opposed to a captured tree).
    pub live: bool,
    /// The directory inspected: `/` live, the top of the tree when captured.
    pub root: String,
    /// The mount table read, e.g. `/proc/self/mountinfo`.
    pub mounts_file: Option<String>,
    /// `statvfs` (live) or `/doctor/df.txt` (captured).
    pub usage_from: Option<String>,
}

/// How many findings of each severity the report has.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Findings of severity `alarm`.
    pub alarm: usize,
    /// Findings of severity `warn`.
    pub warn: usize,
    /// Findings of severity `unknown`.
    pub unknown: usize,
    /// Findings of severity `info`.
    pub info: usize,
    /// Findings of severity `ok`.
    pub ok: usize,
}

/// Everything `flashlab doctor` found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Version of this JSON layout.
    pub schema: u32,
    /// Where the data came from.
    pub source: Source,
    /// The Android system, when the inspected system is one.
    pub android: Option<AndroidInfo>,
    /// What trims the system's filesystems on a schedule.
    pub trim: TrimSchedule,
    /// The physical devices under at least one writable filesystem.
    pub devices: Vec<Device>,
    /// Writable filesystems first, in mount-table order, then read-only ones.
    pub filesystems: Vec<Filesystem>,
    /// Stacked filesystems (FUSE, sdcardfs, overlay) and what each sits on.
    pub stacked: Vec<Stacked>,
    /// Findings about the system as a whole (mount table, timers, Android maintenance).
    pub findings: Vec<Finding>,
    /// What could not be read, and why.
    pub problems: Vec<Problem>,
    /// Counts of findings by severity.
    pub summary: Summary,
}

impl Report {
    /// Every finding: system-wide, per device, per filesystem.
    pub fn all_findings(&self) -> Vec<&Finding> {
        let mut v: Vec<&Finding> = self.findings.iter().collect();
        v.extend(self.devices.iter().flat_map(|d| d.findings.iter()));
        v.extend(self.filesystems.iter().flat_map(|f| f.findings.iter()));
        v
    }

    /// The finding with this id about this subject, if any.
    pub fn finding(&self, subject: &str, id: &str) -> Option<&Finding> {
        self.all_findings().into_iter().find(|f| f.subject == subject && f.id == id)
    }

    /// The filesystem mounted at `mount_point`, if the report has one.
    pub fn filesystem(&self, mount_point: &str) -> Option<&Filesystem> {
        self.filesystems.iter().find(|f| f.mount_point == mount_point)
    }

    /// The device named `name` (e.g. `mmcblk0`), if the report has one.
    pub fn device(&self, name: &str) -> Option<&Device> {
        self.devices.iter().find(|d| d.facts.name == name)
    }
}

/// Inspects the live system.
pub fn inspect_live() -> Report {
    inspect_tree(&Tree::new(Path::new("/"), true))
}

/// Inspects the system rooted at `root`: `/` is the live system; anything else is a captured
/// tree (see docs/doctor.md for its layout).
pub fn inspect(root: &Path) -> Report {
    let live = std::fs::canonicalize(root).map(|p| p == Path::new("/")).unwrap_or(false);
    inspect_tree(&Tree::new(root, live))
}

/// The mount table files, in order of preference.
const MOUNT_FILES: &[&str] =
    &["proc/self/mountinfo", "proc/1/mountinfo", "proc/mounts", "proc/self/mounts", "etc/mtab"];

fn read_mounts(tree: &Tree) -> (Option<String>, mounts::Parsed) {
    let mut errors = Vec::new();
    let mut garbage: Option<(String, mounts::Parsed)> = None;
    for f in MOUNT_FILES {
        match tree.read(f) {
            Ok(text) => {
                let p =
                    if f.ends_with("mountinfo") { mounts::parse_mountinfo(&text) } else { mounts::parse_mounts(&text) };
                if p.entries.is_empty() && !text.trim().is_empty() {
                    // Garbage: try the next table, but say so.
                    tree.note_reason(f, "no line could be read as a mount", "tried the next mount table");
                    garbage.get_or_insert((format!("/{f}"), p));
                    continue;
                }
                return (Some(format!("/{f}")), p);
            }
            Err(e) => errors.push((*f, e)),
        }
    }
    if let Some((f, p)) = garbage {
        return (Some(f), p);
    }
    for (f, e) in errors {
        if !matches!(e, tree::ReadError::NotFound) || f == MOUNT_FILES[0] || f == "proc/mounts" {
            tree.note(f, &e, "the mount table is needed to find filesystems");
        }
    }
    (None, mounts::Parsed::default())
}

/// The longest mount point that contains `path`.
fn covering<'a>(mps: impl Iterator<Item = (&'a str, usize)>, path: &str) -> Option<usize> {
    let mut best: Option<(usize, usize)> = None;
    for (mp, i) in mps {
        let inside = path == mp || mp == "/" || (path.starts_with(mp) && path.as_bytes().get(mp.len()) == Some(&b'/'));
        if inside && best.map(|(l, _)| mp.len() > l).unwrap_or(true) {
            best = Some((mp.len(), i));
        }
    }
    best.map(|(_, i)| i)
}

fn inspect_tree(tree: &Tree) -> Report {
    let (mounts_file, parsed) = read_mounts(tree);
    let idx = block::Index::load(tree);

    let mps: Vec<&str> = parsed.entries.iter().map(|e| e.mount_point.as_str()).collect();
    let srcs: Vec<&str> = parsed.entries.iter().map(|e| e.source.as_str()).collect();
    let android = trim::android(tree, &mps, &srcs);
    let sched = trim::schedule(tree, android.as_ref());

    // Usage source.
    let (df, usage_from) = if tree.live {
        (None, Some("statvfs".to_string()))
    } else {
        match tree.read("doctor/df.txt") {
            Ok(t) => {
                let (m, bad) = usage::parse_df(&t);
                if !bad.is_empty() {
                    tree.note_reason(
                        "doctor/df.txt",
                        &format!("{} line(s) could not be read: {:?}", bad.len(), &bad[..bad.len().min(8)]),
                        "usage of those mounts is unknown",
                    );
                }
                (Some(m), Some("/doctor/df.txt".to_string()))
            }
            Err(e) => {
                tree.note("doctor/df.txt", &e, "usage (% full) of every filesystem is unknown");
                (None, None)
            }
        }
    };

    // Group block mounts into filesystems.
    let block_entries: Vec<&mounts::MountEntry> =
        parsed.entries.iter().filter(|e| mounts::kind(e) == mounts::Kind::Block).collect();
    let mut groups: Vec<Vec<&mounts::MountEntry>> = Vec::new();
    let mut keys: BTreeMap<String, usize> = BTreeMap::new();
    for e in &block_entries {
        let key = match e.majmin {
            Some((maj, min)) if maj != 0 => format!("dev {maj}:{min}"),
            _ => format!("src {} {}", e.source, e.fs_type),
        };
        let gi = *keys.entry(key).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[gi].push(e);
    }

    let mut filesystems: Vec<Filesystem> = Vec::new();
    for g in &groups {
        let primary = g
            .iter()
            .enumerate()
            .min_by_key(|(i, e)| (!matches!(e.root.as_deref(), None | Some("/")), e.mount_point.len(), *i))
            .map(|(_, e)| *e)
            .unwrap_or(g[0]);
        let others: Vec<String> =
            g.iter().filter(|e| !std::ptr::eq(**e, primary)).map(|e| e.mount_point.clone()).collect();
        let block = block::resolve(tree, &idx, primary.majmin, &primary.source);
        filesystems.push(Filesystem {
            mount_point: primary.mount_point.clone(),
            other_mount_points: others,
            source: primary.source.clone(),
            fs_type: primary.fs_type.clone(),
            options: primary.options(),
            read_only: primary.read_only(),
            block,
            discard: Discard::default(),
            usage: None,
            usage_unknown: None,
            trimmed_by: Vec::new(),
            stacked_over_by: Vec::new(),
            findings: Vec::new(),
        });
    }
    // Writable first (stable).
    filesystems.sort_by_key(|f| f.read_only);

    // Which filesystem holds a path: every mount of each filesystem counts.
    let path_index: Vec<(String, usize)> = {
        let mut v = Vec::new();
        for (i, f) in filesystems.iter().enumerate() {
            v.push((f.mount_point.clone(), i));
            for m in &f.other_mount_points {
                v.push((m.clone(), i));
            }
        }
        v
    };
    let fs_for = |path: &str| covering(path_index.iter().map(|(m, i)| (m.as_str(), *i)), path);

    // Stacked filesystems.
    let mut stacked: Vec<Stacked> = Vec::new();
    let mut skeys: BTreeMap<String, usize> = BTreeMap::new();
    for e in parsed.entries.iter().filter(|e| mounts::kind(e) == mounts::Kind::Stacked) {
        let key = format!("{} {} {:?}", e.fs_type, e.source, e.majmin);
        if let Some(&i) = skeys.get(&key) {
            stacked[i].mount_points.push(e.mount_point.clone());
            continue;
        }
        let opts = e.options().unwrap_or_default();
        let opt_path = |name: &str| {
            opts.iter().find_map(|o| o.strip_prefix(name)).map(|v| v.split(':').next().unwrap_or("").to_string())
        };
        let (over, traced_by) = if e.source.starts_with('/') && !e.source.starts_with("/dev/") {
            (fs_for(&e.source), "source path".to_string())
        } else if let Some(up) = opt_path("upperdir=").filter(|p| p.starts_with('/')) {
            (fs_for(&up), "upperdir".to_string())
        } else if let Some(low) = opt_path("lowerdir=").filter(|p| p.starts_with('/')) {
            (fs_for(&low), "lowerdir".to_string())
        } else if android.is_some() && e.mount_point.contains("/emulated") {
            (
                filesystems.iter().position(|f| f.mount_point == "/data"),
                "Android emulated storage (/data/media)".to_string(),
            )
        } else if android.is_some() {
            // /storage/XXXX-XXXX and /mnt/user/N/XXXX-XXXX sit on /mnt/media_rw/XXXX-XXXX.
            let last = e.mount_point.rsplit('/').next().unwrap_or("");
            let media = format!("/mnt/media_rw/{last}");
            (
                filesystems.iter().position(|f| f.mount_point == media),
                "Android public volume (/mnt/media_rw)".to_string(),
            )
        } else {
            (None, "not traced: the source names no path".to_string())
        };
        let traced_by = if over.is_none() && !traced_by.starts_with("not traced") {
            format!("not traced ({traced_by}: no such filesystem)")
        } else {
            traced_by
        };
        skeys.insert(key, stacked.len());
        stacked.push(Stacked {
            fs_type: e.fs_type.clone(),
            source: e.source.clone(),
            mount_points: vec![e.mount_point.clone()],
            over: over.map(|i| filesystems[i].mount_point.clone()),
            traced_by,
        });
    }
    // The best-known path first (/storage/emulated rather than /mnt/user/0/emulated).
    for s in stacked.iter_mut() {
        s.mount_points.sort_by_key(|m| !m.starts_with("/storage/"));
    }
    for s in &stacked {
        if let Some(over) = &s.over {
            if let Some(f) = filesystems.iter_mut().find(|f| &f.mount_point == over) {
                f.stacked_over_by.extend(s.mount_points.iter().cloned());
            }
        }
    }

    // Devices under writable filesystems, usage, trim.
    let mut devices: Vec<Device> = Vec::new();
    let is_android = android.is_some();
    for f in filesystems.iter_mut().filter(|f| !f.read_only) {
        if let Some(b) = &f.block {
            for p in &b.physical {
                if !devices.iter().any(|d| &d.facts.name == p) {
                    devices.push(Device { facts: DeviceFacts::read(tree, p, is_android), findings: Vec::new() });
                }
            }
            f.discard = match devices.iter().find(|d| d.facts.name == b.disk) {
                Some(d) => d.facts.discard,
                None if b.in_sysfs => Discard::read(tree, &b.disk, true),
                None => Discard::default(),
            };
        }
        // Usage.
        if tree.live {
            match usage::statvfs(&tree.root().join(f.mount_point.trim_start_matches('/'))) {
                Ok(u) => f.usage = Some(u),
                Err(e) => f.usage_unknown = Some(e.to_string()),
            }
        } else if let Some(df) = &df {
            match df.get(&f.mount_point).or_else(|| f.other_mount_points.iter().find_map(|m| df.get(m))) {
                Some(u) => f.usage = Some(u.clone()),
                None => f.usage_unknown = Some(format!("{} has no line for {}", "/doctor/df.txt", f.mount_point)),
            }
        } else {
            f.usage_unknown = Some("no /doctor/df.txt in the captured tree".to_string());
        }
        // What trims it.
        let opts = f.options.clone().unwrap_or_default();
        if opts.iter().any(|o| o == "discard" || o.starts_with("discard=")) && !opts.iter().any(|o| o == "nodiscard") {
            f.trimmed_by.push("online discard".to_string());
        }
        if sched.timer_active() {
            f.trimmed_by.push("fstrim.timer".to_string());
        }
        for c in &sched.cron {
            if c.all || c.mount_points.iter().any(|m| m == &f.mount_point) {
                let at = if c.line > 0 { format!("{}:{}", c.file, c.line) } else { c.file.clone() };
                f.trimmed_by.push(format!("cron: {at}"));
            }
        }
        if sched.android_idle_maintenance
            && !sched.android_maintenance_stale
            && !f.mount_point.starts_with("/mnt/media_rw/")
        {
            f.trimmed_by.push("Android idle maintenance".to_string());
        }
    }

    // Findings.
    let ctx = rules::Context { android: android.as_ref(), sched: &sched, live: tree.live };
    for d in devices.iter_mut() {
        d.findings = rules::device_findings(&ctx, &d.facts);
    }
    for f in filesystems.iter_mut() {
        f.findings = rules::filesystem_findings(&ctx, f, &devices, &stacked);
    }
    let findings = rules::system_findings(&ctx, mounts_file.as_deref(), &parsed, &filesystems);

    let mut problems = tree.take_problems();
    // What the capture script could not read, that no read above asked about.
    for (path, reason) in tree.capture_unreadable() {
        let p = format!("/{path}");
        if !problems.iter().any(|x| x.path == p) {
            problems.push(Problem {
                path: p,
                reason: format!("could not be read on the captured system: {reason}"),
                affects: "reported by the capture script".into(),
            });
        }
    }

    let mut report = Report {
        schema: 1,
        source: Source {
            live: tree.live,
            root: PathBuf::from(tree.root()).display().to_string(),
            mounts_file,
            usage_from,
        },
        android,
        trim: sched,
        devices,
        filesystems,
        stacked,
        findings,
        problems,
        summary: Summary::default(),
    };
    let mut s = Summary::default();
    for f in report.all_findings() {
        match f.severity {
            Severity::Alarm => s.alarm += 1,
            Severity::Warn => s.warn += 1,
            Severity::Unknown => s.unknown += 1,
            Severity::Info => s.info += 1,
            Severity::Ok => s.ok += 1,
        }
    }
    report.summary = s;
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn covering_picks_longest() {
        let m = [("/", 0), ("/data", 1), ("/data/media", 2), ("/datax", 3)];
        assert_eq!(covering(m.iter().copied(), "/data/media/0"), Some(2));
        assert_eq!(covering(m.iter().copied(), "/data/x"), Some(1));
        assert_eq!(covering(m.iter().copied(), "/dataxy"), Some(0));
        assert_eq!(covering(m.iter().copied(), "/datax/y"), Some(3));
    }
}
