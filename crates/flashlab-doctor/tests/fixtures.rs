//! Expected findings for the captured trees under tests/fixtures/.

use flashlab_doctor::{inspect, render_text, DeviceClass, Report, Severity, TimerState};
use std::path::PathBuf;

fn fixture(name: &str) -> Report {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    assert!(dir.is_dir(), "missing fixture {}", dir.display());
    inspect(&dir)
}

fn list(r: &Report) -> String {
    r.all_findings()
        .iter()
        .map(|f| format!("  {} {} {:?}: {}", f.subject, f.id, f.severity, f.summary))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The severity of finding `id` about `subject`; fails listing every finding when absent.
fn sev(r: &Report, subject: &str, id: &str) -> Severity {
    match r.finding(subject, id) {
        Some(f) => f.severity,
        None => panic!("no finding {id} for {subject}; findings:\n{}", list(r)),
    }
}

fn absent(r: &Report, subject: &str, id: &str) {
    assert!(r.finding(subject, id).is_none(), "unexpected finding {id} for {subject}; findings:\n{}", list(r));
}

/// Every finding has the parts a reader needs.
fn well_formed(r: &Report) {
    for f in r.all_findings() {
        assert!(!f.id.is_empty() && !f.summary.is_empty() && !f.why.is_empty(), "{f:?}");
        assert!(!f.summary.contains('\n') && !f.why.contains('\n'), "one line each: {f:?}");
        if matches!(f.severity, Severity::Warn | Severity::Alarm) {
            assert!(f.fix.is_some(), "a warning or alarm says how to fix it: {f:?}");
        }
    }
    // The text report and the JSON both render, and the JSON reads back.
    let text = render_text(r, false);
    assert!(!text.contains('\x1b'));
    // Its tables (devices, filesystems, findings) fit 80 columns, and every finding has a row.
    let tables = flashlab_doctor::render::tables(r);
    assert_eq!(tables[2].rows.len(), r.all_findings().len());
    for t in &tables {
        let drawn = flashlab_results::export::terminal(t);
        assert!(drawn.lines().all(|l| l.chars().count() <= 80), "{} wider than 80 columns:\n{drawn}", t.title);
        assert!(t.rows.is_empty() || text.contains(drawn.lines().next().unwrap()), "{} not shown:\n{text}", t.title);
    }
    assert!(render_text(r, true).contains("\x1b["));
    let json = serde_json::to_string(r).unwrap();
    let back: Report = serde_json::from_str(&json).unwrap();
    assert_eq!(&back, r);
}

#[test]
fn ubuntu_sbc_on_emmc_without_trim_and_92_percent_full() {
    let r = fixture("ubuntu-sbc-emmc");
    well_formed(&r);
    assert!(r.android.is_none());
    assert_eq!(r.trim.fstrim_timer, TimerState::Disabled);
    assert!(r.trim.cron.is_empty(), "a commented-out fstrim line is not an entry: {:?}", r.trim.cron);

    let root = r.filesystem("/").unwrap();
    assert_eq!(root.fs_type, "ext4");
    let b = root.block.as_ref().unwrap();
    assert_eq!((b.node.as_str(), b.disk.as_str(), b.partition), ("mmcblk0p2", "mmcblk0", Some(2)));
    assert_eq!(root.usage.as_ref().unwrap().from, "df");
    assert!(root.trimmed_by.is_empty());

    assert_eq!(sev(&r, "/", "usage-alarm"), Severity::Alarm);
    assert!(r.finding("/", "usage-alarm").unwrap().summary.starts_with("92 % used"));
    assert_eq!(sev(&r, "/", "no-trim"), Severity::Alarm, "no trim on a 92 % full eMMC is an alarm");
    assert!(r.finding("/", "no-trim").unwrap().fix.as_deref().unwrap().contains("systemctl enable --now fstrim.timer"));
    assert_eq!(sev(&r, "/", "ext4-commit-long"), Severity::Info);
    assert_eq!(sev(&r, "/boot/firmware", "no-trim"), Severity::Warn, "a 25 % full vfat: warn");
    assert_eq!(sev(&r, "/boot/firmware", "usage-ok"), Severity::Ok);
    absent(&r, "/", "nobarrier");
    absent(&r, "/", "strictatime");

    let d = r.device("mmcblk0").unwrap();
    assert_eq!(d.facts.class, DeviceClass::Emmc);
    assert_eq!(d.facts.rotational, Some(false));
    assert_eq!(d.facts.scheduler.as_deref(), Some("mq-deadline"));
    assert_eq!(d.facts.write_cache.as_deref(), Some("write back"));
    assert_eq!(d.facts.discard.max_bytes, Some(4294966784));
    let h = d.facts.emmc.as_ref().unwrap();
    assert_eq!((h.life_time_a, h.life_time_b, h.pre_eol), (Some(2), Some(3), Some(1)));
    assert_eq!(sev(&r, "mmcblk0", "emmc-life"), Severity::Ok);
    assert_eq!(sev(&r, "mmcblk0", "emmc-pre-eol"), Severity::Ok);
    // Snaps are read-only squashfs on loop devices: listed, not judged, not devices.
    assert!(r.filesystem("/snap/core20/2015").unwrap().read_only);
    assert!(r.filesystem("/snap/core20/2015").unwrap().findings.is_empty());
    assert!(r.device("loop0").is_none());
    assert_eq!((r.summary.alarm, r.summary.warn), (2, 1));
}

#[test]
fn laptop_on_nvme_with_fstrim_timer() {
    let r = fixture("laptop-nvme-timer");
    well_formed(&r);
    assert_eq!(r.trim.fstrim_timer, TimerState::Enabled);
    assert_eq!(r.trim.systemd_running, Some(true));
    for mp in ["/", "/home", "/boot/efi"] {
        assert_eq!(sev(&r, mp, "trim-ok"), Severity::Ok);
        assert!(r.filesystem(mp).unwrap().trimmed_by.contains(&"fstrim.timer".to_string()));
        assert_eq!(sev(&r, mp, "usage-ok"), Severity::Ok);
        absent(&r, mp, "no-trim");
    }
    // btrfs subvolume: anonymous device number, resolved through the source.
    let home = r.filesystem("/home").unwrap();
    assert_eq!(home.block.as_ref().unwrap().node, "nvme0n1p3");
    assert_eq!(sev(&r, "/home", "online-discard"), Severity::Ok);
    let d = r.device("nvme0n1").unwrap();
    assert_eq!(d.facts.class, DeviceClass::Nvme);
    assert_eq!(d.facts.model.as_deref(), Some("Samsung SSD 980 PRO 1TB"));
    absent(&r, "nvme0n1", "scheduler");
    // Desktop FUSE mounts are listed but not tied to a filesystem.
    assert!(r.stacked.iter().any(|s| s.fs_type == "fuse.gvfsd-fuse" && s.over.is_none()));
    assert_eq!((r.summary.alarm, r.summary.warn, r.summary.unknown), (0, 0, 0));
}

#[test]
fn android_with_ext4_data_and_fuse_storage() {
    let r = fixture("android-ext4-fuse");
    well_formed(&r);
    let a = r.android.as_ref().unwrap();
    assert_eq!(a.sdk, Some(33));
    assert_eq!(a.fuse_passthrough, Some(false));
    assert!(r.trim.android_idle_maintenance);
    assert_eq!(r.trim.android_last_maintenance.as_deref(), Some("2024-05-02 03:11:54"));

    let data = r.filesystem("/data").unwrap();
    assert_eq!(data.fs_type, "ext4");
    assert!(data.other_mount_points.contains(&"/data/user/0".to_string()));
    let b = data.block.as_ref().unwrap();
    assert_eq!(b.chain, vec!["dm-6", "sda"]);
    assert_eq!(b.physical, vec!["sda"]);
    assert!(b.layers[0].contains("userdata"));
    assert!(data.stacked_over_by.contains(&"/storage/emulated".to_string()));

    assert_eq!(sev(&r, "/data", "fuse-over"), Severity::Warn);
    assert!(r.finding("/data", "fuse-over").unwrap().summary.contains("/storage/emulated"));
    assert_eq!(sev(&r, "/data", "trim-ok"), Severity::Ok);
    assert!(data.trimmed_by.contains(&"Android idle maintenance".to_string()));
    assert_eq!(sev(&r, "/data", "usage-ok"), Severity::Ok);
    absent(&r, "/data", "nobarrier");
    absent(&r, "/data", "no-trim");
    assert_eq!(sev(&r, "/metadata", "ext4-commit-short"), Severity::Info);
    assert_eq!(sev(&r, "/metadata", "online-discard"), Severity::Info, "online discard on UFS is informational");
    assert_eq!(sev(&r, "system", "android-idle-maint"), Severity::Info);

    let d = r.device("sda").unwrap();
    assert_eq!(d.facts.class, DeviceClass::Ufs, "the sysfs link names the UFS host");
    assert_eq!(d.facts.model.as_deref(), Some("SAMSUNG KLUDG4UHGC-B0E1"));
    // The FUSE mount is not itself a block filesystem.
    assert!(r.filesystem("/storage/emulated").is_none());
    // What the capture script could not read is passed on.
    assert!(r
        .problems
        .iter()
        .any(|p| p.path == "/sys/block/sda/device/unique_id" && p.reason.contains("Permission denied")));
    // The UFS health descriptor: estimate A 80–90 % used is a warning.
    let p = d.facts.part.as_ref().unwrap();
    assert_eq!((p.interface.as_str(), p.ufs_life_time_a, p.ufs_pre_eol), ("UFS 3.1", Some(9), Some(1)));
    assert_eq!(sev(&r, "sda", "ufs-life"), Severity::Warn);
    assert!(r.finding("sda", "ufs-life").unwrap().summary.contains("80–90 %"));
    assert_eq!((r.summary.alarm, r.summary.warn), (0, 2));
}

#[test]
fn android_with_f2fs_data_discard_and_nobarrier() {
    let r = fixture("android-f2fs-nobarrier");
    well_formed(&r);
    assert_eq!(r.source.mounts_file.as_deref(), Some("/proc/mounts"), "this capture has only /proc/mounts");
    let data = r.filesystem("/data").unwrap();
    assert_eq!(data.fs_type, "f2fs");
    assert_eq!(data.block.as_ref().unwrap().node, "mmcblk0p47");

    let nob = r.finding("/data", "nobarrier").unwrap();
    assert_eq!(nob.severity, Severity::Alarm, "nobarrier over a write-back cache");
    assert!(nob.summary.contains("nobarrier") && nob.summary.contains("fsync_mode=nobarrier"));
    assert!(nob.risk.is_some());
    assert_eq!(sev(&r, "/data", "online-discard"), Severity::Ok, "F2FS discards asynchronously");
    assert_eq!(sev(&r, "/data", "trim-ok"), Severity::Ok);
    assert!(data.trimmed_by.contains(&"online discard".to_string()));
    assert_eq!(sev(&r, "/data", "usage-warn"), Severity::Warn);
    assert_eq!(sev(&r, "/data", "stacked-over"), Severity::Info, "sdcardfs over /data");
    absent(&r, "/data", "f2fs-bggc-off");
    absent(&r, "/data", "f2fs-active-logs");
    absent(&r, "/data", "strictatime");

    // ext4 with online discard on eMMC stalls deletes.
    assert_eq!(sev(&r, "/cache", "discard-sync"), Severity::Warn);
    // The SD card: vold's device name resolves by device number; the card takes no discards,
    // and Android's maintenance does not trim public volumes.
    let sd = r.filesystem("/mnt/media_rw/1234-ABCD").unwrap();
    assert_eq!(sd.block.as_ref().unwrap().disk, "mmcblk1");
    assert!(!sd.trimmed_by.contains(&"Android idle maintenance".to_string()));
    assert_eq!(sev(&r, "/mnt/media_rw/1234-ABCD", "discard-unsupported"), Severity::Info);
    assert_eq!(r.device("mmcblk1").unwrap().facts.class, DeviceClass::Sd);
    assert!(r.device("mmcblk1").unwrap().facts.emmc.is_none(), "SD cards have no eMMC life-time fields");
    assert_eq!(sev(&r, "mmcblk0", "emmc-life"), Severity::Ok);
    assert_eq!(r.summary.alarm, 1);
}

/// A Pixel-like phone (Android 13, UFS 2.1, ext4 /data under metadata encryption, FUSE shared
/// storage without passthrough), 87 % full, whose idle maintenance last ran 37 days before the
/// capture: FUSE, fullness and "nothing trims it" are all flagged.
#[test]
fn pixel_like_ext4_fuse_87_percent_full_and_stale_maintenance() {
    let r = fixture("pixel-ext4-fuse");
    well_formed(&r);
    let a = r.android.as_ref().unwrap();
    assert_eq!((a.model.as_deref(), a.sdk), (Some("Google Pixel 4a"), Some(33)));
    let data = r.filesystem("/data").unwrap();
    assert_eq!(data.fs_type, "ext4");
    assert_eq!(data.block.as_ref().unwrap().chain, vec!["dm-5", "sda"]);
    assert!(data.stacked_over_by.contains(&"/storage/emulated".to_string()));

    assert_eq!(sev(&r, "/data", "fuse-over"), Severity::Warn, "FUSE shared storage without passthrough");
    assert_eq!(sev(&r, "/data", "usage-warn"), Severity::Warn);
    assert!(r.finding("/data", "usage-warn").unwrap().summary.starts_with("87 % used"));
    // Idle maintenance last ran 2026-01-22, the capture is of 2026-02-28: 37 days.
    let age = r.trim.android_maintenance_age_days.unwrap();
    assert!((age - 37.7).abs() < 0.1, "{age}");
    assert!(r.trim.android_maintenance_stale);
    assert!(data.trimmed_by.is_empty(), "{:?}", data.trimmed_by);
    let nt = r.finding("/data", "no-trim").unwrap();
    assert_eq!(nt.severity, Severity::Alarm, "no discard, no working schedule, 87 % full");
    assert!(nt.summary.contains("no discard option") && nt.summary.contains("38 days"), "{}", nt.summary);
    assert!(nt.fix.as_deref().unwrap().contains("sm idle-maint run"));
    absent(&r, "/data", "trim-ok");
    absent(&r, "/data", "nobarrier");
    // /metadata has online discard: trimmed whatever the maintenance does.
    assert_eq!(sev(&r, "/metadata", "trim-ok"), Severity::Ok);
    assert!(r.finding("system", "android-idle-maint").unwrap().summary.contains("not trimming in practice"));

    let d = r.device("sda").unwrap();
    assert_eq!(d.facts.class, DeviceClass::Ufs);
    let p = d.facts.part.as_ref().expect("UFS descriptors were captured");
    assert_eq!(p.interface, "UFS 2.1");
    assert_eq!((p.manufacturer.as_deref(), p.product.as_deref()), (Some("MICRON"), Some("MT128GASAO4U21")));
    assert_eq!(p.ufs_life_time_a, None, "the health descriptor was denied");
    assert!(r.problems.iter().any(|x| x.path.ends_with("health_descriptor/life_time_estimation_a")));
    assert!(render_text(&r, false).contains("part: UFS 2.1 · MICRON \"MT128GASAO4U21\""));
}

/// A Moto Z-like phone (Android 8.0, UFS 2.0 on a 3.18 kernel without UFS descriptors in sysfs,
/// F2FS /data with nobarrier and without discard, esdfs shared storage), 91 % full, idle
/// maintenance 53 days before the capture.
#[test]
fn motoz_like_f2fs_nobarrier_esdfs_91_percent_full() {
    let r = fixture("motoz-f2fs-esdfs");
    well_formed(&r);
    let data = r.filesystem("/data").unwrap();
    assert_eq!(data.fs_type, "f2fs");
    assert_eq!(data.block.as_ref().unwrap().node, "sda30");
    let nob = r.finding("/data", "nobarrier").unwrap();
    assert_eq!(nob.severity, Severity::Alarm, "nobarrier over a volatile write cache");
    assert!(nob.why.contains("power loss"), "{}", nob.why);
    assert_eq!(sev(&r, "/data", "usage-alarm"), Severity::Alarm);
    assert!(r.finding("/data", "usage-alarm").unwrap().summary.starts_with("91 % used"));
    assert_eq!(sev(&r, "/data", "no-trim"), Severity::Alarm);
    assert!(r.finding("/data", "no-trim").unwrap().summary.contains("53 days"));
    let st = r.finding("/data", "stacked-over").unwrap();
    assert_eq!(st.severity, Severity::Info);
    assert!(st.summary.starts_with("esdfs over this filesystem"), "{}", st.summary);
    absent(&r, "/data", "fuse-over");
    absent(&r, "/data", "online-discard");
    let d = r.device("sda").unwrap();
    assert_eq!(d.facts.class, DeviceClass::Ufs);
    let p = d.facts.part.as_ref().unwrap();
    assert_eq!(p.interface, "UFS", "no descriptors on this kernel: the version is unknown");
    assert!(p.from.is_empty());
    assert_eq!(d.facts.model.as_deref(), Some("SAMSUNG KLUCG4J1ED-B0C1"));
}

#[test]
fn emmc_part_from_the_card_fields() {
    let r = fixture("android-f2fs-nobarrier");
    let p = r.device("mmcblk0").unwrap().facts.part.clone().unwrap();
    assert_eq!(p.interface, "eMMC 5.1");
    assert_eq!(p.manufacturer.as_deref(), Some("Samsung (0x15)"));
    assert_eq!(
        (p.product.as_deref(), p.revision.as_deref(), p.date.as_deref()),
        (Some("HAG4a2"), Some("0.3"), Some("11/2019"))
    );
    assert!(r.device("mmcblk1").unwrap().facts.part.is_none(), "SD cards are not eMMC parts");
}

#[test]
fn partial_and_malformed_capture_gives_unknowns_not_crashes() {
    let r = fixture("partial-truncated");
    well_formed(&r);
    assert_eq!(sev(&r, "system", "mounts-truncated"), Severity::Unknown);
    assert_eq!(sev(&r, "system", "mounts-malformed"), Severity::Info);
    // No df capture: usage unknown, with the reason.
    assert_eq!(sev(&r, "/", "usage-unknown"), Severity::Unknown);
    assert!(r.filesystem("/").unwrap().usage_unknown.as_deref().unwrap().contains("df.txt"));
    // queue/discard_max_bytes missing: trim support unknown, said as such.
    assert_eq!(sev(&r, "/", "trim-unknown"), Severity::Unknown);
    // The cut-off last line: its options are unknown.
    assert_eq!(sev(&r, "/home", "options-unknown"), Severity::Unknown);
    assert!(r.filesystem("/home").unwrap().options.is_none());
    // An unknown filesystem on a device missing from sysfs.
    assert_eq!(sev(&r, "/mnt/data", "unknown-fs"), Severity::Unknown);
    assert_eq!(sev(&r, "sdz", "sysfs-missing"), Severity::Unknown);
    let d = r.device("mmcblk0").unwrap();
    assert_eq!(d.facts.scheduler, None, "a garbage scheduler file reads as unknown");
    assert_eq!(d.facts.rotational, None);
    assert!(r.problems.iter().any(|p| p.path == "/sys/block/mmcblk0/queue/discard_max_bytes"));
    assert!(r.problems.iter().any(|p| p.path == "/doctor/df.txt"));
    let text = render_text(&r, false);
    assert!(text.contains("unknown"));
    assert!(text.contains("Could not read"));
}

#[test]
fn missing_tree_reports_that_nothing_could_be_read() {
    let dir = tempfile::tempdir().unwrap();
    let r = inspect(dir.path());
    assert_eq!(sev(&r, "system", "mounts-unreadable"), Severity::Unknown);
    assert!(r.filesystems.is_empty());
    assert!(r.problems.iter().any(|p| p.path == "/proc/self/mountinfo"));
    let _ = render_text(&r, false);
}

/// The live system: the report describes what this machine actually has. The root
/// filesystem's type and source are read here from /proc/self/mountinfo independently of the
/// doctor's parser, its size from statvfs, its disk's size from sysfs; `/` gets one TRIM
/// verdict and the JSON round-trips.
#[test]
fn live_system_describes_the_root_filesystem() {
    let r = flashlab_doctor::inspect_live();
    assert!(r.source.live);
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    // The last line mounted on / is the one in effect (fields: id parent maj:min root mount_point ... - type source options).
    let root_line = mountinfo.lines().rfind(|l| l.split(' ').nth(4) == Some("/")).expect("/ in mountinfo");
    let after = root_line.split(" - ").nth(1).unwrap();
    let mut f = after.split(' ');
    let (fs_type, source) = (f.next().unwrap(), f.next().unwrap());
    let root = r.filesystems.iter().find(|f| f.mount_point == "/").unwrap_or_else(|| {
        panic!(
            "no / in the live report; filesystems: {:?}",
            r.filesystems.iter().map(|f| &f.mount_point).collect::<Vec<_>>()
        )
    });
    assert_eq!((root.fs_type.as_str(), root.source.as_str()), (fs_type, source), "{root_line}");
    // SAFETY: struct statvfs is plain data; all zeros is a valid value.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: statvfs on a NUL-terminated path into a zeroed struct.
    assert_eq!(unsafe { libc::statvfs(c"/".as_ptr(), &mut st) }, 0);
    let usage = root.usage.as_ref().unwrap_or_else(|| panic!("no usage for /: {:?}", root.usage_unknown));
    assert_eq!(usage.size_bytes, st.f_blocks as u64 * st.f_frsize as u64, "{usage:?}");
    let verdicts: Vec<&str> = root
        .findings
        .iter()
        .map(|f| f.id.as_str())
        .filter(|id| ["trim-ok", "no-trim", "trim-unknown"].contains(id))
        .collect();
    assert_eq!(verdicts.len(), 1, "one TRIM verdict for /: {verdicts:?}; findings:\n{}", list(&r));
    if let Some(b) = &root.block {
        let sectors = std::fs::read_to_string(format!("/sys/block/{}/size", b.disk)).unwrap();
        let dev = r.devices.iter().find(|d| d.facts.name == b.disk).unwrap_or_else(|| panic!("no device {}", b.disk));
        assert_eq!(dev.facts.size_bytes, Some(sectors.trim().parse::<u64>().unwrap() * 512), "{}", b.disk);
    }
    let text = render_text(&r, false);
    assert!(text.contains(fs_type), "{text}");
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["filesystems"].as_array().unwrap().len(), r.filesystems.len());
    well_formed(&r);
}
