//! `.ci/run --system` (the system packages and the machine check) on a machine whose apt is
//! broken (dpkg left half-configured: every `apt-get install` exits 100): with `fusermount3`
//! absent it passes (fuse3 is not needed as root), and with a needed tool (`fio`) absent it
//! fails naming the step and printing apt's message.
//!
//! Tools are hidden through `PATH`: a directory of links to every program on this `PATH` but the
//! hidden ones, and a fake `apt-get`. Capabilities: the check needs what `.ci/run` checks (root,
//! fuse, loop, tracefs) and the tools it installs; a missing one fails unless
//! FLASHLAB_TEST_SKIP names it (flashlab-testcaps).

use flashlab_testcaps::{require, Cap};
use std::path::{Path, PathBuf};
use std::process::Command;

const BROKEN_APT: &str = "#!/bin/sh
[ \"$1\" = update ] && exit 0
echo \"E: dpkg was interrupted, you must manually run 'dpkg --configure -a' to correct the problem.\" >&2
exit 100
";

/// A `PATH` directory holding links to every program on this `PATH` except `hide`, and the
/// broken `apt-get`.
fn shadow_path(dir: &Path, hide: &[&str]) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for d in std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()) {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let name = e.file_name();
            let n = name.to_string_lossy();
            if hide.contains(&n.as_ref()) || n == "apt-get" || bin.join(&name).exists() {
                continue;
            }
            let _ = std::os::unix::fs::symlink(e.path(), bin.join(&name));
        }
    }
    let apt = bin.join("apt-get");
    std::fs::write(&apt, BROKEN_APT).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&apt, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// `.ci/run --system` with `hide` hidden and apt broken: (exit status, stderr).
fn ci_system(hide: &[&str]) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let bin = shadow_path(dir.path(), hide);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.ci/run");
    let out = Command::new("bash")
        .arg(&script)
        .arg("--system")
        .env("PATH", &bin)
        .env_remove("FLASHLAB_TEST_SKIP")
        .env_remove("FLASHLAB_SKIP_FIO")
        .output()
        .expect("running .ci/run");
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn capable() -> bool {
    let tools = ["fio", "cc", "losetup", "mount", "umount", "fstrim", "mkfs.ext4", "qemu-system-x86_64"];
    let tools = tools.map(Cap::Tool);
    let more = [Cap::Tool("mkfs.f2fs"), Cap::Tool("busybox"), Cap::Tool("file"), Cap::Tool("qemu-aarch64-static")];
    let caps: Vec<Cap> = [Cap::Root, Cap::Fuse, Cap::Loop, Cap::Tracefs].into_iter().chain(tools).chain(more).collect();
    require(&caps)
}

#[test]
fn passes_without_fuse3_when_apt_is_broken() {
    if !capable() {
        return;
    }
    let (code, stderr) = ci_system(&["fusermount3"]);
    assert_eq!(code, Some(0), ".ci/run --system failed without fusermount3:\n{stderr}");
    assert!(!stderr.contains("dpkg was interrupted"), "apt was run for a package the tests do not need:\n{stderr}");
}

#[test]
fn a_failed_install_names_its_step_and_apt_s_reason() {
    if !capable() {
        return;
    }
    let (code, stderr) = ci_system(&["fusermount3", "fio"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("step 'fio' failed"), "the failing step is not named:\n{stderr}");
    assert!(stderr.contains("dpkg was interrupted"), "apt's reason is not shown:\n{stderr}");
}
