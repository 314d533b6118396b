//! Captured trees for `flashlab doctor --root`: a copy of a real capture (the ubuntu-sbc-emmc
//! fixture) whose mount table, df output and sysfs attributes are replaced by the input (split
//! at NUL bytes, one piece per file), then inspected and rendered.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The files the input overwrites, in order.
const FILES: &[&str] = &[
    "proc/self/mountinfo",
    "doctor/df.txt",
    "sys/block/mmcblk0/dev",
    "sys/block/mmcblk0/size",
    "sys/block/mmcblk0/queue/discard_max_bytes",
    "sys/block/mmcblk0/queue/scheduler",
    "sys/block/mmcblk0/device/life_time",
    "sys/block/mmcblk0/device/pre_eol_info",
    "sys/block/mmcblk0/device/type",
    "sys/block/mmcblk0/mmcblk0p2/dev",
    "sys/block/mmcblk0/mmcblk0p2/partition",
    "etc/crontab",
    "doctor/getprop.txt",
];

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        let ty = e.file_type().unwrap();
        if ty.is_dir() {
            copy_tree(&e.path(), &dst);
        } else if ty.is_symlink() {
            let _ = std::os::unix::fs::symlink(std::fs::read_link(e.path()).unwrap(), &dst);
        } else {
            std::fs::copy(e.path(), &dst).unwrap();
        }
    }
}

fn base() -> &'static PathBuf {
    static B: OnceLock<PathBuf> = OnceLock::new();
    B.get_or_init(|| {
        let src =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/flashlab-doctor/tests/fixtures/ubuntu-sbc-emmc");
        let dst = std::env::temp_dir().join(format!("flashlab-fuzz-sysfs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dst);
        copy_tree(&src, &dst);
        dst
    })
}

fuzz_target!(|data: &[u8]| {
    let root = base();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/flashlab-doctor/tests/fixtures/ubuntu-sbc-emmc");
    for (i, f) in FILES.iter().enumerate() {
        // Restore the original, then overwrite with the input's piece when there is one.
        let _ = std::fs::copy(src.join(f), root.join(f));
        if let Some(piece) = data.split(|&b| b == 0).nth(i) {
            let _ = std::fs::create_dir_all(root.join(f).parent().unwrap());
            std::fs::write(root.join(f), piece).unwrap();
        }
    }
    let report = flashlab_doctor::inspect(root);
    let _ = flashlab_doctor::render_text(&report, false);
});
