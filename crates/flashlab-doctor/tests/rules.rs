//! One rule at a time, on small synthetic trees.

mod common;

use common::TreeBuilder;
use flashlab_doctor::{inspect, Report, Severity};

fn sev(r: &Report, subject: &str, id: &str) -> Option<Severity> {
    r.finding(subject, id).map(|f| f.severity)
}

/// A Linux box with one ext4 (or other) filesystem on sda1 mounted with `opts`, 50 % full.
fn one_fs(fs: &str, opts: &str, write_cache: &str) -> TreeBuilder {
    let t = TreeBuilder::new();
    t.file("proc/self/mountinfo", &format!("30 1 8:1 / /srv rw,relatime - {fs} /dev/sda1 {opts}\n"))
        .disk("sda", "8:0", "0", "[mq-deadline] none", write_cache, "2147450880", &[("sda1", 1, "8:1")])
        .file(
            "doctor/df.txt",
            "Filesystem 1K-blocks Used Available Use% Mounted on\n/dev/sda1 1000 500 500 50% /srv\n",
        );
    t
}

#[test]
fn nobarrier_severity_follows_the_write_cache() {
    let r = inspect(one_fs("ext4", "rw,barrier=0", "write back").path());
    assert_eq!(sev(&r, "/srv", "nobarrier"), Some(Severity::Alarm));
    let r = inspect(one_fs("ext4", "rw,nobarrier", "write through").path());
    assert_eq!(sev(&r, "/srv", "nobarrier"), Some(Severity::Info));
    let r = inspect(one_fs("ext4", "rw,barrier=1", "write back").path());
    assert_eq!(sev(&r, "/srv", "nobarrier"), None);
}

#[test]
fn ext4_options() {
    let r = inspect(one_fs("ext4", "rw,data=journal,commit=1", "write back").path());
    assert_eq!(sev(&r, "/srv", "ext4-data-journal"), Some(Severity::Warn));
    assert_eq!(sev(&r, "/srv", "ext4-commit-short"), Some(Severity::Info));
    let r = inspect(one_fs("ext4", "rw,data=writeback", "write back").path());
    assert_eq!(sev(&r, "/srv", "ext4-data-writeback"), Some(Severity::Warn));
    assert!(r.finding("/srv", "ext4-data-writeback").unwrap().risk.is_some());
}

#[test]
fn strictatime_and_sync() {
    let t = TreeBuilder::new();
    t.file("proc/self/mountinfo", "30 1 8:1 / /media/usb rw,nosuid,sync - vfat /dev/sda1 rw,fmask=0022\n").disk(
        "sda",
        "8:0",
        "0",
        "[mq-deadline] none",
        "write through",
        "0",
        &[("sda1", 1, "8:1")],
    );
    let r = inspect(t.path());
    assert_eq!(sev(&r, "/media/usb", "strictatime"), Some(Severity::Warn));
    assert_eq!(sev(&r, "/media/usb", "sync-mount"), Some(Severity::Warn));
    assert_eq!(sev(&r, "/media/usb", "discard-unsupported"), Some(Severity::Info));
    assert_eq!(sev(&r, "/media/usb", "no-trim"), None, "nothing to trim with");
}

#[test]
fn f2fs_options() {
    let r = inspect(
        one_fs(
            "f2fs",
            "rw,noatime,background_gc=off,noinline_data,active_logs=2,fsync_mode=strict,discard",
            "write back",
        )
        .path(),
    );
    assert_eq!(sev(&r, "/srv", "f2fs-bggc-off"), Some(Severity::Warn));
    assert_eq!(sev(&r, "/srv", "f2fs-noinline-data"), Some(Severity::Info));
    assert_eq!(sev(&r, "/srv", "f2fs-active-logs"), Some(Severity::Info));
    assert_eq!(sev(&r, "/srv", "f2fs-fsync-strict"), Some(Severity::Info));
    assert_eq!(sev(&r, "/srv", "online-discard"), Some(Severity::Ok));
    assert_eq!(sev(&r, "/srv", "trim-ok"), Some(Severity::Ok));
}

#[test]
fn fuseblk_is_a_block_filesystem_with_a_warning() {
    let t = TreeBuilder::new();
    t.file(
        "proc/self/mountinfo",
        "30 1 8:17 / /media/win rw,relatime - fuseblk /dev/sdb1 rw,user_id=0,group_id=0,allow_other\n",
    )
    .disk("sdb", "8:16", "0", "[mq-deadline] none", "write back", "0", &[("sdb1", 1, "8:17")]);
    let r = inspect(t.path());
    assert_eq!(sev(&r, "/media/win", "fuseblk"), Some(Severity::Warn));
}

#[test]
fn dm_crypt_that_drops_discards() {
    let t = TreeBuilder::new();
    t.file("proc/self/mountinfo", "30 1 253:0 / / rw,noatime - ext4 /dev/mapper/cryptroot rw\n")
        .disk(
            "nvme0n1",
            "259:0",
            "0",
            "[none] mq-deadline",
            "write back",
            "2199023255040",
            &[("nvme0n1p2", 2, "259:2")],
        )
        .disk("dm-0", "253:0", "0", "none", "write back", "0", &[])
        .file("sys/block/dm-0/dm/name", "cryptroot")
        .file("sys/block/dm-0/slaves/nvme0n1p2", "")
        .file("etc/systemd/system/timers.target.wants/fstrim.timer", "")
        .file(
            "doctor/df.txt",
            "Filesystem 1K-blocks Used Available Use% Mounted on\n/dev/mapper/cryptroot 1000 100 900 10% /\n",
        );
    let r = inspect(t.path());
    let f = r.finding("/", "discard-blocked").expect("discard-blocked");
    assert_eq!(f.severity, Severity::Warn);
    assert!(f.fix.as_deref().unwrap().contains("crypttab"));
    assert!(f.risk.is_some());
    let b = r.filesystem("/").unwrap().block.as_ref().unwrap();
    assert_eq!(b.chain, vec!["dm-0", "nvme0n1"]);
    // Without device numbers (only /proc/mounts), /dev/mapper/NAME resolves by dm name.
    std::fs::remove_file(t.path().join("proc/self/mountinfo")).unwrap();
    t.file("proc/mounts", "/dev/mapper/cryptroot / ext4 rw,noatime 0 0\n");
    let r = inspect(t.path());
    assert_eq!(r.filesystem("/").unwrap().block.as_ref().unwrap().node, "dm-0");
    assert_eq!(sev(&r, "/", "discard-blocked"), Some(Severity::Warn));
}

#[test]
fn worn_emmc() {
    let t = TreeBuilder::new();
    t.file("proc/self/mountinfo", "30 1 179:1 / / rw,noatime - ext4 /dev/mmcblk0p1 rw,discard\n")
        .disk("mmcblk0", "179:0", "1", "[none]", "write back", "4194304", &[("mmcblk0p1", 1, "179:1")])
        .file("sys/block/mmcblk0/device/type", "MMC")
        .file("sys/block/mmcblk0/device/life_time", "0x0A 0x0B")
        .file("sys/block/mmcblk0/device/pre_eol_info", "0x03");
    let r = inspect(t.path());
    assert_eq!(sev(&r, "mmcblk0", "emmc-life"), Some(Severity::Alarm));
    assert!(r.finding("mmcblk0", "emmc-life").unwrap().summary.contains("exceeded"));
    assert_eq!(sev(&r, "mmcblk0", "emmc-pre-eol"), Some(Severity::Alarm));
    assert_eq!(sev(&r, "mmcblk0", "rotational-flash"), Some(Severity::Info));
    assert_eq!(sev(&r, "mmcblk0", "scheduler"), Some(Severity::Info));
    assert_eq!(sev(&r, "/", "discard-sync"), Some(Severity::Warn));
}

#[test]
fn cron_fstrim_counts_as_trimming() {
    let t = one_fs("ext4", "rw,noatime", "write back");
    t.file("etc/cron.d/fstrim", "# weekly trim\n@weekly root /sbin/fstrim /srv\n");
    let r = inspect(t.path());
    assert_eq!(sev(&r, "/srv", "trim-ok"), Some(Severity::Ok));
    assert!(r.filesystem("/srv").unwrap().trimmed_by[0].starts_with("cron: /etc/cron.d/fstrim:2"));
}

#[test]
fn masked_timer_and_no_systemd() {
    let t = one_fs("ext4", "rw,noatime", "write back");
    std::fs::create_dir_all(t.path().join("etc/systemd/system")).unwrap();
    std::os::unix::fs::symlink("/dev/null", t.path().join("etc/systemd/system/fstrim.timer")).unwrap();
    let r = inspect(t.path());
    assert_eq!(r.trim.fstrim_timer, flashlab_doctor::TimerState::Masked);
    let f = r.finding("/srv", "no-trim").unwrap();
    assert_eq!(f.severity, Severity::Warn);
    assert!(f.fix.as_deref().unwrap().contains("unmask"));
}

#[test]
fn nvme_with_a_scheduler() {
    let t = TreeBuilder::new();
    t.file("proc/self/mountinfo", "30 1 259:1 / / rw,noatime - xfs /dev/nvme0n1p1 rw\n").disk(
        "nvme0n1",
        "259:0",
        "0",
        "none [mq-deadline]",
        "write back",
        "512",
        &[("nvme0n1p1", 1, "259:1")],
    );
    let r = inspect(t.path());
    assert_eq!(sev(&r, "nvme0n1", "scheduler"), Some(Severity::Info));
    assert_eq!(sev(&r, "/", "no-trim"), Some(Severity::Warn), "usage unknown: warn, not alarm");
    assert_eq!(sev(&r, "/", "usage-unknown"), Some(Severity::Unknown));
}

#[test]
fn overlay_over_a_block_filesystem() {
    let t = one_fs("ext4", "rw,noatime", "write back");
    t.file(
        "proc/self/mountinfo",
        "30 1 8:1 / /srv rw,relatime - ext4 /dev/sda1 rw\n40 1 0:50 / /merged rw - overlay overlay rw,lowerdir=/srv/low,upperdir=/srv/up,workdir=/srv/work\n",
    );
    let r = inspect(t.path());
    assert_eq!(sev(&r, "/srv", "stacked-over"), Some(Severity::Info));
    assert_eq!(r.stacked[0].traced_by, "upperdir");
}

#[test]
fn absolute_symlinks_in_a_capture_stay_inside_it() {
    // `cp -a` of /proc/self gives a link to this machine's file: the tree's copy is read instead.
    let t = TreeBuilder::new();
    t.file("captured/mountinfo", "30 1 8:1 / /srv rw,noatime - ext4 /dev/sda1 rw\n");
    std::fs::create_dir_all(t.path().join("proc/self")).unwrap();
    std::os::unix::fs::symlink("/captured/mountinfo", t.path().join("proc/self/mountinfo")).unwrap();
    let r = inspect(t.path());
    assert_eq!(r.filesystems.len(), 1);
    assert_eq!(r.filesystems[0].mount_point, "/srv");
}
