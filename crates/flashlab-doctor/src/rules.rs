//! The rules: what the doctor reports as findings, how severe, why, and how to fix it.
//! docs/doctor.md has the same table for people.

use crate::block::DeviceClass;
use crate::mounts::{Parsed, KNOWN_BLOCK};
use crate::render::bytes;
use crate::trim::{AndroidInfo, TimerState, TrimSchedule};
use crate::{Device, DeviceFacts, Filesystem, Finding, Severity, Stacked};

/// What the rules need besides the thing being judged.
pub struct Context<'a> {
    pub android: Option<&'a AndroidInfo>,
    pub sched: &'a TrimSchedule,
    pub live: bool,
}

/// Usage at or above this many percent is a warning...
pub const USAGE_WARN: f64 = 80.0;
/// ...and at or above this an alarm.
pub const USAGE_ALARM: f64 = 90.0;

fn f(id: &str, severity: Severity, subject: &str, summary: String, why: &str) -> Finding {
    Finding {
        id: id.to_string(),
        severity,
        subject: subject.to_string(),
        summary,
        why: why.to_string(),
        fix: None,
        risk: None,
    }
}

trait With {
    fn fix(self, s: impl Into<String>) -> Self;
    fn risk(self, s: impl Into<String>) -> Self;
}

impl With for Finding {
    fn fix(mut self, s: impl Into<String>) -> Self {
        self.fix = Some(s.into());
        self
    }
    fn risk(mut self, s: impl Into<String>) -> Self {
        self.risk = Some(s.into());
        self
    }
}

/// Quotes a path for a shell command when it needs it.
pub fn sh(p: &str) -> String {
    if !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+:@%=,".contains(c)) {
        p.to_string()
    } else {
        format!("'{}'", p.replace('\'', "'\\''"))
    }
}

/// Used percent as `df` shows it (rounded up), which is also what the thresholds judge.
pub fn pct_shown(p: f64) -> f64 {
    if p.is_finite() {
        p.ceil().clamp(0.0, 100.0)
    } else {
        0.0
    }
}

fn has(opts: &[String], o: &str) -> bool {
    opts.iter().any(|x| x == o)
}

fn opt_value<'a>(opts: &'a [String], key: &str) -> Option<&'a str> {
    opts.iter().rev().find_map(|o| o.strip_prefix(key).and_then(|r| r.strip_prefix('=')))
}

/// Joins a list for a one-line summary: the first `n`, then `+K more`.
fn some_of(items: &[String], n: usize) -> String {
    let mut s = items.iter().take(n).cloned().collect::<Vec<_>>().join(", ");
    if items.len() > n {
        s.push_str(&format!(" (+{} more)", items.len() - n));
    }
    s
}

/// The command that starts periodic trimming on this system.
fn enable_trim(ctx: &Context, mp: &str) -> String {
    let now = format!("once now: sudo fstrim -v {}", sh(mp));
    match ctx.sched.fstrim_timer {
        TimerState::Masked => {
            format!("sudo systemctl unmask fstrim.timer && sudo systemctl enable --now fstrim.timer (weekly); {now}")
        }
        TimerState::Disabled | TimerState::Enabled => {
            format!("sudo systemctl enable --now fstrim.timer (weekly); {now}")
        }
        TimerState::NotInstalled if ctx.sched.systemd_running == Some(true) => {
            format!("install util-linux's fstrim.timer and run sudo systemctl enable --now fstrim.timer; {now}")
        }
        TimerState::NotInstalled => {
            format!("echo '@weekly root fstrim -av' | sudo tee /etc/cron.d/fstrim (weekly); {now}")
        }
    }
}

/// `; now: sudo mount -o remount,OPT MP` — not on Android, where the shell cannot remount.
fn now_remount(ctx: &Context, opt: &str, mp: &str) -> String {
    if ctx.android.is_some() {
        String::new()
    } else {
        format!("; now: sudo mount -o remount,{opt} {}", sh(mp))
    }
}

/// Findings about one physical device.
pub fn device_findings(ctx: &Context, d: &DeviceFacts) -> Vec<Finding> {
    let n = d.name.as_str();
    let mut out = Vec::new();
    let root = if ctx.android.is_some() { "as root (adb root / su): " } else { "" };
    if !d.in_sysfs {
        out.push(f(
            "sysfs-missing",
            Severity::Unknown,
            n,
            format!("{n} is not under /sys/block: class from its name only ({})", d.class_label),
            "rotational flag, scheduler, write cache, discard support and health are unknown",
        ));
    }
    if let Some(h) = &d.emmc {
        let range = |v: Option<u8>| match v {
            Some(0) | None => "unknown".to_string(),
            Some(v @ 1..=10) => format!("{}–{} %", (v - 1) as u32 * 10, v as u32 * 10),
            Some(11) => "exceeded".to_string(),
            Some(v) => format!("0x{v:02X}?"),
        };
        let worst = [h.life_time_a, h.life_time_b].iter().flatten().filter(|v| (1..=11).contains(*v)).max().copied();
        let fix_wear =
            "back up now and plan a replacement; meanwhile cut writes (noatime, logs in RAM: Storage=volatile in /etc/systemd/journald.conf, or log2ram)";
        let why_life = "the controller's own estimate of how much of its rated program/erase endurance is used; near the end writes slow down, then the device turns read-only";
        match worst {
            None => out.push(f(
                "emmc-life-unknown",
                Severity::Unknown,
                n,
                format!("{n}: eMMC life-time estimate unknown"),
                "device/life_time is missing or unreadable (needs Linux 4.6+ and an eMMC 5.0+ part), so wear cannot be judged",
            )),
            Some(w) => {
                let sev = if w >= 10 {
                    Severity::Alarm
                } else if w >= 8 {
                    Severity::Warn
                } else {
                    Severity::Ok
                };
                let mut x =
                    f("emmc-life", sev, n, format!("eMMC life used: type A (SLC) {}, type B (MLC) {}", range(h.life_time_a), range(h.life_time_b)), why_life);
                if sev != Severity::Ok {
                    x = x.fix(fix_wear);
                }
                out.push(x);
            }
        }
        match h.pre_eol {
            Some(2) => out.push(
                f(
                    "emmc-pre-eol",
                    Severity::Warn,
                    n,
                    "eMMC pre-EOL: warning (80 % of reserved blocks consumed)".into(),
                    "the pool of spare blocks that replaces worn-out ones is running low",
                )
                .fix(fix_wear),
            ),
            Some(3) => out.push(
                f(
                    "emmc-pre-eol",
                    Severity::Alarm,
                    n,
                    "eMMC pre-EOL: urgent (90 % of reserved blocks consumed)".into(),
                    "the device is about to run out of spare blocks and fail or turn read-only",
                )
                .fix(fix_wear),
            ),
            Some(1) => out.push(f(
                "emmc-pre-eol",
                Severity::Ok,
                n,
                "eMMC pre-EOL: normal".into(),
                "spare blocks are plentiful",
            )),
            _ => {}
        }
    }
    if let Some(p) = d.part.as_ref().filter(|p| p.ufs_life_time_a.is_some() || p.ufs_life_time_b.is_some()) {
        // The UFS health descriptor uses the eMMC scale (JESD220: bDeviceLifeTimeEstA/B).
        let range = |v: Option<u8>| match v {
            Some(v @ 1..=10) => format!("{}–{} %", (v - 1) as u32 * 10, v as u32 * 10),
            Some(11) => "exceeded".to_string(),
            Some(v) => format!("0x{v:02X}?"),
            None => "unknown".to_string(),
        };
        let worst =
            [p.ufs_life_time_a, p.ufs_life_time_b].iter().flatten().filter(|v| (1..=11).contains(*v)).max().copied();
        if let Some(w) = worst {
            let sev = if w >= 10 || p.ufs_pre_eol == Some(3) {
                Severity::Alarm
            } else if w >= 8 || p.ufs_pre_eol == Some(2) {
                Severity::Warn
            } else {
                Severity::Ok
            };
            let mut x = f(
                "ufs-life",
                sev,
                n,
                format!("UFS life used: estimate A {}, estimate B {}", range(p.ufs_life_time_a), range(p.ufs_life_time_b)),
                "the device's own estimate of how much of its rated program/erase endurance is used (health descriptor); near the end writes slow down, then the device turns read-only",
            );
            if sev != Severity::Ok {
                x = x.fix("back up now and plan a replacement; meanwhile cut writes");
            }
            out.push(x);
        }
    }
    if d.rotational == Some(true) && (d.class.is_flash() || matches!(d.class, DeviceClass::Virtio | DeviceClass::Xen)) {
        let vm = matches!(d.class, DeviceClass::Virtio | DeviceClass::Xen);
        let why = if vm {
            "the kernel treats it as a spinning disk (readahead, bfq idling, btrfs's ssd mode tune for seeks); in a VM this only means the hypervisor did not say the disk is flash"
        } else {
            "the kernel treats this flash device as a spinning disk: readahead, bfq idling and filesystem heuristics (btrfs's ssd mode) tune for seeks"
        };
        out.push(
            f("rotational-flash", Severity::Info, n, format!("{n} reports rotational = 1"), why)
                .fix(format!("{root}echo 0 | sudo tee /sys/block/{n}/queue/rotational (until reboot; a udev rule ACTION==\"add|change\", KERNEL==\"{n}\", ATTR{{queue/rotational}}=\"0\" makes it stick){}", if vm { ", if the host's disk is flash" } else { "" })),
        );
    }
    match (d.class, d.scheduler.as_deref()) {
        (DeviceClass::Nvme, Some(s)) if s != "none" => out.push(
            f(
                "scheduler",
                Severity::Info,
                n,
                format!("NVMe {n} uses the {s} I/O scheduler"),
                "NVMe has deep hardware queues; a software scheduler adds CPU time per request for little gain",
            )
            .fix(format!(
                "{root}echo none | sudo tee /sys/block/{n}/queue/scheduler (until reboot; persist with a udev rule)"
            )),
        ),
        (c, Some("none")) if c.is_mmc() => {
            let pick = if d.schedulers_available.iter().any(|s| s == "mq-deadline") {
                "mq-deadline"
            } else if d.schedulers_available.iter().any(|s| s == "bfq") {
                "bfq"
            } else {
                "mq-deadline"
            };
            out.push(
                f(
                    "scheduler",
                    Severity::Info,
                    n,
                    format!("{n} ({}) has no I/O scheduler", d.class_label),
                    "eMMC and SD have one shallow queue: without a scheduler a burst of writes can starve reads (stutter, jank)",
                )
                .fix(format!("{root}echo {pick} | sudo tee /sys/block/{n}/queue/scheduler (until reboot; persist with a udev rule)")),
            );
        }
        _ => {}
    }
    out
}

fn devices_of<'a>(fs: &Filesystem, devices: &'a [Device]) -> Vec<&'a DeviceFacts> {
    match &fs.block {
        Some(b) => {
            b.physical.iter().filter_map(|p| devices.iter().find(|d| &d.facts.name == p)).map(|d| &d.facts).collect()
        }
        None => Vec::new(),
    }
}

/// Findings about one filesystem.
pub fn filesystem_findings(ctx: &Context, fs: &Filesystem, devices: &[Device], stacked: &[Stacked]) -> Vec<Finding> {
    let mut out = Vec::new();
    if fs.read_only {
        return out;
    }
    let mp = fs.mount_point.as_str();
    let q = sh(mp);
    let android = ctx.android.is_some();
    let devs = devices_of(fs, devices);
    let t = fs.fs_type.as_str();
    let opts: Option<&[String]> = fs.options.as_deref();
    let disk = fs.block.as_ref().map(|b| b.disk.clone()).unwrap_or_else(|| "the device".to_string());
    let fstab = if android {
        "the vendor fstab (/vendor/etc/fstab.*; needs root or a rebuilt image, or ask the ROM maintainer)"
    } else {
        "/etc/fstab"
    };

    // --- Usage.
    match &fs.usage {
        Some(u) => {
            let p = pct_shown(u.used_pct);
            let note = match t {
                "f2fs" => "; F2FS then cleans segments in the foreground and stalls writes",
                "ext4" | "ext3" => "; ext4 also fragments free space",
                "btrfs" => "; btrfs can hit ENOSPC on metadata before data is full",
                _ => "",
            };
            let summary = format!("{p:.0} % used ({} free of {})", bytes(u.avail_bytes), bytes(u.size_bytes));
            let fix = if android {
                "free space (Settings → Storage; adb shell pm trim-caches 1000G drops app caches), then adb shell sm idle-maint run to trim it".to_string()
            } else {
                format!("find what is big: sudo du -xh --max-depth=2 {q} | sort -h | tail -20; delete or move it, then sudo fstrim -v {q} so the device learns the space is free")
            };
            if p >= USAGE_ALARM {
                let why = format!("a nearly full flash device has almost no known-free space: its garbage collection copies constantly, so writes slow down and wear rises{note}");
                out.push(f("usage-alarm", Severity::Alarm, mp, summary, &why).fix(fix));
            } else if p >= USAGE_WARN {
                let why = format!("above 80 % full, flash garbage collection has little room: random-write latency climbs as the device fills{note}");
                out.push(f("usage-warn", Severity::Warn, mp, summary, &why).fix(fix));
            } else {
                out.push(f("usage-ok", Severity::Ok, mp, summary, "enough free space for garbage collection to work"));
            }
        }
        None => {
            let why = fs.usage_unknown.clone().unwrap_or_else(|| "not measured".into());
            let mut x = f("usage-unknown", Severity::Unknown, mp, "usage (how full it is) unknown".into(), &why);
            if !ctx.live {
                x = x.fix("capture `df -P -k` into doctor/df.txt (see docs/doctor.md)");
            }
            out.push(x);
        }
    }

    // --- Options known at all?
    let Some(opts) = opts else {
        out.push(f(
            "options-unknown",
            Severity::Unknown,
            mp,
            "mount options unknown (the mount table was cut off here)".into(),
            "discard, barrier, atime and journal settings cannot be checked",
        ));
        trim_findings(ctx, fs, &devs, &disk, &mut out);
        stacked_findings(ctx, fs, stacked, &mut out);
        return sorted(out);
    };
    if !KNOWN_BLOCK.contains(&t) {
        out.push(f(
            "unknown-fs",
            Severity::Unknown,
            mp,
            format!("filesystem type '{t}' is unknown to the doctor"),
            "its options are not checked; trim and usage are still judged",
        ));
    }

    // --- Trim.
    trim_findings(ctx, fs, &devs, &disk, &mut out);

    // --- Online discard, and how it behaves here.
    let discard = opts.iter().any(|o| o == "discard" || o.starts_with("discard=")) && !has(opts, "nodiscard");
    if discard && fs.discard.supported() != Some(false) {
        let on_mmc = devs.iter().any(|d| d.class.is_mmc());
        let async_fs = t == "f2fs" || (t == "btrfs" && has(opts, "discard=async"));
        let in_place = matches!(t, "ext2" | "ext3" | "ext4" | "xfs" | "vfat" | "msdos" | "exfat" | "ntfs3");
        if async_fs {
            out.push(f(
                "online-discard",
                Severity::Ok,
                mp,
                format!("online discard ({t} issues it asynchronously)"),
                &format!("{t} batches discards in the background, so deletes do not wait for them"),
            ));
        } else if in_place && on_mmc {
            let class = devs.iter().find(|d| d.class.is_mmc()).map(|d| d.class_label.clone()).unwrap_or_default();
            out.push(
                f("discard-sync", Severity::Warn, mp, format!("online discard on {t} over {class}"), &format!("{t} sends discards as files are deleted, in the I/O path; eMMC and SD process them slowly (often as erases), so deletes, fsync and everything queued behind them stall"))
                    .fix(if android {
                        format!("remove discard from this filesystem's options in {fstab}; Android idle maintenance already trims it")
                    } else {
                        format!("remove discard from this filesystem's options in {fstab}, then sudo mount -o remount,nodiscard {q}, and trim weekly instead: {}", enable_trim(ctx, mp))
                    }),
            );
        } else {
            out.push(f(
                "online-discard",
                Severity::Info,
                mp,
                format!("online discard on {t}"),
                "each delete sends a discard: fine on most NVMe/UFS, costly on some devices; a weekly fstrim is the common alternative",
            ));
        }
    }

    // --- Barriers.
    let nob: Vec<&str> =
        ["nobarrier", "barrier=0", "fsync_mode=nobarrier"].into_iter().filter(|o| has(opts, o)).collect();
    if !nob.is_empty() {
        let caches: Vec<&str> = devs.iter().filter_map(|d| d.write_cache.as_deref()).collect();
        let (sev, cache_note) = if caches.contains(&"write back") {
            (Severity::Alarm, "the device reports a volatile write cache (write back): nothing protects its contents from a power loss")
        } else if !caches.is_empty() && caches.len() == devs.len() && caches.iter().all(|c| *c == "write through") {
            (Severity::Info, "the device reports a write-through cache (no volatile cache, or one with power-loss protection), so little is at stake until that changes")
        } else {
            (Severity::Warn, "whether the device has a volatile write cache is unknown")
        };
        let fix = if android {
            format!("remove {} from {fstab}", nob.join(" / "))
        } else if t == "f2fs" {
            format!(
                "remove {} from {fstab} (f2fs: fsync_mode=posix is the default); now: sudo mount -o remount,barrier{} {q}",
                nob.join(" / "),
                if has(opts, "fsync_mode=nobarrier") { ",fsync_mode=posix" } else { "" }
            )
        } else {
            format!("remove {} from {fstab}; now: sudo mount -o remount,barrier {q}", nob.join(" / "))
        };
        out.push(
            f("nobarrier", sev, mp, format!("{}: cache flushes disabled", nob.join(", ")), &format!("the filesystem no longer makes the device flush its cache at commits and fsync: after a power cut, data that fsync called durable can be lost and the filesystem corrupted; {cache_note}"))
                .fix(fix)
                .risk("re-enabling barriers costs a cache flush per commit and fsync: slower, and the price of crash safety"),
        );
    }

    // --- atime.
    if !["noatime", "relatime", "lazytime"].iter().any(|o| has(opts, o))
        && !matches!(t, "erofs" | "squashfs" | "iso9660" | "udf" | "cramfs" | "romfs")
    {
        let fix = format!("add noatime to this filesystem's options in {fstab}{}", now_remount(ctx, "noatime", mp));
        out.push(
            f(
                "strictatime",
                Severity::Warn,
                mp,
                "access times written on every read (no noatime/relatime)".into(),
                "each read of a file dirties its inode: reads turn into flash writes and journal commits",
            )
            .fix(fix),
        );
    }

    // --- sync.
    if has(opts, "sync") {
        out.push(
            f(
                "sync-mount",
                Severity::Warn,
                mp,
                "mounted with sync".into(),
                "every write goes to the device before the call returns, in small pieces: throughput collapses and small writes multiply flash wear",
            )
            .fix(format!("remove sync from the options ({fstab} or the automounter's settings){}", now_remount(ctx, "async", mp)))
            .risk("with async, pulling the device out without unmounting loses data still in the page cache: unmount (or run sync) first"),
        );
    }

    // --- ext3/ext4.
    if matches!(t, "ext3" | "ext4") {
        if let Some(c) = opt_value(opts, "commit").and_then(|v| v.parse::<u64>().ok()) {
            if c > 0 && c < 5 {
                out.push(
                    f(
                        "ext4-commit-short",
                        Severity::Info,
                        mp,
                        format!("commit={c}: the journal commits every {c} s"),
                        "more frequent commits than the default 5 s mean more small writes and cache flushes",
                    )
                    .fix(format!("remove commit= (default 5) from {fstab}{}", now_remount(ctx, "commit=5", mp))),
                );
            } else if c > 30 {
                out.push(
                    f(
                        "ext4-commit-long",
                        Severity::Info,
                        mp,
                        format!("commit={c}: the journal commits every {c} s"),
                        "fewer, larger commits save writes",
                    )
                    .risk(format!("up to {c} s of changes are lost on a power cut or crash")),
                );
            }
        }
        match opt_value(opts, "data") {
            Some("journal") => out.push(
                f(
                    "ext4-data-journal",
                    Severity::Warn,
                    mp,
                    "data=journal: every data block is written twice".into(),
                    "file data goes through the journal first: about double the writes and flash wear, and delayed allocation and O_DIRECT are off",
                )
                .fix(format!("use the default data=ordered: remove data=journal from {fstab} and reboot (it cannot change on remount)")),
            ),
            Some("writeback") => out.push(
                f(
                    "ext4-data-writeback",
                    Severity::Warn,
                    mp,
                    "data=writeback: data not ordered before metadata".into(),
                    "metadata can commit before the data it points to: after a crash, files can show stale data from deleted files",
                )
                .fix(format!("use the default data=ordered: remove data=writeback from {fstab} and reboot"))
                .risk("writeback is slightly faster for some workloads; ordered is the safe default"),
            ),
            _ => {}
        }
    }

    // --- F2FS.
    if t == "f2fs" {
        let remount = |o: &str| format!("set {o} in {fstab}{}", now_remount(ctx, o, mp));
        match opt_value(opts, "background_gc") {
            Some("off") => out.push(
                f(
                    "f2fs-bggc-off",
                    Severity::Warn,
                    mp,
                    "background_gc=off: no cleaning while idle".into(),
                    "F2FS then cleans only when it runs out of free segments, in the foreground: writes stall exactly when the device is fullest",
                )
                .fix(remount("background_gc=on")),
            ),
            Some("sync") => out.push(
                f(
                    "f2fs-bggc-sync",
                    Severity::Info,
                    mp,
                    "background_gc=sync: background cleaning blocks".into(),
                    "cleaning runs synchronously and holds up other I/O while it works",
                )
                .fix(remount("background_gc=on")),
            ),
            _ => {}
        }
        if has(opts, "noinline_data") {
            out.push(
                f(
                    "f2fs-noinline-data",
                    Severity::Info,
                    mp,
                    "noinline_data: small files take a whole block".into(),
                    "inline_data keeps files under ~3.4 KiB inside the inode, saving a 4 KiB block write per small file",
                )
                .fix(remount("inline_data")),
            );
        }
        if let Some(n) = opt_value(opts, "active_logs").and_then(|v| v.parse::<u32>().ok()) {
            if n < 6 {
                out.push(
                    f(
                        "f2fs-active-logs",
                        Severity::Info,
                        mp,
                        format!("active_logs={n} (default 6)"),
                        "fewer logs mix hot and cold data in the same segments: the cleaner copies more (higher write amplification)",
                    )
                    .fix(remount("active_logs=6")),
                );
            }
        }
        if opt_value(opts, "fsync_mode") == Some("strict") {
            out.push(
                f(
                    "f2fs-fsync-strict",
                    Severity::Info,
                    mp,
                    "fsync_mode=strict".into(),
                    "stricter fsync semantics cost extra flushes: fsync-heavy apps (SQLite) get slower",
                )
                .fix(remount("fsync_mode=posix")),
            );
        }
    }

    // --- FUSE-driven block filesystem.
    if t == "fuseblk" {
        out.push(
            f(
                "fuseblk",
                Severity::Warn,
                mp,
                "filesystem driven by a FUSE daemon (fuseblk, e.g. ntfs-3g)".into(),
                "every I/O goes through a userspace daemon: several times slower than a kernel driver, with more CPU",
            )
            .fix(format!("use the kernel driver: sudo umount {q} && sudo mount -t ntfs3 {} {q} (Linux 5.15+), and ntfs3 in /etc/fstab", sh(&fs.source)))
            .risk("ntfs3 is younger than ntfs-3g: keep backups"),
        );
    }

    stacked_findings(ctx, fs, stacked, &mut out);
    sorted(out)
}

fn trim_findings(ctx: &Context, fs: &Filesystem, devs: &[&DeviceFacts], disk: &str, out: &mut Vec<Finding>) {
    let mp = fs.mount_point.as_str();
    let android = ctx.android.is_some();
    let support = fs.discard.supported();
    let phys_support = devs.iter().any(|d| d.discard.supported() == Some(true));
    let stacked_dev = fs.block.as_ref().map(|b| !b.physical.contains(&b.disk)).unwrap_or(false);
    if support == Some(false) {
        if stacked_dev && phys_support {
            let phys = devs.iter().map(|d| d.name.clone()).collect::<Vec<_>>().join(", ");
            out.push(
                f("discard-blocked", Severity::Warn, mp, format!("{disk} passes no discards down to {phys}, which supports them"), "a stacking layer (dm-crypt opened without allow-discards, an LVM or md setting) drops TRIM: fstrim and discard do nothing")
                    .fix(format!("dm-crypt: add discard to this volume's options in /etc/crypttab (or sudo cryptsetup refresh --allow-discards NAME), then sudo fstrim -v {}", sh(mp)))
                    .risk("TRIM through encryption reveals which blocks are unused (not their contents); most setups accept that"),
            );
        } else {
            let mut why = "TRIM cannot tell this device which blocks are free, so discard and fstrim do nothing here (common for SD cards behind USB readers and old cards)".to_string();
            if !fs.trimmed_by.is_empty() {
                why.push_str(&format!("; the configured {} has no effect", fs.trimmed_by.join(", ")));
            }
            out.push(f(
                "discard-unsupported",
                Severity::Info,
                mp,
                format!("{disk} takes no discards (discard_max_bytes = 0)"),
                &why,
            ));
        }
        return;
    }
    if !fs.trimmed_by.is_empty() {
        let mut x = f(
            "trim-ok",
            Severity::Ok,
            mp,
            format!("trimmed by {}", fs.trimmed_by.join(", ")),
            "the device learns which blocks are free, so garbage collection copies less and writes stay fast",
        );
        if support.is_none() {
            x.summary.push_str(&format!(" (whether {disk} accepts TRIM is unknown)"));
        }
        out.push(x);
        return;
    }
    let full = fs.usage.as_ref().map(|u| pct_shown(u.used_pct) >= USAGE_WARN).unwrap_or(false);
    let why = "without TRIM the device believes every block ever written still holds data: free blocks run out, garbage collection copies more, writes slow down and the flash wears faster";
    let public_volume = mp.starts_with("/mnt/media_rw/");
    let fix = if android && public_volume {
        "Android trims internal storage only: for an SD card, adopt it as internal storage, or trim it on a PC (sudo fstrim -v MOUNTPOINT)".to_string()
    } else if android {
        "leave the phone idle on its charger overnight so idle maintenance runs; to trim now: adb shell sm idle-maint run (Android 10+), or adb shell sm fstrim".to_string()
    } else {
        enable_trim(ctx, mp)
    };
    let android_what;
    let what = if android && !public_volume {
        android_what = match (ctx.sched.android_idle_maintenance, ctx.sched.android_maintenance_age_days) {
            (false, _) => "and Android before 4.3 has no idle-maintenance fstrim".to_string(),
            (true, Some(d)) => format!(
                "and Android idle maintenance last ran {} ({d:.0} days before this inspection)",
                ctx.sched.android_last_maintenance.as_deref().unwrap_or("?")
            ),
            (true, None) => "and Android idle maintenance is not known to run".to_string(),
        };
        android_what.as_str()
    } else {
        match ctx.sched.fstrim_timer {
            TimerState::Enabled => "fstrim.timer is enabled but systemd is not running here",
            TimerState::Masked => "fstrim.timer is masked",
            TimerState::Disabled => "fstrim.timer is not enabled",
            TimerState::NotInstalled => "no fstrim.timer",
        }
    };
    let summary = if android && !public_volume {
        format!("nothing trims it: no discard option, {what}")
    } else {
        format!("nothing trims it: no discard option, {what}, no cron/anacron fstrim entry")
    };
    match support {
        Some(_) => {
            let sev = if full { Severity::Alarm } else { Severity::Warn };
            out.push(f("no-trim", sev, mp, summary, why).fix(fix));
        }
        None => {
            out.push(
                f(
                    "trim-unknown",
                    Severity::Unknown,
                    mp,
                    format!("nothing trims it, and whether {disk} accepts TRIM is unknown"),
                    "queue/discard_max_bytes could not be read; if the device supports TRIM, it is never told which blocks are free",
                )
                .fix(match &fs.block {
                    Some(_) => format!("check: cat /sys/block/{disk}/queue/discard_max_bytes (non-zero means supported); if so: {fix}"),
                    None => format!("find its device (lsblk) and check that device's queue/discard_max_bytes (non-zero means supported); if so: {fix}"),
                }),
            );
        }
    }
}

fn stacked_findings(ctx: &Context, fs: &Filesystem, stacked: &[Stacked], out: &mut Vec<Finding>) {
    let mp = fs.mount_point.as_str();
    let android = ctx.android.is_some();
    for s in stacked.iter().filter(|s| s.over.as_deref() == Some(mp)) {
        let mps = some_of(&s.mount_points, 2);
        let t = s.fs_type.as_str();
        if t == "fuse" || t.starts_with("fuse.") {
            let passthrough = ctx.android.and_then(|a| a.fuse_passthrough) == Some(true);
            let (sev, extra) = if passthrough {
                (Severity::Info, " (FUSE passthrough is on: reads and writes of open files bypass it; opens, stats and directory walks still cross)")
            } else {
                (Severity::Warn, "")
            };
            let fix = if android {
                "for bulk I/O and benchmarks use the underlying path (/data/media/0 as root, or /data/local/tmp), not /sdcard; on Android 12+ check adb shell getprop persist.sys.fuse.passthrough.enable".to_string()
            } else {
                format!("for bulk I/O and benchmarks use the filesystem directly ({mp}) rather than the FUSE mount")
            };
            out.push(
                f("fuse-over", sev, mp, format!("FUSE over this filesystem: {mps}{extra}"), "every I/O through it crosses to a userspace daemon and back: extra CPU, latency and copies; benchmarks run there measure FUSE, not the flash")
                    .fix(fix),
            );
        } else {
            let why = match t {
                "sdcardfs" | "esdfs" => "an in-kernel stacking layer (permission mapping): cheaper than FUSE, but every lookup and open is done twice",
                "overlay" | "overlayfs" => "a lower-layer file is copied up whole on its first write",
                "ecryptfs" => "each write is encrypted in a stacked layer and cached twice",
                _ => "every operation passes through a second filesystem layer",
            };
            out.push(f("stacked-over", Severity::Info, mp, format!("{t} over this filesystem: {mps}"), why).fix(
                format!(
                    "for benchmarks use the underlying path ({}) rather than {}",
                    if s.source.starts_with('/') { s.source.as_str() } else { mp },
                    s.mount_points[0]
                ),
            ));
        }
    }
}

fn sorted(mut v: Vec<Finding>) -> Vec<Finding> {
    v.sort_by_key(|f| std::cmp::Reverse(f.severity));
    v
}

/// Findings about the system as a whole.
pub fn system_findings(
    ctx: &Context,
    mounts_file: Option<&str>,
    parsed: &Parsed,
    filesystems: &[Filesystem],
) -> Vec<Finding> {
    let mut out = Vec::new();
    let s = "system";
    match mounts_file {
        None => out.push(
            f(
                "mounts-unreadable",
                Severity::Unknown,
                s,
                "the mount table could not be read: no filesystem was checked".into(),
                "the doctor finds filesystems in /proc/self/mountinfo or /proc/mounts",
            )
            .fix("capture /proc/self/mountinfo (or /proc/mounts) into the tree (see docs/doctor.md)"),
        ),
        Some(mf) => {
            if !parsed.bad_lines.is_empty() {
                let lines: Vec<String> = parsed.bad_lines.iter().take(8).map(|n| n.to_string()).collect();
                out.push(f(
                    "mounts-malformed",
                    Severity::Info,
                    s,
                    format!(
                        "{} line(s) of {mf} could not be read and were skipped (line {}{})",
                        parsed.bad_lines.len(),
                        lines.join(", "),
                        if parsed.bad_lines.len() > 8 { ", ..." } else { "" }
                    ),
                    "filesystems on those lines are not checked",
                ));
            }
            if parsed.truncated {
                out.push(
                    f(
                        "mounts-truncated",
                        Severity::Unknown,
                        s,
                        format!("{mf} ends mid-line: it was cut off"),
                        "mounts after the cut are missing, and the last one's options are unknown",
                    )
                    .fix("capture the mount table again"),
                );
            }
            if filesystems.iter().all(|f| f.read_only) {
                out.push(f(
                    "no-block-fs",
                    Severity::Unknown,
                    s,
                    "no writable filesystem on a block device was found".into(),
                    "nothing to judge: the mount table lists only virtual, network or read-only filesystems",
                ));
            }
        }
    }
    if ctx.sched.fstrim_timer == TimerState::Enabled && ctx.sched.systemd_running == Some(false) {
        out.push(f(
            "timer-not-running",
            Severity::Info,
            s,
            format!(
                "fstrim.timer is enabled ({}), but systemd is not running here",
                ctx.sched.timer_enabled_by.as_deref().unwrap_or("?")
            ),
            "the timer never fires here; in a container, trimming the disk is the host's job",
        ));
    }
    if ctx.sched.android_idle_maintenance {
        let mut last =
            ctx.sched.android_last_maintenance.as_deref().map(|l| format!("; last run: {l}")).unwrap_or_default();
        if let Some(d) = ctx.sched.android_maintenance_age_days {
            last.push_str(&format!(" ({d:.0} days before this inspection"));
            last.push_str(if ctx.sched.android_maintenance_stale { ": not trimming in practice)" } else { ")" });
        }
        out.push(
            f(
                "android-idle-maint",
                Severity::Info,
                s,
                format!("Android idle maintenance trims internal storage{last}"),
                "it runs at most daily and only while the phone is idle and charging: a phone rarely left charging is rarely trimmed",
            )
            .fix("to trim now: adb shell sm idle-maint run"),
        );
    }
    sorted(out)
}
